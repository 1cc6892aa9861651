// Invariants of the payment state machine over any sequence of operations (fast-check): whatever a
// merchant, the hosted page and the customer send, in whatever order, the money adds up, the state is
// the one the amounts imply, every operation succeeds exactly when the document's preconditions hold,
// and the operations recorded account for every amount.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capturable,
  capturePayment,
  completeOnHostedPage,
  confirmPayment,
  createPayment,
  type Decision,
  incrementAuthorization,
  paymentDetails,
  refundable,
  refundPayment,
  reversePayment,
  settledState,
  updatePayment,
} from '../../../sandbox/domain/payments.js';
import type { Payment, PaymentOperation, PaymentState } from '../../../sandbox/domain/types.js';
import { contractCodeTables, newPayment, testDomain } from '../../support/domain.js';

/** An amount: absolute (any integer, zero and negatives included), all that is available, or a part of it. */
type Value = number | 'all' | { part: number };
type Command =
  | { kind: 'capture'; value: Value; currency: string; simulationMode?: (typeof SIMULATIONS)[number] }
  | { kind: 'reverse'; value?: Value; currency: string }
  | { kind: 'refund'; value: Value; currency: string; simulationMode?: (typeof SIMULATIONS)[number] }
  | { kind: 'increment'; value: number; currency: string }
  | { kind: 'confirm' }
  | { kind: 'pay'; method: string }
  | { kind: 'decline' }
  | { kind: 'update' }
  | { kind: 'wait'; ms: number };

const SIMULATIONS = contractCodeTables().simulationCodes.map((s) => s.simulationMode);
const SUCCESS_CODE = contractCodeTables().responseCodes.SUCCESS!.responseCode;
const KNOWN_CODES = new Set(Object.values(contractCodeTables().responseCodes).map((c) => c.responseCode));
const succeeds = (mode: string | undefined) =>
  mode === undefined ||
  contractCodeTables().simulationCodes.find((s) => s.simulationMode === mode)!.responseCode === SUCCESS_CODE;

const currency = fc.constantFrom('EUR', 'EUR', 'EUR', 'USD');
const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant('all' as const),
  fc.record({ part: fc.double({ min: 0.01, max: 1, noNaN: true }) }),
  fc.integer({ min: -50, max: 60_000 }),
);
/** Mostly none: a simulation code that declines is one outcome among others. */
const simulation = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...SIMULATIONS) },
);

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('capture' as const), value, currency, simulationMode: simulation }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('reverse' as const),
      value: fc.option(value, { nil: undefined }),
      currency,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('refund' as const), value, currency, simulationMode: simulation }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('increment' as const),
      value: fc.integer({ min: -10, max: 20_000 }),
      currency,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'confirm' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('pay' as const), method: fc.constantFrom('CARD', 'PAYPAL', 'GOOGLEPAY') }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'decline' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'update' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 100 * 3_600_000 }) }),
  },
);

const creation = fc.record({
  integrationType: fc.constantFrom('DIRECT' as const, 'DIRECT' as const, 'DIRECT' as const, 'HOSTED' as const),
  paymentMethodType: fc.constantFrom('CARD', 'CARD', 'CARD', 'PAYPAL', 'KLARNA', 'APPLEPAY', undefined),
  captureMethod: fc.oneof(
    { weight: 1, arbitrary: fc.constant({ type: 'AUTOMATIC' as const }) },
    { weight: 2, arbitrary: fc.constant({ type: 'MANUAL' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 696 })
        .map((delayedHours) => ({ type: 'DELAYED' as const, delayed: { delayedHours } })),
    },
  ),
  value: fc.integer({ min: 1, max: 50_000 }),
  simulationMode: simulation,
});

const AUTHORIZED_FAMILY: ReadonlySet<PaymentState> = new Set([
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REVERSED',
]);
const resolve = (v: Value | undefined, all: number) =>
  v === 'all' ? all : typeof v === 'object' ? Math.max(1, Math.floor(all * v.part)) : v;

/** What the document's preconditions say of a command on `p`: does it succeed, and by how much does it change which amount. */
function expected(
  p: Payment,
  c: Command,
): {
  ok: boolean;
  delta?: Partial<Record<'authorizedValue' | 'capturedValue' | 'refundedValue' | 'reversedValue', number>>;
} {
  const same = (cur: string) => cur === p.currency;
  switch (c.kind) {
    case 'capture': {
      const v = resolve(c.value, capturable(p))!;
      const ok =
        ['AUTHORIZED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED'].includes(p.state) &&
        same(c.currency) &&
        v > 0 &&
        v <= capturable(p) &&
        succeeds(c.simulationMode);
      return { ok, delta: { capturedValue: v } };
    }
    case 'reverse': {
      const v = resolve(c.value, capturable(p)) ?? capturable(p);
      const ok =
        p.state === 'AUTHORIZED' &&
        p.capturedValue === 0 &&
        (c.value === undefined || same(c.currency)) &&
        v > 0 &&
        v <= capturable(p);
      return { ok, delta: { reversedValue: v } };
    }
    case 'refund': {
      const v = resolve(c.value, refundable(p))!;
      return {
        ok: same(c.currency) && v > 0 && v <= refundable(p) && succeeds(c.simulationMode),
        delta: { refundedValue: v },
      };
    }
    case 'increment':
      return {
        ok:
          p.paymentMethodType === 'CARD' &&
          (p.state === 'AUTHORIZED' || p.state === 'PARTIALLY_CAPTURED') &&
          same(c.currency) &&
          c.value > 0,
        delta: { authorizedValue: c.value },
      };
    case 'confirm':
      return { ok: p.state === 'PENDING_CONFIRMATION' && succeeds(p.simulationMode) };
    case 'pay':
      return { ok: p.state === 'PENDING' && p.integrationType === 'HOSTED' && succeeds(p.simulationMode) };
    case 'decline':
    case 'wait':
      return { ok: false };
    case 'update':
      return { ok: true };
  }
}

function run(p: Payment, c: Exclude<Command, { kind: 'wait' }>, ctx: ReturnType<typeof testDomain>): Decision {
  const amount = (v: Value, all: number, cur: string) => ({ value: resolve(v, all) as number, currency: cur });
  switch (c.kind) {
    case 'capture':
      return capturePayment(
        p,
        {
          transId: 'C',
          amount: amount(c.value, capturable(p), c.currency),
          ...(c.simulationMode ? { simulationMode: c.simulationMode } : {}),
        },
        ctx,
      );
    case 'reverse':
      return reversePayment(
        p,
        { transId: 'V', ...(c.value !== undefined ? { amount: amount(c.value, capturable(p), c.currency) } : {}) },
        ctx,
      );
    case 'refund':
      return refundPayment(
        p,
        {
          transId: 'R',
          amount: amount(c.value, refundable(p), c.currency),
          ...(c.simulationMode ? { simulationMode: c.simulationMode } : {}),
        },
        ctx,
      );
    case 'increment':
      return incrementAuthorization(p, { transId: 'I', amount: { value: c.value, currency: c.currency } }, ctx);
    case 'confirm':
      return confirmPayment(p, { transId: 'CONF' }, ctx);
    case 'pay':
      return completeOnHostedPage(p, { decision: 'pay', paymentMethodType: c.method }, ctx);
    case 'decline':
      return completeOnHostedPage(p, { decision: 'decline' }, ctx);
    case 'update':
      return updatePayment(p, { statementDescriptor: 'UPDATED' }, ctx);
  }
}

const sum = (ops: PaymentOperation[], ...types: PaymentOperation['type'][]) =>
  ops
    .filter((o) => o.status === 'OK' && types.includes(o.type))
    .reduce((total, o) => total + (o.amount?.value ?? 0), 0);

/** What holds of a payment and its history at any time. */
function checkInvariants(p: Payment, history: PaymentOperation[]) {
  for (const k of ['authorizedValue', 'capturedValue', 'refundedValue', 'reversedValue'] as const)
    expect(p[k], k).toBeGreaterThanOrEqual(0);
  expect(p.capturedValue).toBeLessThanOrEqual(p.authorizedValue - p.reversedValue);
  expect(p.refundedValue).toBeLessThanOrEqual(p.capturedValue);
  if (AUTHORIZED_FAMILY.has(p.state)) expect(p.state).toBe(settledState(p));
  else expect([p.authorizedValue, p.capturedValue, p.refundedValue, p.reversedValue]).toEqual([0, 0, 0, 0]);
  // every amount is accounted for by the successful operations recorded
  expect(p.authorizedValue).toBe(sum(history, 'AUTHORIZATION', 'CONFIRMATION', 'INCREMENTAL_AUTHORIZATION'));
  expect(p.capturedValue).toBe(sum(history, 'CAPTURE'));
  expect(p.refundedValue).toBe(sum(history, 'REFUND'));
  expect(p.reversedValue).toBe(sum(history, 'REVERSAL'));
  // one xId per operation, one payId for all; every code from the contract's table
  // (each an assertion over the whole history, not one per operation: the history is checked after
  // every step, and an assertion costs more than the domain's work it checks)
  expect(new Set(history.map((o) => o.xId)).size).toBe(history.length);
  expect(history.filter((o) => o.payId !== p.payId)).toEqual([]);
  expect(history.map((o) => o.responseCode).filter((code) => !KNOWN_CODES.has(code))).toEqual([]);
  expect(history.filter((o) => (o.status === 'OK') !== (o.responseCode === SUCCESS_CODE))).toEqual([]);
  // a DELAYED capture time only on a DELAYED payment that was authorized
  if (p.captureAt !== undefined) expect(p.captureMode).toBe('DELAYED');
  const body = paymentDetails(p, history);
  expect([
    body.authorizedAmount!.value,
    body.capturedAmount!.value,
    body.refundedAmount!.value,
    body.reversedAmount!.value,
  ]).toEqual([p.authorizedValue, p.capturedValue, p.refundedValue, p.reversedValue]);
  expect(body.operations).toHaveLength(history.length);
  // the result at the top is the payment's latest outcome: FAILED exactly when the payment is
  if (history.length > 0) expect(body.status === 'FAILED', `${body.status} ${p.state}`).toBe(p.state === 'FAILED');
}

describe('the payment state machine over any sequence of operations', () => {
  it('keeps captured ≤ authorized − reversed, refunded ≤ captured, the state the amounts imply, and succeeds exactly when the preconditions hold', () => {
    fc.assert(
      fc.property(creation, fc.array(command, { minLength: 4, maxLength: 16 }), (start, commands) => {
        const ctx = testDomain();
        const created = createPayment(
          newPayment({
            integrationType: start.integrationType,
            paymentMethodType: start.paymentMethodType,
            captureMethod: start.captureMethod,
            amount: { value: start.value, currency: 'EUR' },
            simulationMode: start.simulationMode,
          }),
          ctx,
        );
        let payment = created.payment;
        const history = [...created.operations];
        expect(payment.version).toBe(1);
        checkInvariants(payment, history);

        for (const c of commands) {
          if (c.kind === 'wait') {
            ctx.advance(c.ms);
            continue;
          }
          const before = payment;
          const rule = expected(before, c);
          const decision = run(before, c, ctx);
          expect(decision.outcome, `${c.kind} in ${before.state}`).toBe(rule.ok ? 'ok' : 'failed');
          const after = decision.payment;
          // identity stays, every command is a new version written now
          expect([after.payId, after.transId, after.createdAt, after.kind, after.currency]).toEqual([
            before.payId,
            before.transId,
            before.createdAt,
            before.kind,
            before.currency,
          ]);
          expect(after.version).toBe(before.version + 1);
          expect(after.updatedAt).toBe(ctx.now.toISOString());
          expect(decision.operations.length).toBeGreaterThanOrEqual(1);
          expect(decision.operations).toContain(decision.reported);

          if (decision.outcome === 'failed') {
            expect(decision.operations).toEqual([decision.reported]);
            expect(decision.reported.status).toBe('FAILED');
            // refused or declined: the money never moves; only a declined authorization fails the payment
            for (const k of ['authorizedValue', 'capturedValue', 'refundedValue', 'reversedValue'] as const)
              expect(after[k]).toBe(before[k]);
            const authorizationDeclined =
              (c.kind === 'confirm' && before.state === 'PENDING_CONFIRMATION') ||
              ((c.kind === 'pay' || c.kind === 'decline') &&
                before.state === 'PENDING' &&
                before.integrationType === 'HOSTED');
            expect(after.state).toBe(authorizationDeclined ? 'FAILED' : before.state);
          } else {
            for (const o of decision.operations) expect(o).toMatchObject({ status: 'OK', responseCode: SUCCESS_CODE });
            for (const [k, d] of Object.entries(rule.delta ?? {}) as Array<
              [keyof NonNullable<typeof rule.delta>, number]
            >)
              expect(after[k], k).toBe(before[k] + d);
            if (c.kind === 'confirm' || c.kind === 'pay') {
              expect(after.state).toBe(after.captureMode === 'AUTOMATIC' ? 'CAPTURED' : 'AUTHORIZED');
              expect(after.authorizedValue).toBe(after.amount.value);
            }
          }
          history.push(...decision.operations);
          payment = after;
          checkInvariants(payment, history);
        }
      }),
      { numRuns: 250 },
    );
  });

  it('a FAILED payment stays FAILED and refuses every operation that moves money', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIMULATIONS.filter((s) => !succeeds(s))),
        fc.array(command, { minLength: 1, maxLength: 8 }),
        (mode, commands) => {
          const ctx = testDomain();
          let payment = createPayment(newPayment({ simulationMode: mode }), ctx).payment;
          expect(payment.state).toBe('FAILED');
          for (const c of commands) {
            if (c.kind === 'wait' || c.kind === 'update') continue;
            const decision = run(payment, c, ctx);
            expect(decision.outcome).toBe('failed');
            payment = decision.payment;
            expect(payment.state).toBe('FAILED');
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
