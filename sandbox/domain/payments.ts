// The payment state machine: creation, confirmation, capture, reversal, refunds, incremental
// authorization and update, following the interface document's rules and preconditions. Pure: every
// function takes the payment as it is and returns the payment as it becomes plus the operations to
// record; the use cases (app/) load and store them in one transaction.
//
//   PENDING (HOSTED: customer on the hosted page) ─┐
//   PENDING_CONFIRMATION (DIRECT, multi-step) ─ confirm ─┤
//   DIRECT, single-step ───────────────────────────────┴─▶ AUTHORIZED ─ capture ─▶ PARTIALLY_CAPTURED ─▶ CAPTURED
//        │ declined: FAILED                                   │ reversal                     │ refund ─▶ PARTIALLY_REFUNDED ─▶ REFUNDED
//                                                             ▼ REVERSED
import { definedMembers } from '../../tooling/defined.js';
import type { DomainContext, ResponseCode, ResponseCodeName, Simulated } from './context.js';
import {
  type CaptureMode,
  DESCRIPTIVE_FIELDS,
  type OperationType,
  type Payment,
  type PaymentDescriptiveFields,
  type PaymentOperation,
  type PaymentState,
  type Schemas,
  type Scope,
} from './types.js';

/**
 * Methods whose DIRECT flow has a second step (the customer approves at the provider, then the
 * merchant confirms): the payment waits in PENDING_CONFIRMATION. The others authorize at creation.
 */
export const MULTI_STEP_METHODS: ReadonlySet<string> = new Set([
  'BANCONTACT',
  'BOLETO',
  'IDEAL',
  'KLARNA',
  'PAYPAL',
  'PAYU',
]);
/** Incremental authorization applies to card authorizations only. */
export const CARD_METHOD = 'CARD';

/** What a command did: `failed` is answered 422 with the operation result of `reported`. */
export interface Decision {
  outcome: 'ok' | 'failed';
  payment: Payment;
  /** Operations to record, in order (an automatic capture follows its authorization). */
  operations: PaymentOperation[];
  /** The operation the response reports. */
  reported: PaymentOperation;
}

/** A payment to create, from a payment request, an intent confirmation, a plan charge or the hosted page. */
export interface NewPayment {
  scope: Scope;
  transId: string;
  refNr?: string;
  amount: Schemas['Amount'];
  captureMethod?: Schemas['CaptureMethod'];
  integrationType: Schemas['IntegrationType'];
  paymentMethodType?: string;
  details: PaymentDescriptiveFields;
  metadata?: Schemas['Metadata'];
  simulationMode?: string;
  customerId?: string;
  paymentPlanId?: string;
  storedPaymentMethodId?: string;
}

/** What every request that makes a payment sends (a payment, a checkout session, a payment link, an intent). */
export interface PaymentMakingRequest extends PaymentDescriptiveFields {
  transId: string;
  refNr?: string;
  amount: Schemas['Amount'];
  captureMethod?: Schemas['CaptureMethod'];
  metadata?: Schemas['Metadata'];
  simulationMode?: string;
}

/**
 * The payment a request makes: its identifiers, amount, capture, metadata, simulation and
 * descriptive fields, integrated and paid as `how` says. The one mapping from a request to a new
 * payment, for payments, intents and the hosted page alike.
 */
export function newPaymentOf(
  scope: Scope,
  request: PaymentMakingRequest,
  how: { integrationType: Schemas['IntegrationType']; paymentMethodType?: string | undefined },
): NewPayment {
  const { transId, refNr, amount, captureMethod, metadata, simulationMode } = request;
  return {
    scope,
    transId,
    refNr,
    amount,
    captureMethod,
    integrationType: how.integrationType,
    paymentMethodType: how.paymentMethodType,
    details: descriptiveFields(request),
    metadata,
    simulationMode,
  };
}

const iso = (date: Date) => date.toISOString();

/** A `simulationMode` the contract does not list: invalid input (400), checked before any state changes. */
export function isKnownSimulation(ctx: Pick<DomainContext, 'simulations'>, mode: string | undefined): boolean {
  return mode === undefined || ctx.simulations.has(mode);
}

function simulate(ctx: DomainContext, mode: string | undefined): Simulated {
  if (mode === undefined) return { kind: 'success' };
  const simulated = ctx.simulations.get(mode);
  if (!simulated) throw new Error(`unknown simulationMode ${mode}: validate it with isKnownSimulation() first`);
  return simulated;
}

interface OperationInput {
  type: OperationType;
  transId: string;
  refNr?: string;
  amount?: Schemas['ReportedAmount'];
  metadata?: Schemas['Metadata'];
}

function operation(
  payment: Pick<Payment, 'payId' | 'scope'>,
  input: OperationInput,
  code: ResponseCode,
  ok: boolean,
  ctx: DomainContext,
  paymentMethods?: Schemas['PaymentMethodResults'],
): PaymentOperation {
  return {
    xId: ctx.newId('operation'),
    payId: payment.payId,
    scope: payment.scope,
    type: input.type,
    transId: input.transId,
    refNr: input.refNr,
    status: ok ? 'OK' : 'FAILED',
    responseCode: code.responseCode,
    responseDescription: code.responseDescription,
    amount: input.amount,
    metadata: input.metadata,
    paymentMethods,
    createdAt: iso(ctx.now),
  };
}

/**
 * The operation that makes the payment FAILED, and the payment so failed: its authorization (or
 * confirmation) was declined, or it expired waiting. The operation is the payment's outcome.
 */
function failPayment(
  payment: Payment,
  input: OperationInput,
  code: ResponseCode,
  ctx: DomainContext,
  paymentMethods?: Schemas['PaymentMethodResults'],
): Decision {
  const failed: PaymentOperation = {
    ...operation(payment, input, code, false, ctx, paymentMethods),
    failsPayment: true,
  };
  return {
    outcome: 'failed',
    payment: changed(payment, ctx, { state: 'FAILED' }),
    operations: [failed],
    reported: failed,
  };
}

/** The result sub-object of a payment method, e.g. `card` for CARD and the card wallets. */
export function resultKeyOf(paymentMethodType: string | undefined): string | undefined {
  switch (paymentMethodType) {
    case 'CARD':
    case 'APPLEPAY':
    case 'GOOGLEPAY':
      return 'card';
    case 'PAYPAL':
      return 'payPal';
    case 'KLARNA':
      return 'klarna';
    default:
      return undefined;
  }
}

function declineDetails(
  payment: Payment,
  simulated: Extract<Simulated, { kind: 'decline' }>,
): Schemas['PaymentMethodResults'] | undefined {
  const key = resultKeyOf(payment.paymentMethodType);
  const details = key ? simulated.providerDetails?.[key] : undefined;
  return key && details ? ({ [key]: details } as Schemas['PaymentMethodResults']) : undefined;
}

function changed(payment: Payment, ctx: DomainContext, patch: Partial<Payment>): Payment {
  return { ...payment, ...patch, updatedAt: iso(ctx.now), version: payment.version + 1 };
}

function ok(payment: Payment, operations: PaymentOperation[]): Decision {
  return { outcome: 'ok', payment, operations, reported: operations[0]! };
}

/** A refused command: the payment is unchanged but for the failed operation in its history. */
function refuse(payment: Payment, input: OperationInput, name: ResponseCodeName, ctx: DomainContext): Decision {
  const failed = operation(payment, input, ctx.codes[name], false, ctx);
  return { outcome: 'failed', payment: changed(payment, ctx, {}), operations: [failed], reported: failed };
}

/** The state that the amounts of an authorized payment imply. */
export function settledState(
  payment: Pick<Payment, 'kind' | 'authorizedValue' | 'capturedValue' | 'refundedValue' | 'reversedValue'>,
): PaymentState {
  if (payment.kind === 'UNREFERENCED_REFUND') return 'REFUNDED';
  const open = payment.authorizedValue - payment.reversedValue - payment.capturedValue;
  if (payment.refundedValue > 0)
    return payment.refundedValue >= payment.capturedValue && open <= 0 ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  if (payment.capturedValue > 0) return open <= 0 ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
  return open <= 0 ? 'REVERSED' : 'AUTHORIZED';
}

/** Minor units still authorized and not captured (or reversed). */
/** The descriptive fields a request sends; those it leaves out stay absent, as the stored payment shows them. */
export function descriptiveFields(request: PaymentDescriptiveFields): PaymentDescriptiveFields {
  return Object.fromEntries(
    DESCRIPTIVE_FIELDS.filter((key) => request[key] !== undefined).map((key) => [key, request[key]]),
  ) as PaymentDescriptiveFields;
}

export const capturable = (p: Payment) => p.authorizedValue - p.reversedValue - p.capturedValue;
/** Minor units captured and not refunded. */
export const refundable = (p: Payment) => p.capturedValue - p.refundedValue;

/**
 * Authorizes (with the creation's simulationMode) and, for AUTOMATIC capture, captures at once;
 * DELAYED records when the clock captures. `type` is the operation that authorizes: AUTHORIZATION at
 * creation, CONFIRMATION for a multi-step method or the hosted page's decision.
 */
export function authorize(payment: Payment, input: OperationInput, ctx: DomainContext): Decision {
  const simulated = simulate(ctx, payment.simulationMode);
  if (simulated.kind === 'decline')
    return failPayment(payment, input, simulated.code, ctx, declineDetails(payment, simulated));
  const value = payment.amount.value;
  // The payment's amount unless the input names one. Written out, not spread: on V8 an object that
  // gains keys after a spread gets hidden classes of its own (see scopeOf in the store).
  const authorization = operation(
    payment,
    {
      type: input.type,
      transId: input.transId,
      refNr: input.refNr,
      amount: input.amount ?? { value, currency: payment.currency },
      metadata: input.metadata,
    },
    ctx.codes.SUCCESS,
    true,
    ctx,
  );
  let authorized = changed(payment, ctx, { state: 'AUTHORIZED', authorizedValue: value });
  const operations = [authorization];
  if (payment.captureMode === 'AUTOMATIC') {
    operations.push(
      operation(
        payment,
        { type: 'CAPTURE', transId: input.transId, refNr: input.refNr, amount: { value, currency: payment.currency } },
        ctx.codes.SUCCESS,
        true,
        ctx,
      ),
    );
    authorized = { ...authorized, capturedValue: value, state: 'CAPTURED' };
  } else if (payment.captureMode === 'DELAYED' && payment.delayedHours !== undefined) {
    authorized = { ...authorized, captureAt: iso(new Date(ctx.now.getTime() + payment.delayedHours * 3_600_000)) };
  }
  return ok(authorized, operations);
}

/** Creates a payment: HOSTED waits for the customer, DIRECT multi-step for its confirmation, DIRECT single-step authorizes now. */
export function createPayment(input: NewPayment, ctx: DomainContext): Decision {
  const now = iso(ctx.now);
  const captureMode: CaptureMode = input.captureMethod?.type ?? 'AUTOMATIC';
  const payment: Payment = {
    payId: ctx.newId('payment'),
    scope: input.scope,
    kind: 'PAYMENT',
    transId: input.transId,
    refNr: input.refNr,
    state: 'PENDING',
    integrationType: input.integrationType,
    paymentMethodType: input.paymentMethodType,
    currency: input.amount.currency,
    amount: input.amount,
    authorizedValue: 0,
    capturedValue: 0,
    refundedValue: 0,
    reversedValue: 0,
    captureMode,
    delayedHours: captureMode === 'DELAYED' ? input.captureMethod?.delayed?.delayedHours : undefined,
    simulationMode: input.simulationMode,
    customerId: input.customerId,
    paymentPlanId: input.paymentPlanId,
    storedPaymentMethodId: input.storedPaymentMethodId,
    details: input.details,
    metadata: input.metadata,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  const opInput: OperationInput = {
    type: 'AUTHORIZATION',
    transId: input.transId,
    refNr: input.refNr,
    metadata: input.metadata,
  };
  const waits =
    input.integrationType === 'HOSTED'
      ? 'PENDING'
      : input.paymentMethodType !== undefined && MULTI_STEP_METHODS.has(input.paymentMethodType)
        ? 'PENDING_CONFIRMATION'
        : undefined;
  if (waits) {
    const created = operation(payment, { ...opInput, type: 'CREATION' }, ctx.codes.SUCCESS, true, ctx);
    return ok({ ...payment, state: waits }, [created]);
  }
  const decision = authorize(payment, opInput, ctx);
  // The new payment is version 1 whatever authorize() did to it.
  return { ...decision, payment: { ...decision.payment, version: 1, updatedAt: now } };
}

/** What the customer chose on the hosted page: pay (with a method) or decline (a simulated failure). */
export type HostedChoice = { decision: 'pay'; paymentMethodType: string } | { decision: 'decline' };

/**
 * The customer's choice on the hosted page for a PENDING HOSTED payment: Pay authorizes with the
 * chosen method (the creation's simulationMode still decides, and AUTOMATIC captures at once);
 * Decline fails the authorization with DECLINED. Anything else was decided already.
 */
export function completeOnHostedPage(payment: Payment, choice: HostedChoice, ctx: DomainContext): Decision {
  const input: OperationInput = { type: 'AUTHORIZATION', transId: payment.transId, refNr: payment.refNr };
  if (payment.state !== 'PENDING' || payment.integrationType !== 'HOSTED')
    return refuse(payment, input, 'WRONG_STATE', ctx);
  if (choice.decision === 'decline') return failPayment(payment, input, ctx.codes.DECLINED, ctx);
  return authorize({ ...payment, paymentMethodType: choice.paymentMethodType }, input, ctx);
}

/** Confirms a multi-step payment: authorizes it (and captures it, for AUTOMATIC capture). */
export function confirmPayment(
  payment: Payment,
  request: Schemas['PaymentConfirmRequest'],
  ctx: DomainContext,
): Decision {
  const input: OperationInput = {
    type: 'CONFIRMATION',
    transId: request.transId,
    refNr: request.refNr,
    metadata: request.metadata,
  };
  if (payment.state !== 'PENDING_CONFIRMATION') return refuse(payment, input, 'NOT_AWAITING_CONFIRMATION', ctx);
  return authorize(payment, input, ctx);
}

/** The states of a payment that waits (for the customer on the hosted page, or for its confirmation). */
const WAITING_STATES: ReadonlySet<PaymentState> = new Set(['PENDING', 'PENDING_CONFIRMATION']);

/** When a waiting payment expires (its `expirationTime`), or undefined when it does not wait or never expires. */
export function expiryDueAt(payment: Payment): string | undefined {
  const at = payment.details.expirationTime;
  return WAITING_STATES.has(payment.state) && at !== undefined ? iso(new Date(at)) : undefined;
}

/**
 * A waiting payment whose `expirationTime` passed before the customer decided or the merchant
 * confirmed: its authorization fails with PAYMENT_EXPIRED and the payment is FAILED.
 */
export function expirePayment(payment: Payment, ctx: DomainContext): Decision {
  const input: OperationInput = {
    type: payment.state === 'PENDING_CONFIRMATION' ? 'CONFIRMATION' : 'AUTHORIZATION',
    transId: payment.transId,
    refNr: payment.refNr,
  };
  if (expiryDueAt(payment) === undefined) return refuse(payment, input, 'WRONG_STATE', ctx);
  return failPayment(payment, input, ctx.codes.PAYMENT_EXPIRED, ctx);
}

/** Amount checks shared by capture, reversal, refund and incremental authorization. */
function amountProblem(
  payment: Payment,
  amount: { value: number; currency: string },
  available: number,
): ResponseCodeName | undefined {
  if (amount.currency !== payment.currency) return 'CURRENCY_MISMATCH';
  if (amount.value <= 0) return 'AMOUNT_NOT_POSITIVE';
  if (amount.value > available) return 'AMOUNT_EXCEEDS_AVAILABLE';
  return undefined;
}

function operationInput(
  type: OperationType,
  request: { transId: string; refNr?: string; amount?: Schemas['Amount']; metadata?: Schemas['Metadata'] },
): OperationInput {
  return {
    type,
    transId: request.transId,
    refNr: request.refNr,
    amount: request.amount && { value: request.amount.value, currency: request.amount.currency },
    metadata: request.metadata,
  };
}

const AUTHORIZED_STATES: ReadonlySet<PaymentState> = new Set([
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
]);

/** Captures part or all of what is authorized; several captures up to the authorized amount. */
export function capturePayment(payment: Payment, request: Schemas['CaptureRequest'], ctx: DomainContext): Decision {
  const input = operationInput('CAPTURE', request);
  if (payment.kind !== 'PAYMENT' || !AUTHORIZED_STATES.has(payment.state) || capturable(payment) <= 0) {
    return refuse(
      payment,
      input,
      payment.state === 'CAPTURED' || payment.state === 'REFUNDED' ? 'ALREADY_CAPTURED' : 'NOTHING_TO_CAPTURE',
      ctx,
    );
  }
  const problem = amountProblem(payment, request.amount, capturable(payment));
  if (problem) return refuse(payment, input, problem, ctx);
  const simulated = simulate(ctx, request.simulationMode);
  if (simulated.kind === 'decline') {
    const failed = operation(payment, input, simulated.code, false, ctx, declineDetails(payment, simulated));
    return { outcome: 'failed', payment: changed(payment, ctx, {}), operations: [failed], reported: failed };
  }
  const captured = { ...payment, capturedValue: payment.capturedValue + request.amount.value };
  return ok(changed(payment, ctx, { capturedValue: captured.capturedValue, state: settledState(captured) }), [
    operation(payment, input, ctx.codes.SUCCESS, true, ctx),
  ]);
}

/** Cancels the uncaptured authorization, whole (no amount) or in part; only while nothing is captured. */
export function reversePayment(payment: Payment, request: Schemas['ReversalRequest'], ctx: DomainContext): Decision {
  const amount = request.amount ?? { value: Math.max(capturable(payment), 0), currency: payment.currency };
  const input = operationInput('REVERSAL', { ...request, amount });
  if (payment.kind !== 'PAYMENT' || payment.capturedValue > 0)
    return refuse(payment, input, payment.capturedValue > 0 ? 'ALREADY_CAPTURED' : 'WRONG_STATE', ctx);
  if (payment.state !== 'AUTHORIZED') return refuse(payment, input, 'WRONG_STATE', ctx);
  const problem = amountProblem(payment, amount, capturable(payment));
  if (problem) return refuse(payment, input, problem, ctx);
  const reversed = { ...payment, reversedValue: payment.reversedValue + amount.value };
  return ok(
    changed(payment, ctx, {
      reversedValue: reversed.reversedValue,
      state: settledState(reversed),
      // Nothing is left for a DELAYED capture to take.
      captureAt: settledState(reversed) === 'REVERSED' ? undefined : payment.captureAt,
    }),
    [operation(payment, input, ctx.codes.SUCCESS, true, ctx)],
  );
}

/** Refunds part or all of what is captured; refunds in total up to the captured amount. */
export function refundPayment(payment: Payment, request: Schemas['RefundRequest'], ctx: DomainContext): Decision {
  const input = operationInput('REFUND', request);
  if (payment.kind !== 'PAYMENT' || refundable(payment) <= 0) return refuse(payment, input, 'WRONG_STATE', ctx);
  const problem = amountProblem(payment, request.amount, refundable(payment));
  if (problem) return refuse(payment, input, problem, ctx);
  const simulated = simulate(ctx, request.simulationMode);
  if (simulated.kind === 'decline') {
    const failed = operation(payment, input, simulated.code, false, ctx, declineDetails(payment, simulated));
    return { outcome: 'failed', payment: changed(payment, ctx, {}), operations: [failed], reported: failed };
  }
  const refunded = { ...payment, refundedValue: payment.refundedValue + request.amount.value };
  return ok(changed(payment, ctx, { refundedValue: refunded.refundedValue, state: settledState(refunded) }), [
    operation(payment, input, ctx.codes.SUCCESS, true, ctx),
  ]);
}

/** Adds to a card authorization; the total authorized reflects both. */
export function incrementAuthorization(
  payment: Payment,
  request: Schemas['IncrementalAuthorizationRequest'],
  ctx: DomainContext,
): Decision {
  const input = operationInput('INCREMENTAL_AUTHORIZATION', request);
  if (payment.paymentMethodType !== CARD_METHOD) return refuse(payment, input, 'CARD_ONLY', ctx);
  if (payment.state !== 'AUTHORIZED' && payment.state !== 'PARTIALLY_CAPTURED')
    return refuse(payment, input, 'WRONG_STATE', ctx);
  const problem = amountProblem(payment, request.amount, Number.MAX_SAFE_INTEGER);
  if (problem) return refuse(payment, input, problem, ctx);
  const authorizedValue = payment.authorizedValue + request.amount.value;
  return ok(changed(payment, ctx, { authorizedValue, state: settledState({ ...payment, authorizedValue }) }), [
    operation(payment, input, ctx.codes.SUCCESS, true, ctx),
  ]);
}

/** Changes the descriptive fields of a payment (not its money). */
export function updatePayment(
  payment: Payment,
  request: Schemas['PaymentUpdateRequest'],
  ctx: DomainContext,
): Decision {
  const { refNr, metadata, ...fields } = request;
  const input: OperationInput = { type: 'UPDATE', transId: payment.transId, refNr, metadata };
  // What the request leaves out stays as it is.
  const updated = changed(payment, ctx, {
    ...definedMembers({ refNr, metadata }),
    details: { ...payment.details, ...fields },
  });
  return ok(updated, [operation(payment, input, ctx.codes.SUCCESS, true, ctx)]);
}

/** A refund without reference to an earlier payment: a payment of its own, refunded at once. */
export function createUnreferencedRefund(
  input: { scope: Scope; request: Schemas['UnreferencedRefundRequest']; paymentMethodType: string | undefined },
  ctx: DomainContext,
): Decision {
  const { request } = input;
  const now = iso(ctx.now);
  const payment: Payment = {
    payId: ctx.newId('payment'),
    scope: input.scope,
    kind: 'UNREFERENCED_REFUND',
    transId: request.transId,
    refNr: request.refNr,
    state: 'REFUNDED',
    integrationType: 'DIRECT',
    paymentMethodType: input.paymentMethodType,
    currency: request.amount.currency,
    amount: request.amount,
    authorizedValue: 0,
    capturedValue: 0,
    refundedValue: 0,
    reversedValue: 0,
    captureMode: 'MANUAL',
    details: {
      customerInfo: request.customerInfo,
      billingAddress: request.billingAddress,
      // An empty descriptor is none.
      statementDescriptor: request.statementDescriptor || undefined,
      order: request.order,
    },
    metadata: request.metadata,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  const opInput = operationInput('REFUND', request);
  if (request.amount.value <= 0) {
    const failed: PaymentOperation = {
      ...operation(payment, opInput, ctx.codes.AMOUNT_NOT_POSITIVE, false, ctx),
      failsPayment: true,
    };
    return { outcome: 'failed', payment: { ...payment, state: 'FAILED' }, operations: [failed], reported: failed };
  }
  const simulated = simulate(ctx, request.simulationMode);
  if (simulated.kind === 'decline') {
    const failed: PaymentOperation = {
      ...operation(payment, opInput, simulated.code, false, ctx, declineDetails(payment, simulated)),
      failsPayment: true,
    };
    return { outcome: 'failed', payment: { ...payment, state: 'FAILED' }, operations: [failed], reported: failed };
  }
  return ok({ ...payment, refundedValue: request.amount.value }, [
    operation(payment, opInput, ctx.codes.SUCCESS, true, ctx),
  ]);
}

/** A payment whose transId is taken: refused before anything is stored (422, without payId). */
export function duplicateTransaction(
  scope: Scope,
  transId: string,
  ctx: DomainContext,
): Schemas['DeclinedOperationResult'] {
  const code = ctx.codes.DUPLICATE_TRANSACTION;
  return {
    merchantId: scope.merchantId,
    transId,
    status: 'FAILED',
    responseCode: code.responseCode,
    responseDescription: code.responseDescription,
  };
}

// ---------------------------------------------------------------------------------------------
// Bodies

/** The operation result the contract answers payment operations with. */
export function operationResult(
  payment: Pick<Payment, 'payId' | 'scope'>,
  op: PaymentOperation,
): Schemas['OperationResult'] {
  return {
    payId: payment.payId,
    merchantId: payment.scope.merchantId,
    transId: op.transId,
    xId: op.xId,
    refNr: op.refNr,
    status: op.status,
    responseCode: op.responseCode,
    responseDescription: op.responseDescription,
    metadata: op.metadata,
    paymentMethods: op.paymentMethods,
  };
}

const money = (value: number, currency: string): Schemas['ReportedAmount'] => ({ value, currency });

/** An operation that decided the payment: a success that moved it (not an UPDATE), or the failure that failed it. */
const isOutcome = (op: PaymentOperation) => op.failsPayment === true || (op.status === 'OK' && op.type !== 'UPDATE');

/**
 * The payment details record: the payment's identity, its amounts and state, and its operations,
 * oldest first. Its result fields (xId, status, response code) are the payment's latest outcome:
 * the last operation that succeeded or that failed the payment (a decline of its authorization or
 * confirmation, an expiry), whichever came later, whether a request, the hosted page or the clock
 * made it. A refused request (a capture beyond the amount) and a change of the descriptive fields
 * (UPDATE) are in the history only: neither decided anything about the payment.
 */
export function paymentDetails(payment: Payment, operations: PaymentOperation[]): Schemas['PaymentDetails'] {
  const last = operations.findLast(isOutcome) ?? operations.at(-1);
  // every payment is made by an operation, whose record is stored with it
  if (!last) throw new Error(`payment ${payment.payId} has no operation`);
  const { details } = payment;
  return {
    payId: payment.payId,
    merchantId: payment.scope.merchantId,
    transId: payment.transId,
    xId: last.xId,
    refNr: payment.refNr,
    status: last.status,
    responseCode: last.responseCode,
    responseDescription: last.responseDescription,
    metadata: payment.metadata,
    state: payment.state,
    amount: payment.amount,
    authorizedAmount: money(payment.authorizedValue, payment.currency),
    capturedAmount: money(payment.capturedValue, payment.currency),
    refundedAmount: money(payment.refundedValue, payment.currency),
    reversedAmount: money(payment.reversedValue, payment.currency),
    integrationType: payment.integrationType,
    paymentMethodType: payment.paymentMethodType,
    captureMethod: {
      type: payment.captureMode,
      delayed: payment.delayedHours === undefined ? undefined : { delayedHours: payment.delayedHours },
    },
    captureTime: payment.captureAt,
    channel: details.channel,
    creationDate: payment.createdAt,
    order: details.order,
    customerInfo: details.customerInfo,
    billingAddress: details.billingAddress,
    shipping: details.shipping,
    paymentPlanId: payment.paymentPlanId,
    operations: operations.map((op) => ({
      type: op.type,
      xId: op.xId,
      transId: op.transId,
      refNr: op.refNr,
      status: op.status,
      responseCode: op.responseCode,
      responseDescription: op.responseDescription,
      amount: op.amount,
      creationDate: op.createdAt,
    })),
  };
}
