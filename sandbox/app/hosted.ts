// The hosted payment page's use cases: what a checkout session, a payment link or a HOSTED payment
// offers the customer, and the customer's choice. Pay and Decline decide the payment (in one
// transaction with the session's or link's use and the merchant's notification); Cancel decides
// nothing. Where the customer goes next is the answer; the page itself is the HTTP layer's.

import type { ContractTables } from '../contract/contract.js';
import {
  type HostedKind,
  type HostedOffer,
  type HostedTarget,
  hostedAvailability,
  paymentOfHostedRequest,
  type RedirectParameters,
  usedHostedTarget,
} from '../domain/hosted.js';
import { completeOnHostedPage, type Decision } from '../domain/payments.js';
import type { Environment, Merchant, Payment, Scope } from '../domain/types.js';
import type { Store, StoreTransaction } from '../store/store.js';
import { appContextAt } from './context.js';
import { queueNotification } from './notifications.js';
import { isRejection } from './outcomes.js';
import { settle, startPayment } from './payments.js';

const KINDS: ReadonlySet<string> = new Set<HostedKind>(['payments', 'sessions', 'links']);
const ENVIRONMENTS: ReadonlySet<string> = new Set<Environment>(['test', 'live']);

/** A hosted page's address as its URL gives it (untrusted text). */
export interface HostedAddress {
  kind: string;
  environment: string;
  merchantId: string;
  id: string;
}

/** The page an address names: a known merchant's scope, a kind of target, its id. */
export interface HostedPlace {
  merchant: Merchant;
  scope: Scope;
  kind: HostedKind;
  id: string;
}

/** Why the page cannot be used: each is a message page. */
export type HostedRefusal = 'missing' | 'used' | 'expired' | 'invalid';

export type HostedChoice = { decision: 'pay'; method: string } | { decision: 'decline' } | { decision: 'cancel' };

/** Where the customer goes after a choice (`redirect` undefined: the merchant gave no address), and the payment decided, if any. */
export interface HostedExit {
  redirect: string | undefined;
  parameters: RedirectParameters;
  decided?: Decision;
}

export interface HostedDeps {
  store: Store;
  tables: ContractTables;
  fingerprint(text: string): string;
}

/** The place an address names, or undefined (an unknown kind, environment or merchant). */
export async function findHostedPlace(store: Store, address: HostedAddress): Promise<HostedPlace | undefined> {
  if (!KINDS.has(address.kind) || !ENVIRONMENTS.has(address.environment)) return undefined;
  const merchant = await store.merchants.get(address.merchantId);
  if (!merchant) return undefined;
  return {
    merchant,
    kind: address.kind as HostedKind,
    scope: { merchantId: merchant.merchantId, environment: address.environment as Environment },
    id: address.id,
  };
}

async function loadTarget(
  tx: Pick<StoreTransaction, 'payments' | 'sessions' | 'links'>,
  place: HostedPlace,
  lock: boolean,
): Promise<HostedTarget | undefined> {
  const options = { lock };
  if (place.kind === 'payments') {
    const payment = await tx.payments.get(place.scope, place.id, options);
    return payment && payment.kind === 'PAYMENT' && payment.integrationType === 'HOSTED'
      ? { kind: 'payments', payment }
      : undefined;
  }
  if (place.kind === 'sessions') {
    const session = await tx.sessions.get(place.scope, place.id, options);
    return session && { kind: 'sessions', session };
  }
  const link = await tx.links.get(place.scope, place.id, options);
  return link && { kind: 'links', link };
}

/** What the page offers at `now`, or why it cannot be used. */
export async function hostedOffer(
  store: Store,
  place: HostedPlace,
  now: Date,
): Promise<{ offer: HostedOffer } | { refusal: HostedRefusal }> {
  const target = await store.transaction((tx) => loadTarget(tx, place, false));
  if (!target) return { refusal: 'missing' };
  const availability = hostedAvailability(target, now);
  return availability.open ? { offer: availability.offer } : { refusal: availability.reason };
}

/** The customer's choice on the page, at `now` (the scope's clock). */
export async function chooseOnHostedPage(
  deps: HostedDeps,
  place: HostedPlace,
  choice: HostedChoice,
  now: Date,
): Promise<HostedExit | { refusal: HostedRefusal }> {
  const { merchant, scope } = place;
  const ctx = appContextAt(now, merchant, scope, deps);
  return deps.store.transaction(async (tx) => {
    const target = await loadTarget(tx, place, true);
    if (!target) return { refusal: 'missing' };
    const availability = hostedAvailability(target, now);
    if (!availability.open) return { refusal: availability.reason };
    const { offer } = availability;
    const ids = {
      sessionId: target.kind === 'sessions' ? target.session.id : undefined,
      linkId: target.kind === 'links' ? target.link.id : undefined,
    };
    if (choice.decision === 'cancel') {
      return {
        redirect: offer.urls.cancel,
        parameters: {
          transId: offer.reference,
          payId: target.kind === 'payments' ? target.payment.payId : undefined,
          ...ids,
        },
      };
    }
    if (choice.decision === 'pay' && !offer.methods.includes(choice.method)) return { refusal: 'invalid' };

    let payment: Payment;
    if (target.kind === 'payments') payment = target.payment;
    else {
      const request = target.kind === 'sessions' ? target.session.request : target.link.request;
      const started = await startPayment(ctx, tx, paymentOfHostedRequest(target), {
        credentialOnFile: request.credentialOnFile,
      });
      if (isRejection(started)) return { refusal: 'used' }; // its transId was taken meanwhile
      payment = started.decision.payment;
    }
    const decided = completeOnHostedPage(
      payment,
      choice.decision === 'pay' ? { decision: 'pay', paymentMethodType: choice.method } : { decision: 'decline' },
      ctx.domain,
    );
    const settled = await settle(ctx, tx, decided, 'update');
    if (target.kind !== 'payments') {
      const used = usedHostedTarget(target, payment.payId, settled.outcome === 'ok');
      if (used.kind === 'sessions') await tx.sessions.update(used.session);
      else if (used.kind === 'links') await tx.links.update(used.link);
    }
    if (offer.urls.webhook) await queueNotification(tx, merchant, settled.payment, offer.urls.webhook, now);
    return {
      redirect: offer.urls.return,
      parameters: { payId: payment.payId, transId: offer.reference, status: settled.payment.state, ...ids },
      decided: settled,
    };
  });
}
