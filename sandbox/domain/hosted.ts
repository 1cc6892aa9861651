// The hosted payment page's rules: what a checkout session, a payment link or a HOSTED payment offers
// the customer, whether it can still be used, the payment that Pay or Decline makes of it, where the
// customer goes next, and the notification the merchant's webhook receives about the final result.
import { type NewPayment, newPaymentOf } from './payments.js';
import type { CheckoutSession, Payment, PaymentLink, Schemas } from './types.js';

export type HostedKind = 'payments' | 'sessions' | 'links';

export type HostedTarget =
  | { kind: 'payments'; payment: Payment }
  | { kind: 'sessions'; session: CheckoutSession }
  | { kind: 'links'; link: PaymentLink };

/** The methods a page offers when the request names none (the "merchant configuration" of the contract). */
export const DEFAULT_HOSTED_METHODS: readonly Schemas['AllowedPaymentMethod'][] = [
  'CARD',
  'PAYPAL',
  'GOOGLEPAY',
  'APPLEPAY',
];

export interface HostedOffer {
  amount: { value: number; currency: string };
  /** The merchant's reference (transId). */
  reference: string;
  methods: readonly string[];
  urls: Schemas['PaymentUrls'];
}

export type HostedAvailability = { open: true; offer: HostedOffer } | { open: false; reason: 'used' | 'expired' };

const expired = (expiresAt: string | undefined, now: Date) =>
  expiresAt !== undefined && Date.parse(expiresAt) <= now.getTime();

/** What the page offers, or why it cannot be used any more. */
export function hostedAvailability(target: HostedTarget, now: Date): HostedAvailability {
  switch (target.kind) {
    case 'payments': {
      const p = target.payment;
      if (p.state !== 'PENDING')
        return {
          open: false,
          reason: p.state === 'FAILED' && expired(p.details.expirationTime, now) ? 'expired' : 'used',
        };
      if (expired(p.details.expirationTime, now)) return { open: false, reason: 'expired' };
      const methods = p.paymentMethodType !== undefined ? [p.paymentMethodType] : DEFAULT_HOSTED_METHODS;
      return {
        open: true,
        offer: {
          amount: { value: p.amount.value, currency: p.currency },
          reference: p.transId,
          methods,
          urls: p.details.urls ?? {},
        },
      };
    }
    case 'sessions':
      return requestAvailability(target.session, 'OPEN', now);
    case 'links':
      return requestAvailability(target.link, 'ACTIVE', now);
  }
}

/** A checkout session's or a payment link's page: open while it has its open status and has not expired. */
function requestAvailability(
  record: CheckoutSession | PaymentLink,
  openStatus: 'OPEN' | 'ACTIVE',
  now: Date,
): HostedAvailability {
  if (record.status !== openStatus) return { open: false, reason: record.status === 'EXPIRED' ? 'expired' : 'used' };
  if (expired(record.expiresAt, now)) return { open: false, reason: 'expired' };
  const r = record.request;
  return {
    open: true,
    offer: {
      amount: { value: r.amount.value, currency: r.amount.currency },
      reference: r.transId,
      methods: r.allowedPaymentMethods ?? DEFAULT_HOSTED_METHODS,
      urls: r.urls ?? {},
    },
  };
}

/** The payment a checkout session or a payment link becomes when the customer pays or declines (HOSTED, pending until decided). */
export function paymentOfHostedRequest(target: Extract<HostedTarget, { kind: 'sessions' | 'links' }>): NewPayment {
  const record = target.kind === 'sessions' ? target.session : target.link;
  return newPaymentOf(record.scope, record.request, { integrationType: 'HOSTED' });
}

/**
 * The session or link once its payment has a final result: both are used once (the payment took
 * their transId), whatever the result; the merchant makes a new one to try again.
 */
export function usedHostedTarget(
  target: Extract<HostedTarget, { kind: 'sessions' | 'links' }>,
  payId: string,
  paid: boolean,
): HostedTarget {
  if (target.kind === 'sessions')
    return { kind: 'sessions', session: { ...target.session, status: 'COMPLETED', payId } };
  return { kind: 'links', link: { ...target.link, status: paid ? 'PAID' : 'FAILED', payId } };
}

/** The identifiers the merchant's return and cancel URLs receive (documented on PaymentUrls in the contract). */
export interface RedirectParameters {
  payId?: string;
  transId: string;
  /** The payment's state after the decision (AUTHORIZED, CAPTURED, FAILED); absent on cancel. */
  status?: string;
  sessionId?: string;
  linkId?: string;
}

/** The merchant URL with the identifiers appended to its query (existing parameters kept). */
export function redirectTarget(base: string, parameters: RedirectParameters): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Which notification a merchant's webhook endpoint receives (per merchant; enhanced by default). */
export type WebhookKind = 'basic' | 'enhanced';

/** The body of a payment's final-result notification: basic carries the payId, enhanced the details document. */
export function notificationBody(kind: WebhookKind, payId: string, detailsDocument: string): string {
  return kind === 'basic' ? JSON.stringify({ payId } satisfies Schemas['BasicWebhookNotification']) : detailsDocument;
}

/** Compressed for a sandbox: attempt n (1-based) is retried after base × 2^(n-1), capped. */
export function retryDelayMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** (attempt - 1));
}
