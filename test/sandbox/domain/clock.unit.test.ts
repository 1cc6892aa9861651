// What the test clock drives (sandbox/domain/clock.ts) without HTTP or a store: when a DELAYED
// capture falls due and what it captures, when an AUTOMATIC plan bills and the charge it sends, when a
// recurring plan has run its course, the order of due items, and the clock's time.
import { describe, expect, it } from 'vitest';
import {
  billingDueAt,
  captureDelayed,
  captureDueAt,
  clockTime,
  completedPlan,
  earliest,
  expiresBeforeBilling,
  paymentDueAt,
  runDuePayment,
  scheduledCharge,
} from '../../../sandbox/domain/clock.js';
import {
  capturable,
  capturePayment,
  completeOnHostedPage,
  createPayment,
  paymentDetails,
  refundPayment,
  reversePayment,
} from '../../../sandbox/domain/payments.js';
import { chargePlan, planFromInitialPayment } from '../../../sandbox/domain/plans.js';
import type { Payment, PaymentPlan, Schemas } from '../../../sandbox/domain/types.js';
import { DAY, HOUR, newPayment, T0, type TestDomain, testDomain, typesOf } from '../../support/domain.js';

const EUR = (value: number) => ({ value, currency: 'EUR' });
const delayed = (ctx: TestDomain, hours = 48, overrides: Parameters<typeof newPayment>[0] = {}) =>
  createPayment(newPayment({ captureMethod: { type: 'DELAYED', delayed: { delayedHours: hours } }, ...overrides }), ctx)
    .payment;

describe('captureDueAt', () => {
  it('a DELAYED payment falls due delayedHours after its authorization', () => {
    const ctx = testDomain();
    expect(captureDueAt(delayed(ctx, 48))).toBe(new Date(Date.parse(T0) + 48 * HOUR).toISOString());
  });

  it('a partially captured DELAYED payment still falls due for the rest', () => {
    const ctx = testDomain();
    const p = delayed(ctx);
    const partial = capturePayment(p, { transId: 'C', amount: EUR(4000) }, ctx).payment;
    expect(captureDueAt(partial)).toBe(p.captureAt);
  });

  it('nothing falls due for MANUAL or AUTOMATIC payments', () => {
    const ctx = testDomain();
    for (const type of ['MANUAL', 'AUTOMATIC'] as const)
      expect(captureDueAt(createPayment(newPayment({ captureMethod: { type } }), ctx).payment)).toBeUndefined();
  });

  it('nothing falls due once nothing is left to capture: captured, reversed, declined, or not authorized yet', () => {
    const ctx = testDomain();
    const p = delayed(ctx);
    expect(captureDueAt(capturePayment(p, { transId: 'C', amount: EUR(10_000) }, ctx).payment)).toBeUndefined();
    expect(captureDueAt(reversePayment(p, { transId: 'V' }, ctx).payment)).toBeUndefined();
    expect(captureDueAt(delayed(ctx, 48, { simulationMode: 'DECLINED' }))).toBeUndefined();
    const hosted = delayed(ctx, 48, { integrationType: 'HOSTED' });
    expect(hosted.state).toBe('PENDING');
    expect(captureDueAt(hosted)).toBeUndefined();
    // …and once the customer pays on the page, it is due delayedHours after that
    ctx.advance(HOUR);
    expect(
      captureDueAt(completeOnHostedPage(hosted, { decision: 'pay', paymentMethodType: 'CARD' }, ctx).payment),
    ).toBe(new Date(ctx.now.getTime() + 48 * HOUR).toISOString());
  });

  it('a stale capture time on a state that cannot be captured counts for nothing', () => {
    const ctx = testDomain();
    const p = delayed(ctx);
    for (const state of ['CAPTURED', 'REFUNDED', 'REVERSED', 'FAILED', 'PENDING'] as const)
      expect(captureDueAt({ ...p, state })).toBeUndefined();
  });

  // capturePayment accepts a capture of a PARTIALLY_REFUNDED payment with authorization left
  // (captured in part, then refunded in part): the clock captures the rest too.
  it('a DELAYED payment captured in part and then refunded in part still falls due for the rest', () => {
    const ctx = testDomain();
    const p = delayed(ctx);
    const partial = capturePayment(p, { transId: 'C', amount: EUR(4000) }, ctx).payment;
    const refunded = refundPayment(partial, { transId: 'R', amount: EUR(1000) }, ctx).payment;
    expect(refunded.state).toBe('PARTIALLY_REFUNDED');
    expect(capturable(refunded)).toBe(6000);
    expect(capturePayment(refunded, { transId: 'C2', amount: EUR(6000) }, ctx).outcome).toBe('ok');
    expect(captureDueAt(refunded)).toBe(p.captureAt);
  });
});

describe('captureDelayed', () => {
  it('captures all that is authorized, under the payment transId and refNr, at the due time; then nothing is due', () => {
    const ctx = testDomain();
    const p = delayed(ctx, 2, { refNr: 'R-1' });
    ctx.at(captureDueAt(p)!);
    const d = captureDelayed(p, ctx);
    expect(d.outcome).toBe('ok');
    expect(d.payment).toMatchObject({
      state: 'CAPTURED',
      capturedValue: 10_000,
      version: p.version + 1,
      updatedAt: ctx.now.toISOString(),
    });
    expect(d.payment.captureAt).toBeUndefined();
    expect('captureAt' in d.payment).toBe(false);
    expect(typesOf(d.operations)).toEqual(['CAPTURE']);
    expect(d.reported).toMatchObject({
      transId: p.transId,
      refNr: 'R-1',
      amount: EUR(10_000),
      status: 'OK',
      createdAt: ctx.now.toISOString(),
    });
    expect(captureDueAt(d.payment)).toBeUndefined();
  });

  it('captures what is left of a partially captured or partially reversed payment, incremental authorizations included', () => {
    const ctx = testDomain();
    const partial = capturePayment(delayed(ctx), { transId: 'C', amount: EUR(2500) }, ctx).payment;
    expect(captureDelayed(partial, ctx).payment).toMatchObject({ state: 'CAPTURED', capturedValue: 10_000 });
    const reversed = reversePayment(delayed(ctx), { transId: 'V', amount: EUR(3000) }, ctx).payment;
    const d = captureDelayed(reversed, ctx);
    expect(d.reported.amount).toEqual(EUR(7000));
    expect(d.payment).toMatchObject({ state: 'CAPTURED', capturedValue: 7000, reversedValue: 3000 });
  });

  it('is done whatever the result: a payment with nothing left is refused, and its capture time dropped all the same', () => {
    const ctx = testDomain();
    const stale: Payment = {
      ...capturePayment(delayed(ctx), { transId: 'C', amount: EUR(10_000) }, ctx).payment,
      captureAt: '2026-11-26T09:00:00.000Z',
    };
    const d = captureDelayed(stale, ctx);
    expect(d.outcome).toBe('failed');
    expect(d.payment.capturedValue).toBe(10_000);
    expect('captureAt' in d.payment).toBe(false);
  });
});

describe('plans on the clock', () => {
  const plan = (ctx: TestDomain, cof: Schemas['CredentialOnFile']) => {
    const payment = createPayment(newPayment({ transId: 'COF', amount: EUR(1999) }), ctx).payment;
    return {
      payment,
      plan: planFromInitialPayment({ payment, credentialOnFile: { initialPayment: true, ...cof } }, ctx)!,
    };
  };

  it('billingDueAt: an ACTIVE, AUTOMATIC plan bills at its next payment date (UTC)', () => {
    const ctx = testDomain();
    const { plan: p } = plan(ctx, { type: 'RECURRING', recurring: { frequency: 'MONTHLY' } });
    expect(billingDueAt(p)).toBe('2026-12-24T09:00:00.000Z');
    const { plan: i } = plan(ctx, { type: 'INSTALLMENTS', installments: { total: 2 } });
    expect(billingDueAt(i)).toBe('2026-12-24T09:00:00.000Z');
  });

  it('billingDueAt: nothing for MANUAL plans, plans that are not active, or plans without a next date', () => {
    const ctx = testDomain();
    expect(billingDueAt(plan(ctx, { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }).plan)).toBeUndefined();
    expect(billingDueAt(plan(ctx, { type: 'UNSCHEDULED' }).plan)).toBeUndefined();
    const { plan: p } = plan(ctx, { type: 'RECURRING' });
    for (const status of ['CANCELLED', 'INVALID', 'COMPLETED', 'RETRY'] as const)
      expect(billingDueAt({ ...p, status })).toBeUndefined();
    // a MANUAL plan with a date (never made by planFromInitialPayment) is still billed by the merchant only
    expect(billingDueAt({ ...p, triggerType: 'MANUAL' })).toBeUndefined();
    expect(billingDueAt(plan(ctx, { type: 'INSTALLMENTS', installments: { total: 1 } }).plan)).toBeUndefined();
  });

  it('expiresBeforeBilling: only when the next date lies strictly past the expiration', () => {
    const ctx = testDomain();
    const { plan: p } = plan(ctx, { type: 'RECURRING', recurring: { frequency: 'MONTHLY' } });
    const withExpiry = (expirationDate: string | undefined): PaymentPlan => ({
      ...p,
      ...(expirationDate ? { expirationDate } : { expirationDate: undefined }),
    });
    expect(p.nextPaymentDate).toBe('2026-12-24T09:00:00.000');
    expect(expiresBeforeBilling(withExpiry('2026-12-24T08:59:59.999'))).toBe(true);
    expect(expiresBeforeBilling(withExpiry('2026-12-24T09:00:00.000'))).toBe(false);
    expect(expiresBeforeBilling(withExpiry('2027-01-01T00:00:00.000'))).toBe(false);
    expect(expiresBeforeBilling(withExpiry(undefined))).toBe(false);
    const { nextPaymentDate: _, ...noDate } = withExpiry('2020-01-01T00:00:00.000');
    expect(expiresBeforeBilling(noDate)).toBe(false);
  });

  it('completedPlan: COMPLETED, without a next date, a new version; nothing else changes', () => {
    const ctx = testDomain();
    const { plan: p } = plan(ctx, { type: 'RECURRING' });
    const done = completedPlan(p);
    const { nextPaymentDate: _, ...rest } = p;
    expect(done).toEqual({ ...rest, status: 'COMPLETED', version: p.version + 1 });
    expect(billingDueAt(done)).toBeUndefined();
  });

  it('scheduledCharge: a transId of the plan and the billing day, no amount (the plan type decides it)', () => {
    const ctx = testDomain();
    const { plan: p } = plan(ctx, { type: 'RECURRING' });
    expect(scheduledCharge(p, '2026-12-24T09:00:00.000Z')).toEqual({ transId: `${p.id}-20261224` });
    expect(scheduledCharge(p, '2026-12-24T23:00:00.000Z').transId).toBe(
      scheduledCharge(p, '2026-12-24T00:00:00.000Z').transId,
    );
    expect(scheduledCharge(p, '2026-12-25T00:00:00.000Z').transId).not.toBe(
      scheduledCharge(p, '2026-12-24T00:00:00.000Z').transId,
    );
  });

  it('a monthly recurring plan billed by the clock for a year: one charge per due date, each a month on, until it expires', () => {
    const ctx = testDomain();
    let { plan: p, payment: initial } = plan(ctx, {
      type: 'RECURRING',
      recurring: { frequency: 'MONTHLY', expiryDate: '2027-06-30' },
    });
    const billed: string[] = [];
    for (let n = 0; n < 24; n++) {
      const due = billingDueAt(p);
      if (!due) break;
      if (expiresBeforeBilling(p)) {
        p = completedPlan(p);
        continue;
      }
      ctx.at(due);
      const charge = chargePlan(p, scheduledCharge(p, due), initial, ctx);
      if (charge.outcome !== 'ok') throw new Error(charge.outcome);
      expect(charge.payment.amount).toEqual(EUR(1999));
      expect(createPayment(charge.payment, ctx).payment.state).toBe('CAPTURED');
      billed.push(due.slice(0, 10));
      p = charge.plan;
    }
    expect(billed).toEqual([
      '2026-12-24',
      '2027-01-24',
      '2027-02-24',
      '2027-03-24',
      '2027-04-24',
      '2027-05-24',
      '2027-06-24',
    ]);
    expect(p.status).toBe('COMPLETED');
    expect(initial.payId).toBe('pay_0001');
  });

  it('an installment plan billed by the clock completes after its last installment', () => {
    const ctx = testDomain();
    const { plan: start, payment: initial } = plan(ctx, {
      type: 'INSTALLMENTS',
      installments: { total: 4, frequency: 'WEEKLY' },
    });
    let p = start;
    const dues: string[] = [];
    for (let due = billingDueAt(p); due; due = billingDueAt(p)) {
      ctx.at(due);
      const charge = chargePlan(p, scheduledCharge(p, due), initial, ctx);
      if (charge.outcome !== 'ok') throw new Error(charge.outcome);
      dues.push(due.slice(0, 10));
      p = charge.plan;
    }
    expect(dues).toEqual(['2026-12-01', '2026-12-08', '2026-12-15']);
    expect(p).toMatchObject({ status: 'COMPLETED', paidInstallments: 4 });
  });
});

describe('earliest and clockTime', () => {
  it('earliest: the item due first; undefined entries skipped; the first of equals', () => {
    const a = { due: '2026-11-25T00:00:00.000Z', id: 'a' };
    const b = { due: '2026-11-24T12:00:00.000Z', id: 'b' };
    const c = { due: '2026-11-24T12:00:00.000Z', id: 'c' };
    expect(earliest([a, undefined, b, c])).toBe(b);
    expect(earliest([undefined, a])).toBe(a);
    expect(earliest([])).toBeUndefined();
    expect(earliest([undefined])).toBeUndefined();
  });

  it('clockTime: the wall clock plus the offset', () => {
    const wall = new Date(T0);
    expect(clockTime(wall, 0).toISOString()).toBe(T0);
    expect(clockTime(wall, 2 * DAY).toISOString()).toBe('2026-11-26T09:00:00.000Z');
    expect(clockTime(wall, 0)).not.toBe(wall);
  });
});

describe("the clock's changes and the payment record's result", () => {
  const SUCCESS = () => testDomain().code('SUCCESS');

  it('paymentDueAt: the DELAYED capture, or the expiry of a waiting payment; runDuePayment does the one that is due', () => {
    const ctx = testDomain();
    const p = delayed(ctx, 2);
    expect(paymentDueAt(p)).toBe(captureDueAt(p));
    const expirationTime = new Date(Date.parse(T0) + 3 * HOUR).toISOString();
    const waiting = createPayment(
      newPayment({ transId: 'T-2', integrationType: 'HOSTED', details: { expirationTime } }),
      ctx,
    ).payment;
    expect(paymentDueAt(waiting)).toBe(expirationTime);
    expect(paymentDueAt(createPayment(newPayment({ transId: 'T-3' }), ctx).payment)).toBeUndefined();
    ctx.at(paymentDueAt(p)!);
    expect(typesOf(runDuePayment(p, ctx).operations)).toEqual(['CAPTURE']);
    ctx.at(expirationTime);
    const expired = runDuePayment(waiting, ctx);
    expect(expired.payment.state).toBe('FAILED');
    expect(expired.reported.responseCode).toBe(ctx.code('PAYMENT_EXPIRED').responseCode);
    expect(paymentDueAt(expired.payment)).toBeUndefined();
  });

  it('a DELAYED capture on the clock: the record reports the capture, OK with SUCCESS and its xId', () => {
    const ctx = testDomain();
    const created = createPayment(
      newPayment({ captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } } }),
      ctx,
    );
    ctx.at(captureDueAt(created.payment)!);
    const captured = runDuePayment(created.payment, ctx);
    const body = paymentDetails(captured.payment, [...created.operations, ...captured.operations]);
    expect(body).toMatchObject({ state: 'CAPTURED', status: 'OK', ...SUCCESS(), xId: captured.reported.xId });
    expect(captured.reported.xId).not.toBe(created.reported.xId);
  });

  it('a plan billed by the clock: the charge payment reports its own last operation, OK; declined, FAILED with the code', () => {
    const ctx = testDomain();
    const initial = createPayment(
      newPayment({ transId: 'COF', amount: EUR(1999), captureMethod: { type: 'AUTOMATIC' } }),
      ctx,
    ).payment;
    const cof = { initialPayment: true, type: 'RECURRING', recurring: { frequency: 'MONTHLY' } } as const;
    const p = planFromInitialPayment({ payment: initial, credentialOnFile: cof }, ctx)!;
    const due = billingDueAt(p)!;
    ctx.at(due);
    const charge = chargePlan(p, scheduledCharge(p, due), initial, ctx);
    if (charge.outcome !== 'ok') throw new Error(charge.outcome);
    const billed = createPayment(charge.payment, ctx);
    expect(paymentDetails(billed.payment, billed.operations)).toMatchObject({
      state: 'CAPTURED',
      status: 'OK',
      ...SUCCESS(),
      xId: billed.operations.at(-1)!.xId,
    });
    const declined = createPayment({ ...charge.payment, transId: 'T-D', simulationMode: 'DECLINED' }, ctx);
    expect(paymentDetails(declined.payment, declined.operations)).toMatchObject({
      state: 'FAILED',
      status: 'FAILED',
      ...ctx.code('DECLINED'),
    });
  });
});
