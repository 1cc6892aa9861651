// Payments as use cases: storing a decision of the payment state machine (the payment, its
// operations, and the details document GET answers with), starting a payment with everything a
// payment brings along (its customer, its stored card, its plan), and the changes a merchant makes.
import { type CustomerSource, customerFromPayment, storedCard } from '../domain/customers.js';
import { expirationProblem } from '../domain/expiration.js';
import {
  capturePayment,
  confirmPayment,
  createPayment as createDecision,
  type Decision,
  duplicateTransaction,
  incrementAuthorization,
  isKnownSimulation,
  type NewPayment,
  newPaymentOf,
  paymentDetails,
  refundPayment,
  reversePayment,
  createUnreferencedRefund as unreferencedRefundDecision,
  updatePayment as updateDecision,
} from '../domain/payments.js';
import { planFromInitialPayment, planPayment } from '../domain/plans.js';
import {
  type CardInput,
  cardInput,
  cardInputProblem,
  DEFAULT_TEST_CARD,
  pseudoNumberRecord,
} from '../domain/services.js';
import type { Customer, Payment, PseudoNumberRecord, Schemas, Scope, StoredPaymentMethod } from '../domain/types.js';
import { merchantUrlProblem } from '../domain/urls.js';
import type { Store, StoreTransaction } from '../store/store.js';
import type { AppContext } from './context.js';
import { type DestinationContext, webhookUrlRejection } from './destinations.js';
import { invalid, isRejection, notFound, type Rejection, refused } from './outcomes.js';

/** A `simulationMode` the contract does not list is invalid input, refused before any state changes. */
export function unknownSimulation(
  ctx: AppContext,
  mode: string | undefined,
  field = 'simulationMode',
): Rejection | undefined {
  if (isKnownSimulation(ctx.domain, mode)) return undefined;
  return invalid(field, `unknown simulation code; the contract lists ${[...ctx.domain.simulations.keys()].join(', ')}`);
}

/** A past `expirationTime` is invalid input (400 naming it), by the scope's clock. */
export function pastExpiration(ctx: AppContext, expirationTime: string | undefined): Rejection | undefined {
  const problem = expirationProblem(expirationTime, ctx.domain.now);
  return problem === undefined ? undefined : invalid('expirationTime', problem);
}

/** Merchant URLs the scope's root does not accept (`javascript:`, `file:`; plain `http:` on the live root) are invalid input. */
export function unacceptedUrls(ctx: AppContext, urls: Parameters<typeof merchantUrlProblem>[1]): Rejection | undefined {
  const problem = merchantUrlProblem(ctx.scope.environment, urls);
  return problem && invalid(problem.field, problem.message);
}

/** What a request that starts a payment (or a session, link or intent) may carry and the sandbox checks. */
interface StartingRequest {
  simulationMode?: string | undefined;
  expirationTime?: string | undefined;
  urls?: Parameters<typeof merchantUrlProblem>[1] & Parameters<typeof webhookUrlRejection>[1];
}

/** Why a request that starts a payment is invalid input, refused before any state changes. */
export function startingRequestRejection(ctx: DestinationContext, request: StartingRequest): Rejection | undefined {
  return (
    unknownSimulation(ctx, request.simulationMode) ??
    pastExpiration(ctx, request.expirationTime) ??
    unacceptedUrls(ctx, request.urls) ??
    webhookUrlRejection(ctx, request.urls)
  );
}

/** Stores a decision: the payment (inserted or updated), its new operations, and its details document. */
export async function persist(tx: StoreTransaction, decision: Decision, mode: 'insert' | 'update'): Promise<string> {
  const previous =
    mode === 'update' ? await tx.operations.listByPayment(decision.payment.scope, decision.payment.payId) : [];
  const document = JSON.stringify(paymentDetails(decision.payment, [...previous, ...decision.operations]));
  if (mode === 'insert') await tx.payments.insert(decision.payment, document);
  else await tx.payments.update(decision.payment, document);
  for (const [i, op] of decision.operations.entries()) await tx.operations.insert(op, previous.length + i + 1);
  return document;
}

const AUTHORIZED: ReadonlySet<Payment['state']> = new Set(['AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED']);

/**
 * Whether the decision authorized the payment (its creation, confirmation or the hosted page's):
 * what credential on file brings comes then, not with a later capture or refund, which carries no card.
 */
const authorizes = (decision: Decision) =>
  decision.operations.some((op) => op.status === 'OK' && (op.type === 'AUTHORIZATION' || op.type === 'CONFIRMATION'));

/** What a payment brings along besides its request: credential on file and the card it was made with. */
export interface PaymentExtras {
  credentialOnFile?: Schemas['CredentialOnFile'];
  card?: unknown;
  /** Where the request carries `card`, as a 400 names it (default `paymentMethods.card`). */
  cardField?: string;
}

/**
 * Creates a payment and what it brings along: the customer it names (created or updated), and once
 * it is authorized, its card as a pseudo number and stored method (credential-on-file card
 * payments) and its payment plan (initial credential-on-file payments). Refuses a taken transId and
 * unusable card data.
 */
export async function startPayment(
  ctx: AppContext,
  tx: StoreTransaction,
  input: NewPayment,
  extras: PaymentExtras,
): Promise<{ decision: Decision } | Rejection> {
  const card = cardInput(extras.card);
  const problem = cardInputProblem(card);
  if (problem) return invalid(`${extras.cardField ?? 'paymentMethods.card'}.${problem.field}`, problem.message);
  if (await tx.payments.getByTransId(ctx.scope, input.transId))
    return refused(duplicateTransaction(ctx.scope, input.transId, ctx.domain));

  const customer = await keepCustomer(ctx, tx, {
    customerInfo: input.details.customerInfo,
    billingAddress: input.details.billingAddress,
    shipping: input.details.shipping,
  });
  const customerId = customer?.id;

  // The payment's customer, when its request named one: added only then, so that the common
  // payment's input keeps its shape (an object that gains keys after a spread makes V8 maps of its own).
  const created = createDecision(customerId === undefined ? input : { ...input, customerId }, ctx.domain);
  return { decision: await settle(ctx, tx, created, 'insert', { credentialOnFile: extras.credentialOnFile, card }) };
}

/** The customer a payment's details name, created or brought up to date, stored; undefined when they name none. */
export async function keepCustomer(
  ctx: AppContext,
  tx: StoreTransaction,
  source: CustomerSource,
): Promise<Customer | undefined> {
  const merchantCustomerId = source.customerInfo?.merchantCustomerId;
  if (merchantCustomerId === undefined) return undefined;
  const existing = await tx.customers.getByMerchantCustomerId(ctx.scope, merchantCustomerId);
  const customer = customerFromPayment(existing, ctx.scope, source, ctx.domain)!;
  if (existing) await tx.customers.update(customer);
  else await tx.customers.insert(customer);
  return customer;
}

/** The customer's stored method of the card `record` is the pseudo number of: the one stored, else a new one. */
async function storedMethod(
  ctx: AppContext,
  tx: StoreTransaction,
  customerId: string,
  record: PseudoNumberRecord,
): Promise<StoredPaymentMethod> {
  const stored = await tx.paymentMethods.getByPseudoNumber(ctx.scope, customerId, record.pseudoNumber);
  if (stored) return stored;
  const method = storedCard(customerId, record, ctx.domain);
  await tx.paymentMethods.insert(method);
  return method;
}

/** A card stored for a customer as a credential-on-file payment stores it: its pseudo number, and the method. */
export async function storeCard(
  ctx: AppContext,
  tx: StoreTransaction,
  customerId: string,
  card: CardInput,
): Promise<StoredPaymentMethod | undefined> {
  const record = await cardRecord(ctx, tx, card);
  return record && storedMethod(ctx, tx, customerId, record);
}

/** A card payment's pseudo number, kept by fingerprint: the same card is the same pseudo number. */
async function cardRecord(
  ctx: AppContext,
  tx: StoreTransaction,
  card: CardInput,
): Promise<PseudoNumberRecord | undefined> {
  if (card.pseudoNumber !== undefined) return tx.pseudoNumbers.getByPseudoNumber(ctx.scope, card.pseudoNumber);
  const number = card.cardNumber ?? DEFAULT_TEST_CARD;
  return tx.pseudoNumbers.getOrInsert(
    pseudoNumberRecord(
      {
        scope: ctx.scope,
        fingerprint: ctx.fingerprint(`CARD:${number}`),
        number,
        type: 'CARD',
        expiryDate: card.expiryDate,
        cardHolderName: card.cardHolderName,
      },
      ctx.domain,
    ),
  );
}

/**
 * Stores a decision on a payment; when it authorized the payment, first what credential on file
 * brings: the customer's stored card, and the plan of an initial payment (with its first plan payment).
 */
export async function settle(
  ctx: AppContext,
  tx: StoreTransaction,
  decision: Decision,
  mode: 'insert' | 'update',
  extras: { credentialOnFile?: Schemas['CredentialOnFile']; card?: CardInput } = {},
): Promise<Decision> {
  const payment = decision.payment;
  const credentialOnFile = extras.credentialOnFile ?? payment.details.credentialOnFile;
  if (
    decision.outcome !== 'ok' ||
    !AUTHORIZED.has(payment.state) ||
    !authorizes(decision) ||
    !credentialOnFile ||
    payment.paymentPlanId !== undefined
  ) {
    await persist(tx, decision, mode);
    return decision;
  }
  let method: StoredPaymentMethod | undefined;
  if (payment.paymentMethodType === 'CARD') {
    const record = await cardRecord(ctx, tx, extras.card ?? {});
    if (record && payment.customerId !== undefined) method = await storedMethod(ctx, tx, payment.customerId, record);
  }
  const merchantCustomerId = payment.details.customerInfo?.merchantCustomerId;
  const plan = planFromInitialPayment(
    { payment, credentialOnFile, merchantCustomerId, storedPaymentMethod: method },
    ctx.domain,
  );
  const settled: Decision = {
    ...decision,
    payment: {
      ...payment,
      storedPaymentMethodId: method ? method.id : payment.storedPaymentMethodId,
      paymentPlanId: plan ? plan.id : payment.paymentPlanId,
    },
  };
  await persist(tx, settled, mode);
  if (plan) {
    await tx.plans.insert(plan);
    await tx.planPayments.insert(planPayment(plan, settled.payment, ctx.domain));
  }
  return settled;
}

/** A payment request: without paymentMethods the customer chooses the method on the hosted page. */
export async function createPayment(
  ctx: DestinationContext,
  tx: StoreTransaction,
  request: Schemas['PaymentRequest'],
): Promise<{ decision: Decision } | Rejection> {
  const rejected = startingRequestRejection(ctx, request);
  if (rejected) return rejected;
  const { paymentMethods, credentialOnFile } = request;
  const input = newPaymentOf(ctx.scope, request, {
    integrationType: paymentMethods?.integrationType ?? 'HOSTED',
    paymentMethodType: paymentMethods?.type,
  });
  return startPayment(ctx, tx, input, { credentialOnFile, card: paymentMethods?.card });
}

/** A change of the state machine on the payment `payId` (locked for it), settled and stored. */
export async function changePayment(
  ctx: AppContext,
  tx: StoreTransaction,
  payId: string,
  change: (payment: Payment) => Decision | Rejection,
): Promise<Decision | Rejection> {
  const payment = await tx.payments.get(ctx.scope, payId, { lock: true });
  if (!payment) return notFound('Payment', payId);
  const result = change(payment);
  if (isRejection(result)) return result;
  return settle(ctx, tx, result, 'update');
}

/** The merchant's changes of a payment, by operation. */
export const paymentChanges = {
  confirm: (ctx: AppContext, tx: StoreTransaction, payId: string, request: Schemas['PaymentConfirmRequest']) =>
    changePayment(ctx, tx, payId, (payment) => confirmPayment(payment, request, ctx.domain)),
  incrementAuthorization: (
    ctx: AppContext,
    tx: StoreTransaction,
    payId: string,
    request: Schemas['IncrementalAuthorizationRequest'],
  ) => changePayment(ctx, tx, payId, (payment) => incrementAuthorization(payment, request, ctx.domain)),
  reverse: (ctx: AppContext, tx: StoreTransaction, payId: string, request: Schemas['ReversalRequest']) =>
    changePayment(ctx, tx, payId, (payment) => reversePayment(payment, request, ctx.domain)),
  capture: (ctx: AppContext, tx: StoreTransaction, payId: string, request: Schemas['CaptureRequest']) =>
    changePayment(
      ctx,
      tx,
      payId,
      (payment) => unknownSimulation(ctx, request.simulationMode) ?? capturePayment(payment, request, ctx.domain),
    ),
  refund: (ctx: AppContext, tx: StoreTransaction, payId: string, request: Schemas['RefundRequest']) =>
    changePayment(
      ctx,
      tx,
      payId,
      (payment) => unknownSimulation(ctx, request.simulationMode) ?? refundPayment(payment, request, ctx.domain),
    ),
};

/** The payment result key of a method object in a request's `paymentMethods` (`card` → CARD). */
const METHOD_TYPES: Record<string, string> = {
  applePay: 'APPLEPAY',
  bancontact: 'BANCONTACT',
  boleto: 'BOLETO',
  card: 'CARD',
  directDebit: 'DIRECTDEBIT',
  googlePay: 'GOOGLEPAY',
  ideal: 'IDEAL',
  klarna: 'KLARNA',
  payPal: 'PAYPAL',
  pfConnect: 'PFCONNECT',
  ratepay: 'RATEPAY',
  riverty: 'RIVERTY',
};

/** The payment method type a request's `paymentMethods` names by its method object (`{ klarna: … }` → KLARNA). */
export const methodTypeOf = (paymentMethods: object | undefined): string | undefined =>
  Object.keys(paymentMethods ?? {})
    .map((k) => METHOD_TYPES[k])
    .find((t) => t !== undefined);

/** A refund without a payment to refer to: a payment record of its own, under the request's transId. */
export async function createUnreferencedRefund(
  ctx: AppContext,
  tx: StoreTransaction,
  request: Schemas['UnreferencedRefundRequest'],
): Promise<{ decision: Decision } | Rejection> {
  const unknown = unknownSimulation(ctx, request.simulationMode);
  if (unknown) return unknown;
  if (await tx.payments.getByTransId(ctx.scope, request.transId))
    return refused(duplicateTransaction(ctx.scope, request.transId, ctx.domain));
  const method = methodTypeOf(request.paymentMethods);
  const decision = unreferencedRefundDecision({ scope: ctx.scope, request, paymentMethodType: method }, ctx.domain);
  await persist(tx, decision, 'insert');
  return { decision };
}

/** The merchant's update of a payment's descriptive fields; answers with the details document. */
export async function updatePayment(
  ctx: AppContext,
  tx: StoreTransaction,
  payId: string,
  request: Schemas['PaymentUpdateRequest'],
): Promise<{ document: string } | Rejection> {
  const past = pastExpiration(ctx, request.expirationTime);
  if (past) return past;
  const payment = await tx.payments.get(ctx.scope, payId, { lock: true });
  if (!payment) return notFound('Payment', payId);
  return { document: await persist(tx, updateDecision(payment, request, ctx.domain), 'update') };
}

/** The payment details document as stored (JSON text), by payId or by transId: GET's path, one indexed read. */
export async function paymentDocument(
  store: Store,
  scope: Scope,
  by: 'payId' | 'transId',
  id: string,
): Promise<{ document: string } | Rejection> {
  const document =
    by === 'payId' ? await store.paymentDocument(scope, id) : await store.paymentDocumentByTransId(scope, id);
  return document === undefined ? notFound('Payment', id) : { document };
}
