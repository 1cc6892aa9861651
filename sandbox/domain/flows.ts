// Checkout sessions, payment links and payment intents: records that become a payment later, when
// the customer pays on the hosted page or the mobile SDK confirms the intent.
import type { DomainContext, ResponseCodeName } from './context.js';
import { type NewPayment, newPaymentOf } from './payments.js';
import { withoutCardData } from './services.js';
import type { CheckoutSession, PaymentIntent, PaymentLink, Schemas, Scope } from './types.js';

/** How long a checkout session stays open when the request gives no expirationTime. */
export const SESSION_LIFETIME_MS = 60 * 60_000;
/** How long a payment link stays valid when the request gives no expirationTime. */
export const LINK_LIFETIME_MS = 7 * 24 * 3_600_000;

const expiry = (requested: string | undefined, ctx: DomainContext, lifetimeMs: number) =>
  requested ?? new Date(ctx.now.getTime() + lifetimeMs).toISOString();

export function createSession(
  scope: Scope,
  request: Schemas['CheckoutSessionRequest'],
  ctx: DomainContext,
): CheckoutSession {
  return {
    id: ctx.newId('session'),
    scope,
    status: 'OPEN',
    request: withoutCardData(request),
    createdAt: ctx.now.toISOString(),
    expiresAt: expiry(request.expirationTime, ctx, SESSION_LIFETIME_MS),
  };
}

export function createLink(scope: Scope, request: Schemas['PaymentLinkRequest'], ctx: DomainContext): PaymentLink {
  return {
    id: ctx.newId('link'),
    scope,
    status: 'ACTIVE',
    request: withoutCardData(request),
    createdAt: ctx.now.toISOString(),
    expiresAt: expiry(request.expirationTime, ctx, LINK_LIFETIME_MS),
  };
}

/** `url`: where the link opens the hosted page (the HTTP layer knows the sandbox's address). */
export function linkBody(link: PaymentLink, url: string): Schemas['PaymentLink'] {
  return {
    id: link.id,
    url,
    payId: link.payId,
    transId: link.request.transId,
    amount: { value: link.request.amount.value, currency: link.request.amount.currency },
    expirationTime: link.expiresAt,
    status: link.status,
  };
}

export function createIntent(
  scope: Scope,
  request: Schemas['PaymentIntentRequest'],
  ctx: DomainContext,
): PaymentIntent {
  return {
    id: ctx.newId('intent'),
    scope,
    status: 'CREATED',
    request: withoutCardData(request),
    createdAt: ctx.now.toISOString(),
  };
}

export type IntentConfirmation =
  | { outcome: 'ok'; intent: PaymentIntent; payment: NewPayment }
  /** 422 with an operation result naming the code (the intent is left as it is). */
  | { outcome: 'refused'; code: ResponseCodeName };

/** The payment an intent's confirmation creates: the intent's request with the method the app chose. */
export function confirmIntent(intent: PaymentIntent, selection: Schemas['PaymentMethodSelection']): IntentConfirmation {
  if (intent.status !== 'CREATED') return { outcome: 'refused', code: 'INTENT_ALREADY_CONFIRMED' };
  const request = intent.request;
  if (request.amount === undefined) return { outcome: 'refused', code: 'INTENT_INCOMPLETE' };
  return {
    outcome: 'ok',
    intent: { ...intent, status: 'CONFIRMED' },
    // The intent's credentialOnFile is of its own kind: the payment does not take it over.
    payment: newPaymentOf(
      intent.scope,
      { ...request, amount: request.amount, transId: request.transId ?? intent.id, credentialOnFile: undefined },
      { integrationType: selection.integrationType, paymentMethodType: selection.type },
    ),
  };
}

/** The 422 body of a refused intent confirmation (no payment was made). */
export function refusedIntentResult(
  intent: PaymentIntent,
  code: ResponseCodeName,
  ctx: DomainContext,
): Schemas['DeclinedOperationResult'] {
  const c = ctx.codes[code];
  return {
    merchantId: intent.scope.merchantId,
    // the transId its payment would have had
    transId: intent.request.transId ?? intent.id,
    payId: intent.payId,
    status: 'FAILED',
    responseCode: c.responseCode,
    responseDescription: c.responseDescription,
  };
}
