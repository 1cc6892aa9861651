// The payment state machine (sandbox/domain/payments.ts) without HTTP: each operation in each state
// where the interface document allows it and where it is refused (with the response code the
// contract names for the refusal), the amount rules, the capture methods, the simulation codes, the
// state, version and operations each decision leaves, and the bodies made of them.
import { describe, expect, it } from 'vitest';
import type { ResponseCodeName } from '../../../sandbox/domain/context.js';
import {
  CARD_METHOD,
  capturable,
  capturePayment,
  completeOnHostedPage,
  confirmPayment,
  createPayment,
  createUnreferencedRefund,
  type Decision,
  descriptiveFields,
  duplicateTransaction,
  expirePayment,
  expiryDueAt,
  incrementAuthorization,
  isKnownSimulation,
  MULTI_STEP_METHODS,
  operationResult,
  paymentDetails,
  refundable,
  refundPayment,
  resultKeyOf,
  reversePayment,
  settledState,
  updatePayment,
} from '../../../sandbox/domain/payments.js';
import type { Payment, PaymentOperation, PaymentState } from '../../../sandbox/domain/types.js';
import {
  contractCodeTables,
  HOUR,
  newPayment,
  SCOPE,
  T0,
  type TestDomain,
  testDomain,
  typesOf,
} from '../../support/domain.js';

const EUR = (value: number) => ({ value, currency: 'EUR' });

/** The decision succeeded; its payment. */
function okPayment(decision: Decision): Payment {
  expect(decision.outcome, decision.reported.responseCode).toBe('ok');
  return decision.payment;
}

/** Reaches each state through the domain's own operations, from a DIRECT card payment of 100.00 EUR (MANUAL). */
function reach(ctx: TestDomain, state: PaymentState, overrides: Parameters<typeof newPayment>[0] = {}): Payment {
  const authorized = () => okPayment(createPayment(newPayment(overrides), ctx));
  const value = (p: Payment) => p.amount.value;
  switch (state) {
    case 'PENDING':
      return okPayment(createPayment(newPayment({ integrationType: 'HOSTED', ...overrides }), ctx));
    case 'PENDING_CONFIRMATION':
      return okPayment(createPayment(newPayment({ paymentMethodType: 'KLARNA', ...overrides }), ctx));
    case 'AUTHORIZED':
      return authorized();
    case 'PARTIALLY_CAPTURED': {
      const p = authorized();
      return okPayment(capturePayment(p, { transId: 'C', amount: EUR(value(p) * 0.4) }, ctx));
    }
    case 'CAPTURED': {
      const p = authorized();
      return okPayment(capturePayment(p, { transId: 'C', amount: EUR(value(p)) }, ctx));
    }
    case 'PARTIALLY_REFUNDED': {
      const p = reach(ctx, 'CAPTURED', overrides);
      return okPayment(refundPayment(p, { transId: 'R', amount: EUR(value(p) * 0.3) }, ctx));
    }
    case 'REFUNDED': {
      const p = reach(ctx, 'CAPTURED', overrides);
      return okPayment(refundPayment(p, { transId: 'R', amount: EUR(value(p)) }, ctx));
    }
    case 'REVERSED':
      return okPayment(reversePayment(authorized(), { transId: 'V' }, ctx));
    case 'FAILED': {
      const failed = createPayment(newPayment({ simulationMode: 'DECLINED', ...overrides }), ctx);
      expect(failed.outcome).toBe('failed');
      return failed.payment;
    }
  }
}

const ALL_STATES: PaymentState[] = [
  'PENDING',
  'PENDING_CONFIRMATION',
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REVERSED',
  'FAILED',
];
const MONEY = ['authorizedValue', 'capturedValue', 'refundedValue', 'reversedValue', 'state'] as const;
const money = (p: Payment) => Object.fromEntries(MONEY.map((k) => [k, p[k]]));

/** A refusal: failed, the payment unchanged but for its version and update time, one FAILED operation with the contract's code. */
function expectRefused(ctx: TestDomain, before: Payment, decision: Decision, name: string) {
  expect(decision.outcome).toBe('failed');
  expect(ctx.nameOf(decision.reported)).toBe(name);
  expect(decision.reported).toMatchObject({
    status: 'FAILED',
    payId: before.payId,
    scope: before.scope,
    responseDescription: ctx.codes[name as keyof typeof ctx.codes].responseDescription,
  });
  expect(decision.operations).toEqual([decision.reported]);
  expect(money(decision.payment)).toEqual(money(before));
  expect(decision.payment.version).toBe(before.version + 1);
  expect(decision.payment.updatedAt).toBe(ctx.now.toISOString());
}

/**
 * An operation applied: ok, the payment one version on with the members of `expected.payment`, and
 * the operation it reports OK with the members of `expected.reported`. The payment.
 */
function expectApplied(
  before: Payment,
  decision: Decision,
  expected: { payment: Record<string, unknown>; reported: Record<string, unknown> },
): Payment {
  const after = okPayment(decision);
  expect(after).toMatchObject({ ...expected.payment, version: before.version + 1 });
  expect(decision.reported).toMatchObject({ ...expected.reported, status: 'OK' });
  return after;
}

/** `[state, code]` for each state of each group: the code an operation is refused with in those states. */
const refusedIn = (groups: Partial<Record<ResponseCodeName, PaymentState[]>>) =>
  Object.entries(groups).flatMap(([code, states]) => states.map((state) => [state, code] as const));

type Money = { value: number; currency: string };

/**
 * Registers one test per amount `operate` must refuse on a payment of 100.00 EUR in `state`, each
 * held by expectRefused to the contract's code: zero and a negative amount (AMOUNT_NOT_POSITIVE),
 * another currency (CURRENCY_MISMATCH) and, where the operation has a ceiling, one cent over it,
 * named `over` (AMOUNT_EXCEEDS_AVAILABLE).
 */
function itRefusesWrongAmounts(
  state: PaymentState,
  operate: (payment: Payment, amount: Money, ctx: TestDomain) => Decision,
  over?: string,
) {
  const cases: [string, string, Money][] = [
    ['zero', 'AMOUNT_NOT_POSITIVE', EUR(0)],
    ['a negative amount', 'AMOUNT_NOT_POSITIVE', EUR(-1)],
    ['another currency', 'CURRENCY_MISMATCH', { value: 100, currency: 'CHF' }],
  ];
  if (over) cases.unshift([over, 'AMOUNT_EXCEEDS_AVAILABLE', EUR(10_001)]);
  it.each(cases)('refuses %s with %s', (_, name, amount) => {
    const ctx = testDomain();
    const payment = reach(ctx, state);
    expectRefused(ctx, payment, operate(payment, amount, ctx), name);
  });
}

const declines = () =>
  contractCodeTables().simulationCodes.filter(
    (s) => s.responseCode !== contractCodeTables().responseCodes.SUCCESS!.responseCode,
  );

describe('createPayment', () => {
  it('a new payment: version 1, its own payId, the request as sent, created and updated now', () => {
    const ctx = testDomain();
    const d = createPayment(
      newPayment({
        transId: 'SHOP-42',
        refNr: 'INV-1',
        metadata: { a: '1' },
        details: { channel: 'ECOM', order: { merchantReference: 'O-1' } },
      }),
      ctx,
    );
    expect(d.payment).toMatchObject({
      payId: 'pay_0001',
      kind: 'PAYMENT',
      scope: SCOPE,
      transId: 'SHOP-42',
      refNr: 'INV-1',
      currency: 'EUR',
      amount: EUR(10_000),
      metadata: { a: '1' },
      details: { channel: 'ECOM', order: { merchantReference: 'O-1' } },
      version: 1,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(d.reported).toMatchObject({
      type: 'AUTHORIZATION',
      transId: 'SHOP-42',
      refNr: 'INV-1',
      metadata: { a: '1' },
      status: 'OK',
      createdAt: T0,
    });
    expect(ctx.nameOf(d.reported)).toBe('SUCCESS');
  });

  it.each(['CARD', 'APPLEPAY', 'GOOGLEPAY', 'DIRECTDEBIT', undefined])(
    'DIRECT %s (single step) authorizes at creation',
    (method) => {
      const ctx = testDomain();
      const d = createPayment(newPayment({ paymentMethodType: method }), ctx);
      expect(d.outcome).toBe('ok');
      expect(d.payment).toMatchObject({ state: 'AUTHORIZED', authorizedValue: 10_000, capturedValue: 0 });
      expect(typesOf(d.operations)).toEqual(['AUTHORIZATION']);
      expect(d.operations[0]!.amount).toEqual(EUR(10_000));
    },
  );

  it.each([...MULTI_STEP_METHODS])(
    'DIRECT %s (multi-step) waits in PENDING_CONFIRMATION, whatever its simulationMode',
    (method) => {
      for (const simulationMode of [undefined, 'DECLINED']) {
        const ctx = testDomain();
        const d = createPayment(
          newPayment({ paymentMethodType: method, captureMethod: { type: 'AUTOMATIC' }, simulationMode }),
          ctx,
        );
        expect(d.outcome).toBe('ok');
        expect(d.payment).toMatchObject({
          state: 'PENDING_CONFIRMATION',
          authorizedValue: 0,
          capturedValue: 0,
          version: 1,
        });
        expect(typesOf(d.operations)).toEqual(['CREATION']);
        expect(ctx.nameOf(d.reported)).toBe('SUCCESS');
      }
    },
  );

  it.each(['CARD', 'PAYPAL', undefined])(
    'HOSTED (%s) waits in PENDING for the customer, whatever its simulationMode',
    (method) => {
      const ctx = testDomain();
      const d = createPayment(
        newPayment({
          integrationType: 'HOSTED',
          paymentMethodType: method,
          captureMethod: { type: 'AUTOMATIC' },
          simulationMode: 'DECLINED',
        }),
        ctx,
      );
      expect(d.outcome).toBe('ok');
      expect(d.payment).toMatchObject({ state: 'PENDING', authorizedValue: 0, simulationMode: 'DECLINED' });
      expect(typesOf(d.operations)).toEqual(['CREATION']);
    },
  );

  it('the capture method decides what follows the authorization: AUTOMATIC (the default) captures at once, MANUAL waits, DELAYED records its capture time', () => {
    const ctx = testDomain();
    for (const captureMethod of [undefined, { type: 'AUTOMATIC' as const }]) {
      const d = createPayment(
        newPayment({
          transId: `A-${captureMethod?.type}`,
          ...(captureMethod ? { captureMethod } : { captureMethod: undefined }),
        }),
        ctx,
      );
      expect(d.payment).toMatchObject({
        captureMode: 'AUTOMATIC',
        state: 'CAPTURED',
        authorizedValue: 10_000,
        capturedValue: 10_000,
        version: 1,
      });
      expect(typesOf(d.operations)).toEqual(['AUTHORIZATION', 'CAPTURE']);
      expect(d.operations[1]).toMatchObject({ transId: d.payment.transId, amount: EUR(10_000), status: 'OK' });
      expect(d.reported).toBe(d.operations[0]);
      expect(new Set(d.operations.map((o) => o.xId)).size).toBe(2);
    }
    const manual = createPayment(newPayment({ captureMethod: { type: 'MANUAL' } }), ctx).payment;
    expect(manual).toMatchObject({ captureMode: 'MANUAL', state: 'AUTHORIZED', capturedValue: 0 });
    expect(manual.captureAt).toBeUndefined();
    const delayed = createPayment(
      newPayment({ captureMethod: { type: 'DELAYED', delayed: { delayedHours: 48 } } }),
      ctx,
    ).payment;
    expect(delayed).toMatchObject({
      captureMode: 'DELAYED',
      delayedHours: 48,
      state: 'AUTHORIZED',
      capturedValue: 0,
      captureAt: new Date(Date.parse(T0) + 48 * HOUR).toISOString(),
    });
  });

  it('delayedHours counts for DELAYED only', () => {
    const p = createPayment(
      newPayment({ captureMethod: { type: 'MANUAL', delayed: { delayedHours: 5 } } }),
      testDomain(),
    ).payment;
    expect(p.delayedHours).toBeUndefined();
    expect(p.captureAt).toBeUndefined();
  });

  it.each(contractCodeTables().simulationCodes)(
    'simulationMode $simulationMode forces its response code at the authorization',
    (sim) => {
      const ctx = testDomain();
      const d = createPayment(
        newPayment({ simulationMode: sim.simulationMode, captureMethod: { type: 'AUTOMATIC' } }),
        ctx,
      );
      expect(d.reported.responseCode).toBe(sim.responseCode);
      if (sim.responseCode === ctx.codes.SUCCESS.responseCode) {
        expect(d.outcome).toBe('ok');
        expect(d.payment.state).toBe('CAPTURED');
        return;
      }
      expect(d.outcome).toBe('failed');
      expect(d.payment).toMatchObject({ state: 'FAILED', authorizedValue: 0, capturedValue: 0, version: 1 });
      expect(d.operations).toEqual([d.reported]);
      expect(d.reported).toMatchObject({
        type: 'AUTHORIZATION',
        status: 'FAILED',
        responseDescription: Object.values(contractCodeTables().responseCodes).find(
          (c) => c.responseCode === sim.responseCode,
        )!.responseDescription,
      });
      // the provider details of a card decline, as the contract lists them
      expect(d.reported.paymentMethods).toEqual(
        sim.providerDetails?.card ? { card: sim.providerDetails.card } : undefined,
      );
    },
  );

  it('a decline carries provider details under the result key of the method, none for a method without one', () => {
    const ctx = testDomain();
    const declined = contractCodeTables().simulationCodes.find((s) => s.simulationMode === 'DECLINED')!;
    expect(
      createPayment(newPayment({ paymentMethodType: 'GOOGLEPAY', simulationMode: 'DECLINED' }), ctx).reported
        .paymentMethods,
    ).toEqual({ card: declined.providerDetails!.card });
    expect(
      createPayment(newPayment({ paymentMethodType: 'DIRECTDEBIT', simulationMode: 'DECLINED' }), ctx).reported
        .paymentMethods,
    ).toBeUndefined();
  });

  it('a simulationMode the contract does not list is refused before anything changes (isKnownSimulation), and createPayment throws on it', () => {
    const ctx = testDomain();
    expect(isKnownSimulation(ctx, undefined)).toBe(true);
    for (const s of contractCodeTables().simulationCodes) expect(isKnownSimulation(ctx, s.simulationMode)).toBe(true);
    expect(isKnownSimulation(ctx, 'NOT_A_CODE')).toBe(false);
    expect(isKnownSimulation(ctx, 'declined')).toBe(false);
    expect(() => createPayment(newPayment({ simulationMode: 'NOT_A_CODE' }), ctx)).toThrow(
      /unknown simulationMode NOT_A_CODE/,
    );
  });
});

describe('completeOnHostedPage', () => {
  it('Pay authorizes with the chosen method, under the payment transId, and MANUAL waits', () => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING', { refNr: 'R-9' });
    ctx.advance(5 * 60_000);
    const d = completeOnHostedPage(pending, { decision: 'pay', paymentMethodType: 'PAYPAL' }, ctx);
    expectApplied(pending, d, {
      payment: {
        state: 'AUTHORIZED',
        paymentMethodType: 'PAYPAL',
        authorizedValue: 10_000,
        updatedAt: ctx.now.toISOString(),
      },
      reported: { type: 'AUTHORIZATION', transId: pending.transId, refNr: 'R-9', amount: EUR(10_000) },
    });
    expect(d.operations).toHaveLength(1);
  });

  it('Pay with AUTOMATIC capture captures at once; DELAYED counts its hours from the payment on the page', () => {
    const ctx = testDomain();
    const auto = completeOnHostedPage(
      reach(ctx, 'PENDING', { captureMethod: { type: 'AUTOMATIC' } }),
      { decision: 'pay', paymentMethodType: 'CARD' },
      ctx,
    );
    expect(auto.payment).toMatchObject({ state: 'CAPTURED', capturedValue: 10_000 });
    expect(typesOf(auto.operations)).toEqual(['AUTHORIZATION', 'CAPTURE']);

    const delayed = reach(ctx, 'PENDING', { captureMethod: { type: 'DELAYED', delayed: { delayedHours: 3 } } });
    expect(delayed.captureAt).toBeUndefined();
    ctx.advance(2 * HOUR);
    const paid = completeOnHostedPage(delayed, { decision: 'pay', paymentMethodType: 'CARD' }, ctx).payment;
    expect(paid.captureAt).toBe(new Date(ctx.now.getTime() + 3 * HOUR).toISOString());
  });

  it("the creation's simulationMode still decides: a declining code fails the payment with its code", () => {
    const ctx = testDomain();
    const sim = contractCodeTables().simulationCodes.find((s) => s.simulationMode === 'INSUFFICIENT_FUNDS')!;
    const d = completeOnHostedPage(
      reach(ctx, 'PENDING', { simulationMode: 'INSUFFICIENT_FUNDS' }),
      { decision: 'pay', paymentMethodType: 'PAYPAL' },
      ctx,
    );
    expect(d.outcome).toBe('failed');
    expect(d.payment).toMatchObject({ state: 'FAILED', authorizedValue: 0, paymentMethodType: 'PAYPAL' });
    expect(d.reported).toMatchObject({
      responseCode: sim.responseCode,
      status: 'FAILED',
      paymentMethods: { payPal: sim.providerDetails!.payPal },
    });
  });

  it('Decline fails the payment with DECLINED, nothing authorized', () => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING');
    const d = completeOnHostedPage(pending, { decision: 'decline' }, ctx);
    expect(d.outcome).toBe('failed');
    expect(d.payment).toMatchObject({ state: 'FAILED', authorizedValue: 0, version: pending.version + 1 });
    expect(d.reported).toMatchObject({ type: 'AUTHORIZATION', status: 'FAILED', transId: pending.transId });
    expect(ctx.nameOf(d.reported)).toBe('DECLINED');
  });

  it.each(ALL_STATES.filter((s) => s !== 'PENDING'))('is refused with WRONG_STATE in %s (decided already)', (state) => {
    const ctx = testDomain();
    const payment = reach(ctx, state);
    for (const choice of [{ decision: 'pay' as const, paymentMethodType: 'CARD' }, { decision: 'decline' as const }]) {
      expectRefused(ctx, payment, completeOnHostedPage(payment, choice, ctx), 'WRONG_STATE');
    }
  });

  it('is refused with WRONG_STATE for a PENDING payment that is not HOSTED', () => {
    const ctx = testDomain();
    const direct = { ...reach(ctx, 'AUTHORIZED'), state: 'PENDING' as const };
    expectRefused(
      ctx,
      direct,
      completeOnHostedPage(direct, { decision: 'pay', paymentMethodType: 'CARD' }, ctx),
      'WRONG_STATE',
    );
  });
});

describe('confirmPayment', () => {
  it('authorizes a payment in PENDING_CONFIRMATION with a CONFIRMATION of the request', () => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING_CONFIRMATION');
    ctx.advance(60_000);
    const d = confirmPayment(pending, { transId: 'CONF-1', refNr: 'R-2', metadata: { step: '2' } }, ctx);
    expectApplied(pending, d, {
      payment: { state: 'AUTHORIZED', authorizedValue: 10_000, updatedAt: ctx.now.toISOString() },
      reported: {
        type: 'CONFIRMATION',
        transId: 'CONF-1',
        refNr: 'R-2',
        metadata: { step: '2' },
        amount: EUR(10_000),
        createdAt: ctx.now.toISOString(),
      },
    });
  });

  it('AUTOMATIC captures with the confirmation; DELAYED counts from the confirmation', () => {
    const ctx = testDomain();
    const auto = confirmPayment(
      reach(ctx, 'PENDING_CONFIRMATION', { captureMethod: { type: 'AUTOMATIC' } }),
      { transId: 'CONF' },
      ctx,
    );
    expect(auto.payment).toMatchObject({ state: 'CAPTURED', capturedValue: 10_000 });
    expect(typesOf(auto.operations)).toEqual(['CONFIRMATION', 'CAPTURE']);
    expect(auto.operations[1]!.transId).toBe('CONF');
    const pending = reach(ctx, 'PENDING_CONFIRMATION', {
      captureMethod: { type: 'DELAYED', delayed: { delayedHours: 1 } },
    });
    ctx.advance(10 * HOUR);
    expect(confirmPayment(pending, { transId: 'CONF' }, ctx).payment.captureAt).toBe(
      new Date(ctx.now.getTime() + HOUR).toISOString(),
    );
  });

  it.each(declines())("the creation's simulationMode $simulationMode declines at the confirmation", (sim) => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING_CONFIRMATION', {
      paymentMethodType: 'PAYPAL',
      simulationMode: sim.simulationMode,
    });
    const d = confirmPayment(pending, { transId: 'CONF' }, ctx);
    expect(d.outcome).toBe('failed');
    expect(d.payment).toMatchObject({ state: 'FAILED', authorizedValue: 0 });
    expect(d.reported).toMatchObject({ type: 'CONFIRMATION', status: 'FAILED', responseCode: sim.responseCode });
    expect(d.reported.paymentMethods).toEqual(
      sim.providerDetails?.payPal ? { payPal: sim.providerDetails.payPal } : undefined,
    );
  });

  it.each(ALL_STATES.filter((s) => s !== 'PENDING_CONFIRMATION'))(
    'is refused with NOT_AWAITING_CONFIRMATION in %s',
    (state) => {
      const ctx = testDomain();
      const payment = reach(ctx, state);
      const d = confirmPayment(payment, { transId: 'CONF' }, ctx);
      expectRefused(ctx, payment, d, 'NOT_AWAITING_CONFIRMATION');
      expect(d.reported).toMatchObject({ type: 'CONFIRMATION', transId: 'CONF' });
    },
  );

  it('a confirmed payment cannot be confirmed again', () => {
    const ctx = testDomain();
    const confirmed = okPayment(confirmPayment(reach(ctx, 'PENDING_CONFIRMATION'), { transId: 'C1' }, ctx));
    expectRefused(ctx, confirmed, confirmPayment(confirmed, { transId: 'C2' }, ctx), 'NOT_AWAITING_CONFIRMATION');
  });
});

describe('capturePayment', () => {
  it('captures in parts up to the authorized amount: PARTIALLY_CAPTURED, then CAPTURED', () => {
    const ctx = testDomain();
    const p0 = reach(ctx, 'AUTHORIZED');
    const d1 = capturePayment(
      p0,
      { transId: 'C1', refNr: 'R', amount: { ...EUR(4000), taxTotal: 100 }, metadata: { n: '1' } },
      ctx,
    );
    const p1 = expectApplied(p0, d1, {
      payment: { state: 'PARTIALLY_CAPTURED', capturedValue: 4000, authorizedValue: 10_000 },
      reported: { type: 'CAPTURE', transId: 'C1', refNr: 'R', metadata: { n: '1' }, amount: EUR(4000) },
    });
    expect(capturable(p1)).toBe(6000);
    expect(d1.reported.amount).toEqual(EUR(4000)); // value and currency only
    const p2 = okPayment(capturePayment(p1, { transId: 'C2', amount: EUR(6000) }, ctx));
    expect(p2).toMatchObject({ state: 'CAPTURED', capturedValue: 10_000, version: p0.version + 2 });
    expect(capturable(p2)).toBe(0);
  });

  it('captures what is left of a partially refunded payment', () => {
    const ctx = testDomain();
    const p = okPayment(refundPayment(reach(ctx, 'PARTIALLY_CAPTURED'), { transId: 'R', amount: EUR(1000) }, ctx));
    expect(p).toMatchObject({ state: 'PARTIALLY_REFUNDED', capturedValue: 4000, refundedValue: 1000 });
    const after = okPayment(capturePayment(p, { transId: 'C', amount: EUR(6000) }, ctx));
    expect(after).toMatchObject({ state: 'PARTIALLY_REFUNDED', capturedValue: 10_000, refundedValue: 1000 });
  });

  it('what is left to capture excludes reversals and includes incremental authorizations', () => {
    const ctx = testDomain();
    const reversed = okPayment(reversePayment(reach(ctx, 'AUTHORIZED'), { transId: 'V', amount: EUR(4000) }, ctx));
    expectRefused(
      ctx,
      reversed,
      capturePayment(reversed, { transId: 'C', amount: EUR(6001) }, ctx),
      'AMOUNT_EXCEEDS_AVAILABLE',
    );
    expect(okPayment(capturePayment(reversed, { transId: 'C', amount: EUR(6000) }, ctx)).state).toBe('CAPTURED');
    const incremented = okPayment(
      incrementAuthorization(reach(ctx, 'AUTHORIZED'), { transId: 'I', amount: EUR(2500) }, ctx),
    );
    expect(okPayment(capturePayment(incremented, { transId: 'C', amount: EUR(12_500) }, ctx))).toMatchObject({
      state: 'CAPTURED',
      capturedValue: 12_500,
    });
  });

  it.each(
    refusedIn({
      NOTHING_TO_CAPTURE: ['PENDING', 'PENDING_CONFIRMATION', 'REVERSED', 'FAILED'],
      ALREADY_CAPTURED: ['CAPTURED', 'REFUNDED'],
    }),
  )('is refused in %s with %s', (state, name) => {
    const ctx = testDomain();
    const payment = reach(ctx, state);
    const d = capturePayment(payment, { transId: 'C', amount: EUR(1) }, ctx);
    expectRefused(ctx, payment, d, name);
    expect(d.reported).toMatchObject({ type: 'CAPTURE', transId: 'C', amount: EUR(1) });
  });

  itRefusesWrongAmounts(
    'AUTHORIZED',
    (payment, amount, ctx) => capturePayment(payment, { transId: 'C', amount }, ctx),
    'more than is left',
  );

  it.each(declines())(
    'simulationMode $simulationMode declines the capture: nothing captured, the decline recorded',
    (sim) => {
      const ctx = testDomain();
      const payment = reach(ctx, 'AUTHORIZED');
      const d = capturePayment(payment, { transId: 'C', amount: EUR(100), simulationMode: sim.simulationMode }, ctx);
      expect(d.outcome).toBe('failed');
      expect(money(d.payment)).toEqual(money(payment));
      expect(d.payment.version).toBe(payment.version + 1);
      expect(d.reported).toMatchObject({ type: 'CAPTURE', status: 'FAILED', responseCode: sim.responseCode });
      expect(d.reported.paymentMethods).toEqual(
        sim.providerDetails?.card ? { card: sim.providerDetails.card } : undefined,
      );
    },
  );

  it('simulationMode SUCCESS captures', () => {
    const ctx = testDomain();
    expect(
      okPayment(
        capturePayment(reach(ctx, 'AUTHORIZED'), { transId: 'C', amount: EUR(100), simulationMode: 'SUCCESS' }, ctx),
      ).capturedValue,
    ).toBe(100);
  });

  // Doubtful (see the report): the code depends on the state's name, not on what is left. A wholly
  // captured payment that was then refunded in part answers NOTHING_TO_CAPTURE where a CAPTURED one
  // answers ALREADY_CAPTURED; a refund without reference (REFUNDED) answers ALREADY_CAPTURED.
  // The rule asserted here is the one both codes share: refused, nothing captured.
  it('a wholly captured payment refunded in part, and a refund without reference, refuse any capture', () => {
    const ctx = testDomain();
    const partlyRefunded = reach(ctx, 'PARTIALLY_REFUNDED');
    expect(capturable(partlyRefunded)).toBe(0);
    const refund = createUnreferencedRefund(
      { scope: SCOPE, request: { transId: 'U', amount: EUR(500), paymentMethods: {} }, paymentMethodType: 'CARD' },
      ctx,
    ).payment;
    for (const payment of [partlyRefunded, refund]) {
      const d = capturePayment(payment, { transId: 'C', amount: EUR(1) }, ctx);
      expect(d.outcome).toBe('failed');
      expect(['ALREADY_CAPTURED', 'NOTHING_TO_CAPTURE']).toContain(ctx.nameOf(d.reported));
      expect(money(d.payment)).toEqual(money(payment));
    }
  });
});

describe('reversePayment', () => {
  it('without an amount cancels the whole uncaptured authorization: REVERSED', () => {
    const ctx = testDomain();
    const payment = reach(ctx, 'AUTHORIZED');
    const d = reversePayment(payment, { transId: 'V', metadata: { why: 'out of stock' } }, ctx);
    expectApplied(payment, d, {
      payment: { state: 'REVERSED', reversedValue: 10_000, capturedValue: 0 },
      reported: { type: 'REVERSAL', transId: 'V', amount: EUR(10_000), metadata: { why: 'out of stock' } },
    });
  });

  it('in part: the payment stays AUTHORIZED; a reversal without amount then cancels the rest', () => {
    const ctx = testDomain();
    const p1 = okPayment(reversePayment(reach(ctx, 'AUTHORIZED'), { transId: 'V1', amount: EUR(2000) }, ctx));
    expect(p1).toMatchObject({ state: 'AUTHORIZED', reversedValue: 2000 });
    expect(capturable(p1)).toBe(8000);
    const d = reversePayment(p1, { transId: 'V2' }, ctx);
    expect(okPayment(d)).toMatchObject({ state: 'REVERSED', reversedValue: 10_000 });
    expect(d.reported.amount).toEqual(EUR(8000));
  });

  it('of a DELAYED payment: the whole reversal drops its capture time, a partial one keeps it', () => {
    const ctx = testDomain();
    const delayed = reach(ctx, 'AUTHORIZED', { captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } } });
    expect(delayed.captureAt).toBeDefined();
    expect(okPayment(reversePayment(delayed, { transId: 'V', amount: EUR(1000) }, ctx)).captureAt).toBe(
      delayed.captureAt,
    );
    expect(okPayment(reversePayment(delayed, { transId: 'V' }, ctx)).captureAt).toBeUndefined();
  });

  it.each(
    refusedIn({
      ALREADY_CAPTURED: ['PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED'],
      WRONG_STATE: ['PENDING', 'PENDING_CONFIRMATION', 'REVERSED', 'FAILED'],
    }),
  )('is refused in %s with %s (only while nothing is captured)', (state, name) => {
    const ctx = testDomain();
    const payment = reach(ctx, state);
    for (const amount of [undefined, EUR(1)]) {
      const d = reversePayment(payment, { transId: 'V', ...(amount ? { amount } : {}) }, ctx);
      expectRefused(ctx, payment, d, name);
      expect(d.reported.type).toBe('REVERSAL');
    }
  });

  it('a refund without reference cannot be reversed', () => {
    const ctx = testDomain();
    const refund = createUnreferencedRefund(
      { scope: SCOPE, request: { transId: 'U', amount: EUR(500), paymentMethods: {} }, paymentMethodType: 'CARD' },
      ctx,
    ).payment;
    expectRefused(ctx, refund, reversePayment(refund, { transId: 'V' }, ctx), 'WRONG_STATE');
  });

  itRefusesWrongAmounts(
    'AUTHORIZED',
    (payment, amount, ctx) => reversePayment(payment, { transId: 'V', amount }, ctx),
    'more than is authorized',
  );
});

describe('refundPayment', () => {
  it('refunds in parts up to what was captured: PARTIALLY_REFUNDED, then REFUNDED', () => {
    const ctx = testDomain();
    const captured = reach(ctx, 'CAPTURED');
    const d1 = refundPayment(captured, { transId: 'R1', amount: EUR(3000), metadata: { reason: 'returned' } }, ctx);
    const p1 = expectApplied(captured, d1, {
      payment: { state: 'PARTIALLY_REFUNDED', refundedValue: 3000, capturedValue: 10_000 },
      reported: { type: 'REFUND', transId: 'R1', amount: EUR(3000), metadata: { reason: 'returned' } },
    });
    expect(refundable(p1)).toBe(7000);
    expectRefused(ctx, p1, refundPayment(p1, { transId: 'R2', amount: EUR(7001) }, ctx), 'AMOUNT_EXCEEDS_AVAILABLE');
    expect(okPayment(refundPayment(p1, { transId: 'R3', amount: EUR(7000) }, ctx))).toMatchObject({
      state: 'REFUNDED',
      refundedValue: 10_000,
    });
  });

  it('of a partially captured payment: up to what was captured; all of it leaves the open authorization PARTIALLY_REFUNDED', () => {
    const ctx = testDomain();
    const partial = reach(ctx, 'PARTIALLY_CAPTURED'); // 4000 of 10000
    expectRefused(
      ctx,
      partial,
      refundPayment(partial, { transId: 'R', amount: EUR(4001) }, ctx),
      'AMOUNT_EXCEEDS_AVAILABLE',
    );
    const all = okPayment(refundPayment(partial, { transId: 'R', amount: EUR(4000) }, ctx));
    expect(all).toMatchObject({ state: 'PARTIALLY_REFUNDED', refundedValue: 4000 });
    expect(capturable(all)).toBe(6000);
  });

  it.each(['PENDING', 'PENDING_CONFIRMATION', 'AUTHORIZED', 'REVERSED', 'FAILED', 'REFUNDED'] as const)(
    'is refused in %s with WRONG_STATE (nothing captured left to refund)',
    (state) => {
      const ctx = testDomain();
      const payment = reach(ctx, state);
      const d = refundPayment(payment, { transId: 'R', amount: EUR(1) }, ctx);
      expectRefused(ctx, payment, d, 'WRONG_STATE');
      expect(d.reported).toMatchObject({ type: 'REFUND', transId: 'R' });
    },
  );

  itRefusesWrongAmounts(
    'CAPTURED',
    (payment, amount, ctx) => refundPayment(payment, { transId: 'R', amount }, ctx),
    'more than was captured',
  );

  it.each(declines())('simulationMode $simulationMode declines the refund', (sim) => {
    const ctx = testDomain();
    const payment = reach(ctx, 'CAPTURED');
    const d = refundPayment(payment, { transId: 'R', amount: EUR(10), simulationMode: sim.simulationMode }, ctx);
    expect(d.outcome).toBe('failed');
    expect(money(d.payment)).toEqual(money(payment));
    expect(d.payment.version).toBe(payment.version + 1);
    expect(d.reported).toMatchObject({ type: 'REFUND', status: 'FAILED', responseCode: sim.responseCode });
  });
});

describe('incrementAuthorization', () => {
  it('adds to a card authorization; the total authorized reflects both', () => {
    const ctx = testDomain();
    const payment = reach(ctx, 'AUTHORIZED');
    const d = incrementAuthorization(payment, { transId: 'I', amount: EUR(2500), duration: 2 }, ctx);
    expectApplied(payment, d, {
      payment: { state: 'AUTHORIZED', authorizedValue: 12_500 },
      reported: { type: 'INCREMENTAL_AUTHORIZATION', transId: 'I', amount: EUR(2500) },
    });
  });

  it('adds to a partially captured card payment: it stays PARTIALLY_CAPTURED with more left to capture', () => {
    const ctx = testDomain();
    const p = okPayment(
      incrementAuthorization(reach(ctx, 'PARTIALLY_CAPTURED'), { transId: 'I', amount: EUR(1000) }, ctx),
    );
    expect(p).toMatchObject({ state: 'PARTIALLY_CAPTURED', authorizedValue: 11_000, capturedValue: 4000 });
    expect(capturable(p)).toBe(7000);
  });

  it('has no upper bound of its own', () => {
    const ctx = testDomain();
    expect(
      okPayment(incrementAuthorization(reach(ctx, 'AUTHORIZED'), { transId: 'I', amount: EUR(999_999_999_999) }, ctx))
        .authorizedValue,
    ).toBe(999_999_999_999 + 10_000);
  });

  // (Card wallets, APPLEPAY and GOOGLEPAY, are refused CARD_ONLY too: doubtful, see the report; not asserted.)
  it.each(['PAYPAL', 'KLARNA', 'DIRECTDEBIT'])('is refused with CARD_ONLY for an authorized %s payment', (method) => {
    const ctx = testDomain();
    let payment = reach(ctx, MULTI_STEP_METHODS.has(method) ? 'PENDING_CONFIRMATION' : 'AUTHORIZED', {
      paymentMethodType: method,
    });
    if (payment.state === 'PENDING_CONFIRMATION')
      payment = okPayment(confirmPayment(payment, { transId: 'CONF' }, ctx));
    expect(payment.state).toBe('AUTHORIZED');
    expectRefused(ctx, payment, incrementAuthorization(payment, { transId: 'I', amount: EUR(100) }, ctx), 'CARD_ONLY');
  });

  it('is refused with CARD_ONLY for a HOSTED payment whose method is not chosen yet', () => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING', { paymentMethodType: undefined });
    expectRefused(ctx, pending, incrementAuthorization(pending, { transId: 'I', amount: EUR(100) }, ctx), 'CARD_ONLY');
  });

  it.each(['PENDING', 'CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REVERSED', 'FAILED'] as const)(
    'is refused for a card payment in %s with WRONG_STATE',
    (state) => {
      const ctx = testDomain();
      const payment = reach(ctx, state, { paymentMethodType: CARD_METHOD });
      expect(payment.paymentMethodType).toBe('CARD');
      expectRefused(
        ctx,
        payment,
        incrementAuthorization(payment, { transId: 'I', amount: EUR(100) }, ctx),
        'WRONG_STATE',
      );
    },
  );

  // no ceiling: an increment adds to what is authorized
  itRefusesWrongAmounts('AUTHORIZED', (payment, amount, ctx) =>
    incrementAuthorization(payment, { transId: 'I', amount }, ctx),
  );
});

describe('updatePayment', () => {
  it.each(ALL_STATES)('in %s: changes the descriptive fields sent, keeps the others and the money', (state) => {
    const ctx = testDomain();
    const payment = reach(ctx, state, {
      details: { channel: 'ECOM', order: { merchantReference: 'O-1' } },
      metadata: { a: '1' },
    });
    ctx.advance(1000);
    const d = updatePayment(
      payment,
      { refNr: 'INV-9', metadata: { note: 'gift' }, order: { merchantReference: 'O-2' }, statementDescriptor: 'SHOP' },
      ctx,
    );
    expect(d.outcome).toBe('ok');
    expect(money(d.payment)).toEqual(money(payment));
    expect(d.payment).toMatchObject({
      payId: payment.payId,
      transId: payment.transId,
      amount: payment.amount,
      refNr: 'INV-9',
      metadata: { note: 'gift' },
      details: { channel: 'ECOM', order: { merchantReference: 'O-2' }, statementDescriptor: 'SHOP' },
      version: payment.version + 1,
      updatedAt: ctx.now.toISOString(),
      createdAt: payment.createdAt,
    });
    expect(d.reported).toMatchObject({
      type: 'UPDATE',
      transId: payment.transId,
      refNr: 'INV-9',
      metadata: { note: 'gift' },
      status: 'OK',
    });
    expect(d.operations).toEqual([d.reported]);
  });

  it('leaves refNr and metadata as they are when the request does not send them', () => {
    const ctx = testDomain();
    const payment = reach(ctx, 'AUTHORIZED', { refNr: 'R-1', metadata: { keep: 'me' } });
    expect(updatePayment(payment, { statementDescriptor: 'X' }, ctx).payment).toMatchObject({
      refNr: 'R-1',
      metadata: { keep: 'me' },
    });
  });

  it('a later expirationTime of a HOSTED payment is kept in its details', () => {
    const ctx = testDomain();
    const pending = reach(ctx, 'PENDING', { details: { expirationTime: '2026-11-24T10:00:00.000Z' } });
    expect(
      updatePayment(pending, { expirationTime: '2026-11-25T10:00:00.000Z' }, ctx).payment.details.expirationTime,
    ).toBe('2026-11-25T10:00:00.000Z');
  });
});

describe('createUnreferencedRefund', () => {
  it('is a payment of its own, REFUNDED at once, with nothing authorized or captured', () => {
    const ctx = testDomain();
    const d = createUnreferencedRefund(
      {
        scope: SCOPE,
        request: {
          transId: 'U-1',
          refNr: 'R',
          amount: { value: 700, currency: 'CHF' },
          metadata: { m: '1' },
          customerInfo: { merchantCustomerId: 'c1' },
          statementDescriptor: 'SHOP',
          paymentMethods: {},
        },
        paymentMethodType: 'CARD',
      },
      ctx,
    );
    expect(d.outcome).toBe('ok');
    expect(d.payment).toMatchObject({
      payId: 'pay_0001',
      kind: 'UNREFERENCED_REFUND',
      state: 'REFUNDED',
      transId: 'U-1',
      refNr: 'R',
      currency: 'CHF',
      integrationType: 'DIRECT',
      paymentMethodType: 'CARD',
      authorizedValue: 0,
      capturedValue: 0,
      reversedValue: 0,
      refundedValue: 700,
      metadata: { m: '1' },
      details: { customerInfo: { merchantCustomerId: 'c1' }, statementDescriptor: 'SHOP' },
      version: 1,
    });
    expect(settledState(d.payment)).toBe('REFUNDED');
    expect(d.operations).toEqual([d.reported]);
    expect(d.reported).toMatchObject({
      type: 'REFUND',
      transId: 'U-1',
      amount: { value: 700, currency: 'CHF' },
      status: 'OK',
    });
  });

  it.each([0, -1])('an amount of %i fails it with AMOUNT_NOT_POSITIVE', (value) => {
    const ctx = testDomain();
    const d = createUnreferencedRefund(
      { scope: SCOPE, request: { transId: 'U', amount: EUR(value), paymentMethods: {} }, paymentMethodType: undefined },
      ctx,
    );
    expect(d.outcome).toBe('failed');
    expect(d.payment).toMatchObject({ state: 'FAILED', refundedValue: 0 });
    expect(ctx.nameOf(d.reported)).toBe('AMOUNT_NOT_POSITIVE');
  });

  it.each(declines())('simulationMode $simulationMode fails it with its code', (sim) => {
    const ctx = testDomain();
    const d = createUnreferencedRefund(
      {
        scope: SCOPE,
        request: { transId: 'U', amount: EUR(100), simulationMode: sim.simulationMode, paymentMethods: {} },
        paymentMethodType: 'CARD',
      },
      ctx,
    );
    expect(d.outcome).toBe('failed');
    expect(d.payment).toMatchObject({ state: 'FAILED', refundedValue: 0 });
    expect(d.reported).toMatchObject({ status: 'FAILED', responseCode: sim.responseCode });
    expect(d.reported.paymentMethods).toEqual(
      sim.providerDetails?.card ? { card: sim.providerDetails.card } : undefined,
    );
  });

  it('can be neither refunded again nor incremented', () => {
    const ctx = testDomain();
    const refund = createUnreferencedRefund(
      { scope: SCOPE, request: { transId: 'U', amount: EUR(100), paymentMethods: {} }, paymentMethodType: 'CARD' },
      ctx,
    ).payment;
    expectRefused(ctx, refund, refundPayment(refund, { transId: 'R', amount: EUR(1) }, ctx), 'WRONG_STATE');
    expectRefused(ctx, refund, incrementAuthorization(refund, { transId: 'I', amount: EUR(1) }, ctx), 'WRONG_STATE');
  });
});

describe('duplicateTransaction', () => {
  it('is a FAILED operation result with DUPLICATE_TRANSACTION and no payId', () => {
    const ctx = testDomain();
    const r = duplicateTransaction(SCOPE, 'T-1', ctx);
    expect(r).toEqual({
      merchantId: SCOPE.merchantId,
      transId: 'T-1',
      status: 'FAILED',
      ...ctx.code('DUPLICATE_TRANSACTION'),
    });
    expect(ctx.nameOf(r.responseCode!)).toBe('DUPLICATE_TRANSACTION');
  });
});

describe('settledState', () => {
  const p = (authorizedValue: number, capturedValue = 0, refundedValue = 0, reversedValue = 0) => ({
    kind: 'PAYMENT' as const,
    authorizedValue,
    capturedValue,
    refundedValue,
    reversedValue,
  });
  it.each([
    ['authorized, nothing else', p(100), 'AUTHORIZED'],
    ['partly reversed', p(100, 0, 0, 40), 'AUTHORIZED'],
    ['wholly reversed', p(100, 0, 0, 100), 'REVERSED'],
    ['partly captured', p(100, 40), 'PARTIALLY_CAPTURED'],
    ['wholly captured', p(100, 100), 'CAPTURED'],
    ['captured what the reversal left', p(100, 60, 0, 40), 'CAPTURED'],
    ['captured, partly refunded', p(100, 100, 30), 'PARTIALLY_REFUNDED'],
    ['captured, wholly refunded', p(100, 100, 100), 'REFUNDED'],
    ['partly captured, that part refunded, the rest still open', p(100, 40, 40), 'PARTIALLY_REFUNDED'],
    ['partly captured, partly refunded', p(100, 40, 10), 'PARTIALLY_REFUNDED'],
  ] as const)('%s: %s', (_, amounts, state) => {
    expect(settledState(amounts)).toBe(state);
  });

  it('a refund without reference is REFUNDED whatever its amounts', () => {
    expect(
      settledState({
        kind: 'UNREFERENCED_REFUND',
        authorizedValue: 0,
        capturedValue: 0,
        refundedValue: 5,
        reversedValue: 0,
      }),
    ).toBe('REFUNDED');
  });
});

describe('bodies', () => {
  it('resultKeyOf: card wallets report under card, PayPal and Klarna under their own key, others none', () => {
    expect(['CARD', 'APPLEPAY', 'GOOGLEPAY'].map(resultKeyOf)).toEqual(['card', 'card', 'card']);
    expect(resultKeyOf('PAYPAL')).toBe('payPal');
    expect(resultKeyOf('KLARNA')).toBe('klarna');
    expect(resultKeyOf('DIRECTDEBIT')).toBeUndefined();
    expect(resultKeyOf(undefined)).toBeUndefined();
  });

  it('descriptiveFields keeps the descriptive fields sent, and only those', () => {
    const fields = descriptiveFields({
      order: { merchantReference: 'O' },
      channel: 'APP',
      expirationTime: undefined,
      amount: EUR(1),
      transId: 'T',
    } as never);
    expect(fields).toEqual({ order: { merchantReference: 'O' }, channel: 'APP' });
    expect('expirationTime' in fields).toBe(false);
  });

  it('operationResult reports the operation on its payment', () => {
    const ctx = testDomain();
    const d = capturePayment(
      reach(ctx, 'AUTHORIZED', { refNr: 'R' }),
      { transId: 'C', refNr: 'CR', amount: EUR(1), metadata: { k: 'v' }, simulationMode: 'DECLINED' },
      ctx,
    );
    expect(operationResult(d.payment, d.reported)).toEqual({
      payId: d.payment.payId,
      merchantId: SCOPE.merchantId,
      transId: 'C',
      xId: d.reported.xId,
      refNr: 'CR',
      status: 'FAILED',
      responseCode: d.reported.responseCode,
      responseDescription: d.reported.responseDescription,
      metadata: { k: 'v' },
      paymentMethods: d.reported.paymentMethods,
    });
  });

  it('paymentDetails: amounts in the payment currency, capture method and time, operations oldest first', () => {
    const ctx = testDomain();
    const created = createPayment(
      newPayment({
        captureMethod: { type: 'DELAYED', delayed: { delayedHours: 24 } },
        paymentPlanId: 'pp_1',
        details: { channel: 'MOTO', customerInfo: { firstName: 'Lena' } },
      }),
      ctx,
    );
    ctx.advance(1000);
    const captured = capturePayment(created.payment, { transId: 'C', amount: EUR(4000) }, ctx);
    const history: PaymentOperation[] = [...created.operations, ...captured.operations];
    const body = paymentDetails(captured.payment, history);
    expect(body).toMatchObject({
      payId: 'pay_0001',
      merchantId: SCOPE.merchantId,
      transId: 'T-1',
      xId: captured.reported.xId,
      status: 'OK',
      state: 'PARTIALLY_CAPTURED',
      amount: EUR(10_000),
      authorizedAmount: EUR(10_000),
      capturedAmount: EUR(4000),
      refundedAmount: EUR(0),
      reversedAmount: EUR(0),
      integrationType: 'DIRECT',
      paymentMethodType: 'CARD',
      captureMethod: { type: 'DELAYED', delayed: { delayedHours: 24 } },
      captureTime: new Date(Date.parse(T0) + 24 * HOUR).toISOString(),
      channel: 'MOTO',
      customerInfo: { firstName: 'Lena' },
      paymentPlanId: 'pp_1',
      creationDate: T0,
    });
    expect(body.operations!.map((o) => [o.type, o.status, o.creationDate])).toEqual([
      ['AUTHORIZATION', 'OK', T0],
      ['CAPTURE', 'OK', ctx.now.toISOString()],
    ]);
  });

  it('paymentDetails: a refused operation is in the history but the result fields stay those of the last success', () => {
    const ctx = testDomain();
    const created = createPayment(newPayment(), ctx);
    const refused = capturePayment(created.payment, { transId: 'C', amount: EUR(1_000_000) }, ctx);
    const body = paymentDetails(refused.payment, [...created.operations, ...refused.operations]);
    expect(body).toMatchObject({
      state: 'AUTHORIZED',
      status: 'OK',
      xId: created.reported.xId,
      responseCode: ctx.code('SUCCESS').responseCode,
    });
    expect(body.operations!.at(-1)).toMatchObject({
      type: 'CAPTURE',
      status: 'FAILED',
      responseCode: ctx.code('AMOUNT_EXCEEDS_AVAILABLE').responseCode,
    });
  });

  it('paymentDetails: a payment declined at creation reports the decline', () => {
    const ctx = testDomain();
    const d = createPayment(newPayment({ simulationMode: 'DECLINED' }), ctx);
    expect(paymentDetails(d.payment, d.operations)).toMatchObject({
      state: 'FAILED',
      status: 'FAILED',
      responseCode: ctx.code('DECLINED').responseCode,
      xId: d.reported.xId,
    });
  });

  it('paymentDetails: a HOSTED payment declined on the page reports status FAILED with the decline code', () => {
    const ctx = testDomain();
    const created = createPayment(newPayment({ integrationType: 'HOSTED' }), ctx);
    const declined = completeOnHostedPage(created.payment, { decision: 'decline' }, ctx);
    const body = paymentDetails(declined.payment, [...created.operations, ...declined.operations]);
    expect(body.state).toBe('FAILED');
    expect(body).toMatchObject({
      status: 'FAILED',
      responseCode: ctx.code('DECLINED').responseCode,
      responseDescription: ctx.code('DECLINED').responseDescription,
      xId: declined.reported.xId,
    });
  });

  it('paymentDetails refuses a payment without any operation: its result fields would be missing', () => {
    const ctx = testDomain();
    const { payment } = createPayment(newPayment(), ctx);
    expect(() => paymentDetails(payment, [])).toThrow(`payment ${payment.payId} has no operation`);
  });
});

/** The payment and its history after each decision in turn (the first creates it). */
function history(...steps: Array<(p: Payment) => Decision>): { payment: Payment; operations: PaymentOperation[] } {
  let payment: Payment | undefined;
  const operations: PaymentOperation[] = [];
  for (const step of steps) {
    const d = step(payment!);
    payment = d.payment;
    operations.push(...d.operations);
  }
  return { payment: payment!, operations };
}

/** The result fields at the top of the record, and its state. */
const top = (h: { payment: Payment; operations: PaymentOperation[] }) => {
  const { state, status, responseCode, responseDescription, xId } = paymentDetails(h.payment, h.operations);
  return { state, status, responseCode, responseDescription, xId };
};

describe("the record's result follows the payment, whatever changed it", () => {
  const SUCCESS = () => testDomain().code('SUCCESS');
  const hosted =
    (ctx: TestDomain, overrides: Parameters<typeof newPayment>[0] = {}) =>
    () =>
      createPayment(newPayment({ integrationType: 'HOSTED', paymentMethodType: undefined, ...overrides }), ctx);

  it('hosted page, Pay: the capture (AUTOMATIC) or the authorization (MANUAL) is the outcome, OK with SUCCESS', () => {
    const ctx = testDomain();
    const paid = history(hosted(ctx, { captureMethod: { type: 'AUTOMATIC' } }), (p) =>
      completeOnHostedPage(p, { decision: 'pay', paymentMethodType: 'CARD' }, ctx),
    );
    expect(typesOf(paid.operations)).toEqual(['CREATION', 'AUTHORIZATION', 'CAPTURE']);
    expect(top(paid)).toEqual({ state: 'CAPTURED', status: 'OK', ...SUCCESS(), xId: paid.operations[2]!.xId });
    const manual = history(hosted(ctx, { transId: 'T-2' }), (p) =>
      completeOnHostedPage(p, { decision: 'pay', paymentMethodType: 'PAYPAL' }, ctx),
    );
    expect(top(manual)).toEqual({ state: 'AUTHORIZED', status: 'OK', ...SUCCESS(), xId: manual.operations[1]!.xId });
  });

  it('hosted page, Pay declined by the creation simulationMode: FAILED with the simulated code, not the creation', () => {
    const ctx = testDomain();
    const declined = history(hosted(ctx, { simulationMode: 'INSUFFICIENT_FUNDS' }), (p) =>
      completeOnHostedPage(p, { decision: 'pay', paymentMethodType: 'CARD' }, ctx),
    );
    expect(top(declined)).toEqual({
      state: 'FAILED',
      status: 'FAILED',
      ...contractCodeTables().responseCodes.INSUFFICIENT_FUNDS,
      xId: declined.operations[1]!.xId,
    });
  });

  it('hosted page, Decline: FAILED with DECLINED; a refused request afterwards does not change that', () => {
    const ctx = testDomain();
    const declined = history(
      hosted(ctx),
      (p) => completeOnHostedPage(p, { decision: 'decline' }, ctx),
      (p) => capturePayment(p, { transId: 'C', amount: EUR(100) }, ctx),
    );
    expect(declined.operations.at(-1)).toMatchObject({ type: 'CAPTURE', status: 'FAILED' });
    expect(top(declined)).toEqual({
      state: 'FAILED',
      status: 'FAILED',
      ...ctx.code('DECLINED'),
      xId: declined.operations[1]!.xId,
    });
  });

  it('an UPDATE of the descriptive fields is no outcome: a declined payment stays FAILED, an authorized one keeps its result', () => {
    const ctx = testDomain();
    const declined = history(
      hosted(ctx),
      (p) => completeOnHostedPage(p, { decision: 'decline' }, ctx),
      (p) => updatePayment(p, { statementDescriptor: 'LATER' }, ctx),
    );
    expect(declined.operations.at(-1)).toMatchObject({ type: 'UPDATE', status: 'OK' });
    expect(top(declined)).toMatchObject({ status: 'FAILED', xId: declined.operations[1]!.xId });
    const authorized = history(
      () => createPayment(newPayment({ transId: 'T-2' }), ctx),
      (p) => updatePayment(p, { statementDescriptor: 'LATER' }, ctx),
    );
    expect(top(authorized)).toMatchObject({ status: 'OK', xId: authorized.operations[0]!.xId });
  });

  it('hosted page, Cancel decides nothing: the payment still waits, and its record reports its creation', () => {
    const ctx = testDomain();
    // Cancel records no operation (the page stays usable): the record is the creation's.
    const waiting = history(hosted(ctx));
    expect(top(waiting)).toEqual({ state: 'PENDING', status: 'OK', ...SUCCESS(), xId: waiting.operations[0]!.xId });
    // A refused request on it (a capture, a confirmation) leaves it so.
    const refused = history(
      hosted(ctx, { transId: 'T-2' }),
      (p) => capturePayment(p, { transId: 'C', amount: EUR(100) }, ctx),
      (p) => confirmPayment(p, { transId: 'K' }, ctx),
    );
    expect(top(refused)).toEqual({ state: 'PENDING', status: 'OK', ...SUCCESS(), xId: refused.operations[0]!.xId });
  });

  it('confirmation: the confirmation is the outcome, OK; declined by the simulationMode, FAILED with its code', () => {
    const ctx = testDomain();
    const multiStep = (overrides: Parameters<typeof newPayment>[0]) => () =>
      createPayment(newPayment({ paymentMethodType: 'KLARNA', ...overrides }), ctx);
    const confirmed = history(
      multiStep({}),
      (p) => confirmPayment(p, { transId: 'K' }, ctx),
      (p) => confirmPayment(p, { transId: 'K2' }, ctx),
    );
    expect(confirmed.operations.at(-1)).toMatchObject({ status: 'FAILED' });
    expect(top(confirmed)).toEqual({
      state: 'AUTHORIZED',
      status: 'OK',
      ...SUCCESS(),
      xId: confirmed.operations[1]!.xId,
    });
    const declined = history(multiStep({ transId: 'T-2', simulationMode: 'DECLINED' }), (p) =>
      confirmPayment(p, { transId: 'K' }, ctx),
    );
    expect(declined.payment.state).toBe('FAILED');
    expect(top(declined)).toEqual({
      state: 'FAILED',
      status: 'FAILED',
      ...ctx.code('DECLINED'),
      xId: declined.operations[1]!.xId,
    });
  });

  it('expiry: a waiting payment past its expirationTime fails with PAYMENT_EXPIRED, as an AUTHORIZATION (hosted) or a CONFIRMATION', () => {
    const ctx = testDomain();
    const expirationTime = new Date(Date.parse(T0) + HOUR).toISOString();
    const pending = createPayment(newPayment({ integrationType: 'HOSTED', details: { expirationTime } }), ctx).payment;
    expect(expiryDueAt(pending)).toBe(expirationTime);
    ctx.at(expirationTime);
    const expired = history(hosted(ctx, { details: { expirationTime } }), (p) => expirePayment(p, ctx));
    expect(expired.operations[1]).toMatchObject({ type: 'AUTHORIZATION', status: 'FAILED', failsPayment: true });
    expect(top(expired)).toEqual({
      state: 'FAILED',
      status: 'FAILED',
      ...ctx.code('PAYMENT_EXPIRED'),
      xId: expired.operations[1]!.xId,
    });
    expect(expiryDueAt(expired.payment)).toBeUndefined();
    const unconfirmed = history(
      () =>
        createPayment(newPayment({ transId: 'T-3', paymentMethodType: 'PAYPAL', details: { expirationTime } }), ctx),
      (p) => expirePayment(p, ctx),
    );
    expect(unconfirmed.operations[1]).toMatchObject({ type: 'CONFIRMATION', status: 'FAILED' });
    expect(top(unconfirmed)).toMatchObject({ state: 'FAILED', status: 'FAILED', ...ctx.code('PAYMENT_EXPIRED') });
  });

  it('expiry: nothing expires that does not wait or has no expirationTime; expiring one is refused and changes nothing', () => {
    const ctx = testDomain();
    const expirationTime = new Date(Date.parse(T0) + HOUR).toISOString();
    const authorized = createPayment(newPayment({ details: { expirationTime } }), ctx);
    expect(expiryDueAt(authorized.payment)).toBeUndefined();
    expect(expiryDueAt(createPayment(newPayment({ integrationType: 'HOSTED', transId: 'T-2' }), ctx).payment)).toBe(
      undefined,
    );
    const refused = history(
      () => authorized,
      (p) => expirePayment(p, ctx),
    );
    expect(refused.operations.at(-1)).toMatchObject({
      status: 'FAILED',
      responseCode: ctx.code('WRONG_STATE').responseCode,
    });
    expect(refused.operations.at(-1)!.failsPayment).toBeUndefined();
    expect(top(refused)).toMatchObject({ state: 'AUTHORIZED', status: 'OK', ...SUCCESS() });
  });
});
