// The lifecycle's way to each state of a payment: the transitions that bring a new DIRECT payment
// (MANUAL capture) there, after its creation. A data file's payment goes this way (app/data-file.ts
// tries it on the pure state machine first, app/data-load.ts takes it through the use cases), so a
// payment the sandbox loads is one its lifecycle made, operations and all.
//
//   AUTHORIZED            created (single-step method), or created and confirmed (multi-step)
//   PARTIALLY_CAPTURED    authorized, then a capture of part of the amount
//   CAPTURED              authorized, then a capture of all of it
//   PARTIALLY_REFUNDED    captured, then a refund of part of what was captured
//   REFUNDED              captured, then a refund of all of it
//   REVERSED              authorized, then its authorization reversed (a cancelled payment)
//   PENDING_CONFIRMATION  created with a multi-step method, waiting for its confirmation
//   DECLINED              FAILED: its authorization declined (a decline simulation code)
//   EXPIRED               FAILED: created waiting, and its expirationTime passed before its confirmation
import type { DomainContext } from './context.js';
import {
  capturePayment,
  confirmPayment,
  type Decision,
  expirePayment,
  MULTI_STEP_METHODS,
  refundPayment,
  reversePayment,
} from './payments.js';
import type { Payment, PaymentState } from './types.js';

/** Where a path ends: a payment state, or the way a payment fails. */
export const TARGET_STATES = [
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REVERSED',
  'PENDING_CONFIRMATION',
  'DECLINED',
  'EXPIRED',
] as const;
export type TargetState = (typeof TARGET_STATES)[number];

/** The states that wait for a confirmation: only a multi-step method gets there. */
export const WAITING_TARGETS: ReadonlySet<TargetState> = new Set(['PENDING_CONFIRMATION', 'EXPIRED']);

/** The payment state a path ends in. */
export const endState = (target: TargetState): PaymentState =>
  target === 'DECLINED' || target === 'EXPIRED' ? 'FAILED' : target;

/** A payment that EXPIRED waited this long: created this far back, its expirationTime a minute before now. */
export const EXPIRED_WAIT_MS = 3_600_000;
export const EXPIRED_BEFORE_NOW_MS = 60_000;

/** Which part of the input a step's amount came from, so that a refusal names it. */
export type AmountSource = 'amount' | 'captured' | 'refunded';

/** A transition after the creation. */
export type Step =
  | { kind: 'confirm' }
  | { kind: 'capture'; value: number; from: AmountSource }
  | { kind: 'refund'; value: number; from: AmountSource }
  | { kind: 'reverse' }
  | { kind: 'expire' };

export interface PathInput {
  target: TargetState;
  /** Minor units of the payment's amount. */
  amount: number;
  method: string;
  /** Minor units captured, where the target captures (default by target). */
  captured?: number | undefined;
  /** Minor units refunded, where the target refunds (default by target). */
  refunded?: number | undefined;
}

/** Half of `value`, at least 1: the default part of a partial capture or refund. */
const half = (value: number) => Math.max(1, Math.floor(value / 2));

/** The steps after the creation that bring a new payment to `input.target`. */
export function stepsTo(input: PathInput): Step[] {
  const authorize: Step[] = MULTI_STEP_METHODS.has(input.method) ? [{ kind: 'confirm' }] : [];
  const capture = (value: number | undefined, fallback: number): Step =>
    value === undefined
      ? { kind: 'capture', value: fallback, from: 'amount' }
      : { kind: 'capture', value, from: 'captured' };
  const captured = input.captured ?? input.amount;
  const refund = (fallback: number): Step =>
    input.refunded === undefined
      ? { kind: 'refund', value: fallback, from: input.captured === undefined ? 'amount' : 'captured' }
      : { kind: 'refund', value: input.refunded, from: 'refunded' };
  switch (input.target) {
    case 'PENDING_CONFIRMATION':
      return [];
    case 'EXPIRED':
      return [{ kind: 'expire' }];
    case 'DECLINED':
    case 'AUTHORIZED':
      return authorize;
    case 'REVERSED':
      return [...authorize, { kind: 'reverse' }];
    case 'PARTIALLY_CAPTURED':
      return [...authorize, capture(input.captured, half(input.amount))];
    case 'CAPTURED':
      return [...authorize, capture(input.captured, input.amount)];
    case 'PARTIALLY_REFUNDED':
      return [...authorize, capture(input.captured, input.amount), refund(half(captured))];
    case 'REFUNDED':
      return [...authorize, capture(input.captured, input.amount), refund(captured)];
  }
}

/** A step taken on `payment`: the state machine's decision (its operations under the payment's transId). */
export function takeStep(step: Step, payment: Payment, ctx: DomainContext): Decision {
  const transId = payment.transId;
  const money = (value: number) => ({ value, currency: payment.currency });
  switch (step.kind) {
    case 'confirm':
      return confirmPayment(payment, { transId }, ctx);
    case 'capture':
      return capturePayment(payment, { transId, amount: money(step.value) }, ctx);
    case 'refund':
      return refundPayment(payment, { transId, amount: money(step.value) }, ctx);
    case 'reverse':
      return reversePayment(payment, { transId }, ctx);
    case 'expire':
      return expirePayment(payment, ctx);
  }
}
