// What the operation handlers share: storing a decision of the payment state machine (payment,
// operations, and the details document GET answers with), starting a payment with everything a
// payment brings along (its customer, its stored card, its plan), and the hosted pages' addresses.
import type { OperationId } from '../../../generated/operations.js';
import type { DomainContext } from '../../domain/context.js';
import { customerFromPayment, storedCard } from '../../domain/customers.js';
import { notificationBody } from '../../domain/hosted.js';
import { createPayment, duplicateTransaction, isKnownSimulation, operationResult, paymentDetails, type Decision, type NewPayment } from '../../domain/payments.js';
import { chargePlan, planFromInitialPayment, planPayment } from '../../domain/plans.js';
import { cardInput, cardInputProblem, DEFAULT_TEST_CARD, pseudoNumberRecord, type CardInput } from '../../domain/services.js';
import type { Merchant, Payment, PaymentPlan, PseudoNumberRecord, Schemas, Scope, StoredPaymentMethod, WebhookDelivery } from '../../domain/types.js';
import type { StoreTransaction } from '../../store/store.js';
import { newId } from '../ids.js';
import type { Handler, PipelineDeps, Reply, RequestContext } from '../pipeline.js';
import { problemBody } from '../problems.js';

/** A handler that only reads (no transaction; GET's fast path). */
export const read = (run: Extract<Handler, { kind: 'read' }>['run']): Handler => ({ kind: 'read', run });
/** A handler whose work, and the completion of its Idempotency-Key, commit in one transaction. */
export const write = (run: Extract<Handler, { kind: 'write' }>['run']): Handler => ({ kind: 'write', run });

/** The request's path parameter (validated by the pipeline). */
export const param = (ctx: RequestContext, name: string) => String(ctx.path[name]);

/** Where a hosted page of the sandbox is: the checkout session's, a payment link's, a HOSTED payment's. */
export function hostedUrl(ctx: RequestContext, kind: 'sessions' | 'links' | 'payments', id: string): string {
  return `${ctx.publicUrl}/hosted/${kind}/${ctx.environment}/${encodeURIComponent(ctx.merchant.merchantId)}/${id}`;
}

export const notFound = (ctx: RequestContext, what: string, id: string): Reply =>
  ctx.problem(404, { title: `${what} not found.`, detail: `No ${what.toLowerCase()} with id ${id} exists for this merchant.` });

/** 400 naming one field (a rule beyond the schema: a simulation code, card data, a plan's amount rule). */
export const invalid = (ctx: RequestContext, field: string, message: string): Reply =>
  ctx.problem(400, { title: 'One or more validation errors occurred.', detail: 'See errors for the fields that failed validation.', errors: { [field]: [message] } });

/** 400 for a simulationMode the contract does not list, or undefined. */
export function simulationProblem(ctx: RequestContext, mode: string | undefined, field = 'simulationMode'): Reply | undefined {
  if (isKnownSimulation(ctx.domain, mode)) return undefined;
  return invalid(ctx, field, `unknown simulation code; the contract lists ${[...ctx.domain.simulations.keys()].join(', ')}`);
}

/** Stores a decision: the payment (inserted or updated), its new operations, and its details document. */
export async function persist(tx: StoreTransaction, decision: Decision, mode: 'insert' | 'update'): Promise<string> {
  const previous = mode === 'update' ? await tx.operations.listByPayment(decision.payment.scope, decision.payment.payId) : [];
  const document = JSON.stringify(paymentDetails(decision.payment, [...previous, ...decision.operations]));
  if (mode === 'insert') await tx.payments.insert(decision.payment, document);
  else await tx.payments.update(decision.payment, document);
  for (const [i, op] of decision.operations.entries()) await tx.operations.insert(op, previous.length + i + 1);
  return document;
}

/** The operation result of a decision, 200 (or `success`) when it succeeded, else 422. */
export const decisionReply = (decision: Decision, success = 200): Reply => ({
  status: decision.outcome === 'ok' ? success : 422,
  body: operationResult(decision.payment, decision.reported),
});

const AUTHORIZED: ReadonlySet<Payment['state']> = new Set(['AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED']);

export interface StartedPayment {
  decision: Decision;
}

/**
 * Creates a payment and what it brings along: the customer it names (created or updated), and once
 * it is authorized, its card as a pseudo number and stored method (credential-on-file card
 * payments) and its payment plan (initial credential-on-file payments). Answers 422 for a taken
 * transId, 400 for unusable card data.
 */
export async function startPayment(
  ctx: RequestContext,
  tx: StoreTransaction,
  input: NewPayment,
  extras: { credentialOnFile?: Schemas['CredentialOnFile']; card?: unknown },
): Promise<StartedPayment | Reply> {
  const card = cardInput(extras.card);
  const problem = cardInputProblem(card);
  if (problem) return invalid(ctx, `paymentMethods.card.${problem.field}`, problem.message);
  if (await tx.payments.getByTransId(ctx.scope, input.transId)) return { status: 422, body: duplicateTransaction(ctx.scope, input.transId, ctx.domain) };

  const info = input.details.customerInfo;
  let customerId: string | undefined;
  if (info?.merchantCustomerId !== undefined) {
    const existing = await tx.customers.getByMerchantCustomerId(ctx.scope, info.merchantCustomerId);
    const customer = customerFromPayment(existing, ctx.scope, { customerInfo: info, ...(input.details.billingAddress ? { billingAddress: input.details.billingAddress } : {}), ...(input.details.shipping ? { shipping: input.details.shipping } : {}) }, ctx.domain)!;
    if (existing) await tx.customers.update(customer);
    else await tx.customers.insert(customer);
    customerId = customer.id;
  }

  const created = createPayment({ ...input, ...(customerId !== undefined ? { customerId } : {}) }, ctx.domain);
  return { decision: await settle(ctx, tx, created, 'insert', { ...(extras.credentialOnFile ? { credentialOnFile: extras.credentialOnFile } : {}), card }) };
}

/** A card payment's pseudo number, kept by fingerprint: the same card is the same pseudo number. */
async function cardRecord(ctx: RequestContext, tx: StoreTransaction, card: CardInput): Promise<PseudoNumberRecord | undefined> {
  if (card.pseudoNumber !== undefined) return tx.pseudoNumbers.getByPseudoNumber(ctx.scope, card.pseudoNumber);
  const number = card.cardNumber ?? DEFAULT_TEST_CARD;
  return tx.pseudoNumbers.getOrInsert(
    pseudoNumberRecord(
      {
        scope: ctx.scope,
        fingerprint: ctx.fingerprint(`CARD:${number}`),
        number,
        type: 'CARD',
        ...(card.expiryDate !== undefined ? { expiryDate: card.expiryDate } : {}),
        ...(card.cardHolderName !== undefined ? { cardHolderName: card.cardHolderName } : {}),
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
  ctx: RequestContext,
  tx: StoreTransaction,
  decision: Decision,
  mode: 'insert' | 'update',
  extras: { credentialOnFile?: Schemas['CredentialOnFile']; card?: CardInput } = {},
): Promise<Decision> {
  const payment = decision.payment;
  const credentialOnFile = extras.credentialOnFile ?? payment.details.credentialOnFile;
  if (decision.outcome !== 'ok' || !AUTHORIZED.has(payment.state) || !credentialOnFile || payment.paymentPlanId !== undefined) {
    await persist(tx, decision, mode);
    return decision;
  }
  let method: StoredPaymentMethod | undefined;
  if (payment.paymentMethodType === 'CARD') {
    const record = await cardRecord(ctx, tx, extras.card ?? {});
    if (record && payment.customerId !== undefined) {
      method = await tx.paymentMethods.getByPseudoNumber(ctx.scope, payment.customerId, record.pseudoNumber);
      if (!method) {
        method = storedCard(payment.customerId, record, ctx.domain);
        await tx.paymentMethods.insert(method);
      }
    }
  }
  const merchantCustomerId = payment.details.customerInfo?.merchantCustomerId;
  const plan = planFromInitialPayment(
    { payment, credentialOnFile, ...(merchantCustomerId !== undefined ? { merchantCustomerId } : {}), ...(method ? { storedPaymentMethod: method } : {}) },
    ctx.domain,
  );
  const settled: Decision = {
    ...decision,
    payment: { ...payment, ...(method ? { storedPaymentMethodId: method.id } : {}), ...(plan ? { paymentPlanId: plan.id } : {}) },
  };
  await persist(tx, settled, mode);
  if (plan) {
    await tx.plans.insert(plan);
    await tx.planPayments.insert(planPayment(plan, settled.payment, ctx.domain));
  }
  return settled;
}

/**
 * The context of work the sandbox does on its own (the hosted page's payment, the clock's captures
 * and billings): as if `operationId` had been called, for its problem shapes.
 */
export function internalContext(
  deps: Pick<PipelineDeps, 'contract' | 'publicUrl' | 'fingerprint'>,
  merchant: Merchant,
  scope: Scope,
  domain: DomainContext,
  operationId: OperationId,
  instance: string,
): RequestContext {
  const operation = deps.contract.operations.get(operationId)!;
  return {
    operation,
    environment: scope.environment,
    scope,
    merchant,
    path: {},
    query: {},
    body: undefined,
    domain,
    publicUrl: deps.publicUrl(),
    problem: (status, input) => ({ status, body: problemBody(deps.contract, operation, status, input, { traceId: newId('trace'), instance }) }),
    fingerprint: deps.fingerprint,
  };
}

/**
 * Queues the merchant's notification of a payment's result in the outbox (in the caller's
 * transaction): the basic or the enhanced body, per the merchant, due at once.
 */
export async function queueNotification(tx: StoreTransaction, merchant: Merchant, payment: Payment, url: string, now: Date): Promise<void> {
  const document = JSON.stringify(paymentDetails(payment, await tx.operations.listByPayment(payment.scope, payment.payId)));
  const kind = merchant.webhookKind ?? 'enhanced';
  const delivery: WebhookDelivery = {
    id: newId('webhook', now),
    scope: payment.scope,
    payId: payment.payId,
    kind,
    url,
    body: notificationBody(kind, payment.payId, document),
    status: 'PENDING',
    attempts: [],
    // Attempts run on the wall clock, whatever the scope's clock says: due now.
    nextAttemptAt: new Date().toISOString(),
    createdAt: now.toISOString(),
  };
  await tx.webhooks.insert(delivery);
}

export type PlanCharge =
  /** The charge was made (`decision`: its payment, authorized or declined); the plan moved on. */
  | { outcome: 'charged'; plan: PaymentPlan; decision: Decision }
  /** The request was not accepted: the reply says why (400, 422). */
  | { outcome: 'rejected'; reply: Reply };

/** Charges a plan (the merchant's charge, or the clock's on the plan's date) and records the plan payment. */
export async function chargeAndRecord(ctx: RequestContext, tx: StoreTransaction, plan: PaymentPlan, request: Schemas['PlanChargeRequest']): Promise<PlanCharge> {
  const initial = await tx.payments.get(ctx.scope, plan.initialPayId);
  if (!initial) throw new Error(`plan ${plan.id} lost its initial payment ${plan.initialPayId}`);
  const charge = chargePlan(plan, request, initial, ctx.domain);
  if (charge.outcome === 'invalid') return { outcome: 'rejected', reply: invalid(ctx, charge.field, charge.message) };
  if (charge.outcome === 'refused') {
    const code = ctx.domain.codes[charge.code];
    const refused: Schemas['PlanChargeResult'] = { paymentPlanId: plan.id, merchantId: ctx.scope.merchantId, transId: request.transId, ...(request.refNr !== undefined ? { refNr: request.refNr } : {}), status: 'FAILED', ...code };
    return { outcome: 'rejected', reply: { status: 422, body: refused } };
  }
  const started = await startPayment(ctx, tx, charge.payment, {});
  if ('status' in started) return { outcome: 'rejected', reply: started.status === 422 ? { status: 422, body: { ...(started.body as object), paymentPlanId: plan.id } } : started };
  await tx.plans.update(charge.plan);
  await tx.planPayments.insert(planPayment(charge.plan, started.decision.payment, ctx.domain));
  return { outcome: 'charged', plan: charge.plan, decision: started.decision };
}
