// Checkout sessions, payment links and payment intents: records that become a payment later, when
// the customer pays on the hosted page or the mobile SDK confirms the intent.
import { confirmIntent, createIntent, createLink, createSession, refusedIntentResult } from '../domain/flows.js';
import type { Decision } from '../domain/payments.js';
import type { CheckoutSession, PaymentIntent, PaymentLink, Schemas } from '../domain/types.js';
import type { StoreTransaction } from '../store/store.js';
import type { AppContext } from './context.js';
import type { DestinationContext } from './destinations.js';
import { isRejection, notFound, type Rejection, refused } from './outcomes.js';
import { startingRequestRejection, startPayment } from './payments.js';

export async function createCheckoutSession(
  ctx: DestinationContext,
  tx: StoreTransaction,
  request: Schemas['CheckoutSessionRequest'],
): Promise<{ session: CheckoutSession } | Rejection> {
  const rejected = startingRequestRejection(ctx, request);
  if (rejected) return rejected;
  const session = createSession(ctx.scope, request, ctx.domain);
  await tx.sessions.insert(session);
  return { session };
}

export async function createPaymentLink(
  ctx: DestinationContext,
  tx: StoreTransaction,
  request: Schemas['PaymentLinkRequest'],
): Promise<{ link: PaymentLink } | Rejection> {
  const rejected = startingRequestRejection(ctx, request);
  if (rejected) return rejected;
  const link = createLink(ctx.scope, request, ctx.domain);
  await tx.links.insert(link);
  return { link };
}

export async function createPaymentIntent(
  ctx: DestinationContext,
  tx: StoreTransaction,
  request: Schemas['PaymentIntentRequest'],
): Promise<{ intent: PaymentIntent } | Rejection> {
  const rejected = startingRequestRejection(ctx, request);
  if (rejected) return rejected;
  const intent = createIntent(ctx.scope, request, ctx.domain);
  await tx.intents.insert(intent);
  return { intent };
}

/** The app's confirmation of an intent (locked for it), with the method the customer chose: the payment is made. */
export async function confirmPaymentIntent(
  ctx: AppContext,
  tx: StoreTransaction,
  id: string,
  selection: Schemas['PaymentMethodSelection'],
): Promise<{ decision: Decision } | Rejection> {
  const intent = await tx.intents.get(ctx.scope, id, { lock: true });
  if (!intent) return notFound('Payment intent', id);
  const confirmation = confirmIntent(intent, selection);
  if (confirmation.outcome === 'refused') return refused(refusedIntentResult(intent, confirmation.code, ctx.domain));
  const credentialOnFile = intent.request.credentialOnFile;
  const started = await startPayment(ctx, tx, confirmation.payment, {
    credentialOnFile:
      credentialOnFile?.type !== undefined ? (credentialOnFile as Schemas['CredentialOnFile']) : undefined,
    card: selection.card,
    cardField: 'card',
  });
  if (isRejection(started)) return started;
  await tx.intents.update({ ...confirmation.intent, payId: started.decision.payment.payId });
  return started;
}
