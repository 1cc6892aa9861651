// Payment plans (sandbox/domain/plans.ts) without HTTP: the plan an initial credential-on-file
// payment creates (type, trigger, dates, installments), the charge rules per plan type (the amount
// "only for unscheduled merchant-initiated plans; optional for installments; not applicable for
// recurring plans"), plans that are not active, the date one period later, and the bodies.
import { describe, expect, it } from 'vitest';
import { createPayment } from '../../../sandbox/domain/payments.js';
import {
  advance,
  chargePlan,
  type PlanSource,
  planBody,
  planDateTime,
  planFromInitialPayment,
  planListItem,
  planPayment,
  planPaymentBody,
} from '../../../sandbox/domain/plans.js';
import type { Payment, PaymentPlan, Schemas, StoredPaymentMethod } from '../../../sandbox/domain/types.js';
import { DAY, newPayment, SCOPE, T0, type TestDomain, testDomain } from '../../support/domain.js';

const CARD: Schemas['CardSummary'] = { brand: 'VISA', last4Digits: '1111', expiryDate: '202912' };
const METHOD: StoredPaymentMethod = {
  id: 'pm_x',
  scope: SCOPE,
  customerId: 'cus_x',
  type: 'CARD',
  card: CARD,
  pseudoNumber: 'pn_x',
  createdAt: T0,
};

/** An authorized initial payment of 19.99 EUR. */
function initial(ctx: TestDomain, overrides: Parameters<typeof newPayment>[0] = {}): Payment {
  return createPayment(
    newPayment({
      transId: 'COF-1',
      amount: { value: 1999, currency: 'EUR' },
      customerId: 'cus_x',
      details: { customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena' } },
      ...overrides,
    }),
    ctx,
  ).payment;
}

function plan(
  ctx: TestDomain,
  credentialOnFile: Schemas['CredentialOnFile'],
  source: Partial<PlanSource> = {},
): PaymentPlan {
  const p = planFromInitialPayment(
    {
      payment: initial(ctx),
      credentialOnFile: { initialPayment: true, ...credentialOnFile },
      merchantCustomerId: 'm-1',
      storedPaymentMethod: METHOD,
      ...source,
    },
    ctx,
  );
  if (!p) throw new Error('no plan');
  return p;
}

const at = (iso: string) => new Date(iso);
/** `advance` as a PlanDateTime, for readable expectations. */
const next = (from: string, frequency: string | undefined) => planDateTime(advance(at(from), frequency));

describe('planDateTime', () => {
  it('is the PlanDateTime form: UTC, milliseconds, no zone designator', () => {
    expect(planDateTime(at('2026-11-24T09:00:00.000Z'))).toBe('2026-11-24T09:00:00.000');
    expect(planDateTime(at('2026-11-24T23:59:59.999+00:00'))).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  });
});

describe('advance: one period of the frequency later, the time of day kept', () => {
  it.each([
    ['DAILY', '2026-11-25T09:00:00.000'],
    ['WEEKLY', '2026-12-01T09:00:00.000'],
    ['BIWEEKLY', '2026-12-08T09:00:00.000'],
    ['MONTHLY', '2026-12-24T09:00:00.000'],
    ['BIMONTHLY', '2027-01-24T09:00:00.000'],
    ['QUARTERLY', '2027-02-24T09:00:00.000'],
    ['YEARLY', '2027-11-24T09:00:00.000'],
    ['MONTHLY_EOM', '2026-12-31T09:00:00.000'],
    [undefined, '2026-12-24T09:00:00.000'],
  ])('%s', (frequency, expected) => {
    expect(next('2026-11-24T09:00:00.000Z', frequency)).toBe(expected);
  });

  it('DAILY crosses month and year ends', () => {
    expect(next('2026-12-31T23:30:00.000Z', 'DAILY')).toBe('2027-01-01T23:30:00.000');
    expect(next('2028-02-28T00:00:00.000Z', 'DAILY')).toBe('2028-02-29T00:00:00.000');
  });

  it('MONTHLY_EOM is the last day of the next month, whatever the day and the length of the months', () => {
    expect(next('2027-01-31T10:00:00.000Z', 'MONTHLY_EOM')).toBe('2027-02-28T10:00:00.000');
    expect(next('2028-01-01T10:00:00.000Z', 'MONTHLY_EOM')).toBe('2028-02-29T10:00:00.000');
    expect(next('2026-12-31T10:00:00.000Z', 'MONTHLY_EOM')).toBe('2027-01-31T10:00:00.000');
    expect(next('2027-03-31T10:00:00.000Z', 'MONTHLY_EOM')).toBe('2027-04-30T10:00:00.000');
  });

  it('does not change the date it is given', () => {
    const from = at('2026-11-24T09:00:00.000Z');
    advance(from, 'YEARLY');
    expect(from.toISOString()).toBe('2026-11-24T09:00:00.000Z');
  });

  it('MONTHLY from the 31st of January bills on the last day of February, and on the 31st again in March', () => {
    expect(next('2027-01-31T10:00:00.000Z', 'MONTHLY')).toBe('2027-02-28T10:00:00.000');
    expect(next('2028-01-31T10:00:00.000Z', 'MONTHLY')).toBe('2028-02-29T10:00:00.000');
    expect(next('2027-03-31T10:00:00.000Z', 'MONTHLY')).toBe('2027-04-30T10:00:00.000');
  });

  it('QUARTERLY from the 30th of November bills in February', () => {
    expect(next('2026-11-30T10:00:00.000Z', 'QUARTERLY')).toBe('2027-02-28T10:00:00.000');
  });

  it('YEARLY from the 29th of February bills on the 28th', () => {
    expect(next('2028-02-29T10:00:00.000Z', 'YEARLY')).toBe('2029-02-28T10:00:00.000');
  });
});

describe('planFromInitialPayment', () => {
  it('makes no plan unless the payment is the initial one of a typed credential on file', () => {
    const ctx = testDomain();
    const payment = initial(ctx);
    for (const cof of [
      { type: 'RECURRING' as const },
      { type: 'RECURRING' as const, initialPayment: false },
      { initialPayment: true },
    ]) {
      expect(planFromInitialPayment({ payment, credentialOnFile: cof }, ctx)).toBeUndefined();
    }
    expect(ctx.issued('plan')).toBe(0);
  });

  it.each([
    [{ type: 'RECURRING' }, 'RECURRING', 'AUTOMATIC'],
    [{ type: 'INSTALLMENTS', installments: { total: 3 } }, 'INSTALLMENTS', 'AUTOMATIC'],
    [{ type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }, 'UNSCHEDULED_MIT', 'MANUAL'],
    [{ type: 'UNSCHEDULED', unscheduled: { subType: 'CIT' } }, 'DELAYED_SHIPMENT', 'MANUAL'],
    [{ type: 'UNSCHEDULED' }, 'DELAYED_SHIPMENT', 'MANUAL'],
  ] as Array<[Schemas['CredentialOnFile'], string, string]>)(
    '%o makes a %s plan triggered %s',
    (cof, type, trigger) => {
      const ctx = testDomain();
      const p = plan(ctx, cof);
      expect(p).toMatchObject({
        id: 'pp_0001',
        scope: SCOPE,
        type,
        triggerType: trigger,
        status: 'ACTIVE',
        currency: 'EUR',
        amountValue: 1999,
        initialPayId: 'pay_0001',
        customerId: 'cus_x',
        merchantCustomerId: 'm-1',
        storedPaymentMethodId: 'pm_x',
        card: CARD,
        createdAt: T0,
        lastBillingAt: T0,
        version: 1,
      });
    },
  );

  it('takes its description from the order, else the statement descriptor, and only the reference fields of the order', () => {
    const ctx = testDomain();
    const withOrder = initial(ctx, {
      details: {
        order: {
          description: 'Wine club',
          merchantReference: 'O-1',
          invoiceId: 'I-1',
          numberOfArticles: 3,
        } as Schemas['Order'],
        statementDescriptor: 'SHOP',
      },
    });
    const p = planFromInitialPayment(
      { payment: withOrder, credentialOnFile: { type: 'RECURRING', initialPayment: true } },
      ctx,
    )!;
    expect(p.description).toBe('Wine club');
    expect(p.order).toEqual({ merchantReference: 'O-1', invoiceId: 'I-1' });
    const descriptorOnly = initial(ctx, { details: { statementDescriptor: 'SHOP' } });
    expect(
      planFromInitialPayment(
        { payment: descriptorOnly, credentialOnFile: { type: 'RECURRING', initialPayment: true } },
        ctx,
      )!.description,
    ).toBe('SHOP');
    const bare = planFromInitialPayment(
      {
        payment: initial(ctx, { customerId: undefined }),
        credentialOnFile: { type: 'RECURRING', initialPayment: true },
      },
      ctx,
    )!;
    expect(bare.description).toBeUndefined();
    expect(bare.order).toBeUndefined();
    expect(bare.customerId).toBeUndefined();
    expect(bare.storedPaymentMethodId).toBeUndefined();
  });

  describe('RECURRING', () => {
    it('bills one period after the initial payment (MONTHLY unless told), until its expiry date', () => {
      const ctx = testDomain();
      expect(plan(ctx, { type: 'RECURRING' })).toMatchObject({
        frequency: 'MONTHLY',
        nextPaymentDate: '2026-12-24T09:00:00.000',
      });
      const weekly = plan(ctx, { type: 'RECURRING', recurring: { frequency: 'WEEKLY', expiryDate: '2027-06-30' } });
      expect(weekly).toMatchObject({
        frequency: 'WEEKLY',
        nextPaymentDate: '2026-12-01T09:00:00.000',
        expirationDate: '2027-06-30T00:00:00.000',
      });
      expect(plan(ctx, { type: 'RECURRING' }).expirationDate).toBeUndefined();
    });

    it('a start date in the future is the first billing; one passed or today is not', () => {
      const ctx = testDomain();
      expect(plan(ctx, { type: 'RECURRING', recurring: { startDate: '2027-01-15' } }).nextPaymentDate).toBe(
        '2027-01-15T00:00:00.000',
      );
      expect(
        plan(ctx, { type: 'RECURRING', recurring: { startDate: '2026-11-24', frequency: 'DAILY' } }).nextPaymentDate,
      ).toBe('2026-11-25T09:00:00.000');
      expect(
        plan(ctx, { type: 'RECURRING', recurring: { startDate: '2025-01-01', frequency: 'YEARLY' } }).nextPaymentDate,
      ).toBe('2027-11-24T09:00:00.000');
    });
  });

  describe('INSTALLMENTS', () => {
    it('counts the initial payment as installment curIdx and bills the next one a period later', () => {
      const ctx = testDomain();
      const p = plan(ctx, {
        type: 'INSTALLMENTS',
        installments: { total: 4, curIdx: 1, frequency: 'BIWEEKLY', expiryDate: '2027-03-01' },
      });
      expect(p).toMatchObject({
        status: 'ACTIVE',
        totalInstallments: 4,
        paidInstallments: 1,
        frequency: 'BIWEEKLY',
        nextPaymentDate: '2026-12-08T09:00:00.000',
        expirationDate: '2027-03-01T00:00:00.000',
      });
    });

    it.each([
      [{ total: 3 }, 3, 1, 'ACTIVE'],
      [{ total: 3, curIdx: 2 }, 3, 2, 'ACTIVE'],
      [{ total: 3, curIdx: 3 }, 3, 3, 'COMPLETED'],
      [{ total: 3, curIdx: 9 }, 3, 3, 'COMPLETED'],
      [{ total: 3, curIdx: 0 }, 3, 1, 'ACTIVE'],
      [{ total: 3.7, curIdx: 1.9 }, 3, 1, 'ACTIVE'],
      [{}, 1, 1, 'COMPLETED'],
      [{ total: 0 }, 1, 1, 'COMPLETED'],
    ] as Array<[Schemas['CredentialOnFileInstallments'], number, number, string]>)(
      'installments %o: %i in total, %i paid, %s',
      (installments, total, paid, status) => {
        const ctx = testDomain();
        const p = plan(ctx, { type: 'INSTALLMENTS', installments });
        expect(p).toMatchObject({ totalInstallments: total, paidInstallments: paid, status, frequency: 'MONTHLY' });
        // a completed plan has no next date
        expect(p.nextPaymentDate === undefined).toBe(status === 'COMPLETED');
      },
    );
  });

  it('other plan types have no dates and no installments', () => {
    const ctx = testDomain();
    for (const p of [
      plan(ctx, { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }),
      plan(ctx, { type: 'UNSCHEDULED' }),
    ]) {
      expect(p.nextPaymentDate).toBeUndefined();
      expect(p.frequency).toBeUndefined();
      expect(p.totalInstallments).toBeUndefined();
      expect(p.paidInstallments).toBe(0);
    }
  });
});

describe('chargePlan', () => {
  const setup = (cof: Schemas['CredentialOnFile']) => {
    const ctx = testDomain();
    const payment = initial(ctx);
    const p = planFromInitialPayment(
      { payment, credentialOnFile: { initialPayment: true, ...cof }, storedPaymentMethod: METHOD },
      ctx,
    )!;
    ctx.advance(30 * DAY);
    return { ctx, payment, plan: p };
  };
  const RECURRING: Schemas['CredentialOnFile'] = { type: 'RECURRING', recurring: { frequency: 'MONTHLY' } };
  const INSTALLMENTS: Schemas['CredentialOnFile'] = {
    type: 'INSTALLMENTS',
    installments: { total: 3, curIdx: 1, frequency: 'WEEKLY' },
  };
  const MIT: Schemas['CredentialOnFile'] = { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } };
  const DELAYED_SHIPMENT: Schemas['CredentialOnFile'] = { type: 'UNSCHEDULED', unscheduled: { subType: 'CIT' } };

  it('a recurring plan charges its fixed amount; sending an amount, even the same, is invalid', () => {
    const { ctx, payment, plan: p } = setup(RECURRING);
    for (const value of [900, 1999])
      expect(chargePlan(p, { transId: 'CHG', amount: { value } }, payment, ctx)).toEqual({
        outcome: 'invalid',
        field: 'amount',
        message: expect.stringMatching(/recurring/),
      });
    const charge = chargePlan(p, { transId: 'CHG' }, payment, ctx);
    if (charge.outcome !== 'ok') throw new Error(charge.outcome);
    expect(charge.payment.amount).toEqual({ value: 1999, currency: 'EUR' });
    expect(charge.plan).toMatchObject({
      status: 'ACTIVE',
      lastBillingAt: ctx.now.toISOString(),
      nextPaymentDate: planDateTime(advance(ctx.now, 'MONTHLY')),
      version: p.version + 1,
    });
  });

  it('an unscheduled merchant-initiated plan needs the amount, and charges it', () => {
    const { ctx, payment, plan: p } = setup(MIT);
    for (const request of [{ transId: 'CHG' }, { transId: 'CHG', amount: {} }]) {
      expect(chargePlan(p, request, payment, ctx)).toEqual({
        outcome: 'invalid',
        field: 'amount.value',
        message: expect.stringMatching(/required/),
      });
    }
    const charge = chargePlan(p, { transId: 'CHG', amount: { value: 4321 } }, payment, ctx);
    if (charge.outcome !== 'ok') throw new Error(charge.outcome);
    expect(charge.payment.amount).toEqual({ value: 4321, currency: 'EUR' });
    expect(charge.plan).toMatchObject({
      status: 'ACTIVE',
      lastBillingAt: ctx.now.toISOString(),
      version: p.version + 1,
    });
    expect(charge.plan.nextPaymentDate).toBeUndefined();
  });

  it('a delayed-shipment plan takes an optional amount (default: the initial amount)', () => {
    const { ctx, payment, plan: p } = setup(DELAYED_SHIPMENT);
    const byDefault = chargePlan(p, { transId: 'CHG' }, payment, ctx);
    const sent = chargePlan(p, { transId: 'CHG', amount: { value: 500 } }, payment, ctx);
    expect(byDefault.outcome === 'ok' && byDefault.payment.amount.value).toBe(1999);
    expect(sent.outcome === 'ok' && sent.payment.amount.value).toBe(500);
  });

  it('an installment plan takes an optional amount, counts the installment and completes after the last one', () => {
    const { ctx, payment, plan: p0 } = setup(INSTALLMENTS);
    const second = chargePlan(p0, { transId: 'CHG-2' }, payment, ctx);
    if (second.outcome !== 'ok') throw new Error(second.outcome);
    expect(second.payment.amount.value).toBe(1999);
    expect(second.plan).toMatchObject({
      status: 'ACTIVE',
      paidInstallments: 2,
      nextPaymentDate: planDateTime(advance(ctx.now, 'WEEKLY')),
    });
    ctx.advance(7 * DAY);
    const third = chargePlan(second.plan, { transId: 'CHG-3', amount: { value: 2500 } }, payment, ctx);
    if (third.outcome !== 'ok') throw new Error(third.outcome);
    expect(third.payment.amount.value).toBe(2500);
    expect(third.plan).toMatchObject({ status: 'COMPLETED', paidInstallments: 3, version: p0.version + 2 });
    expect('nextPaymentDate' in third.plan).toBe(false);
    expect(chargePlan(third.plan, { transId: 'CHG-4' }, payment, ctx)).toEqual({
      outcome: 'refused',
      code: 'PLAN_NOT_ACTIVE',
    });
  });

  it.each(['CANCELLED', 'INVALID', 'COMPLETED', 'RETRY'] as const)(
    'a %s plan of any type is refused with PLAN_NOT_ACTIVE',
    (status) => {
      for (const [cof, request] of [
        [RECURRING, {}],
        [INSTALLMENTS, {}],
        [MIT, { amount: { value: 100 } }],
        [DELAYED_SHIPMENT, {}],
      ] as const) {
        const { ctx, payment, plan: p } = setup(cof);
        expect(chargePlan({ ...p, status }, { transId: 'CHG', ...request }, payment, ctx)).toEqual({
          outcome: 'refused',
          code: 'PLAN_NOT_ACTIVE',
        });
      }
    },
  );

  it("the amount rule of the type is checked before the plan's status (a 400 before a 422)", () => {
    const { ctx, payment, plan: p } = setup(RECURRING);
    expect(
      chargePlan({ ...p, status: 'CANCELLED' }, { transId: 'CHG', amount: { value: 1 } }, payment, ctx).outcome,
    ).toBe('invalid');
  });

  it.each([
    ['INSTALLMENTS', INSTALLMENTS],
    ['UNSCHEDULED_MIT', MIT],
    ['DELAYED_SHIPMENT', DELAYED_SHIPMENT],
  ] as const)('a %s charge of zero is refused with AMOUNT_NOT_POSITIVE, the plan unchanged', (_, cof) => {
    const { ctx, payment, plan: p } = setup(cof);
    expect(chargePlan(p, { transId: 'CHG', amount: { value: 0 } }, payment, ctx)).toEqual({
      outcome: 'refused',
      code: 'AMOUNT_NOT_POSITIVE',
    });
  });

  it('a plan without an amount of its own charges the amount of the initial payment', () => {
    const { ctx, payment, plan: p } = setup(RECURRING);
    const { amountValue: _, ...withoutAmount } = p;
    const charge = chargePlan(withoutAmount, { transId: 'CHG' }, payment, ctx);
    expect(charge.outcome === 'ok' && charge.payment.amount.value).toBe(payment.amount.value);
  });

  it('the payment of a charge: DIRECT, captured at once, the initial method, customer and card, referencing the initial payment', () => {
    const { ctx, payment, plan: p } = setup(MIT);
    const charge = chargePlan(
      p,
      {
        transId: 'CHG',
        refNr: 'R-7',
        amount: { value: 700 },
        statementDescriptor: 'SHOP',
        order: { merchantReference: 'O-7' },
      },
      payment,
      ctx,
    );
    if (charge.outcome !== 'ok') throw new Error(charge.outcome);
    // the initial payment's DIRECT card of its scope (newPayment's defaults), captured at once
    expect(charge.payment).toEqual(
      newPayment({
        transId: 'CHG',
        refNr: 'R-7',
        amount: { value: 700, currency: 'EUR' },
        captureMethod: { type: 'AUTOMATIC' },
        details: {
          referencePayId: payment.payId,
          order: { merchantReference: 'O-7' },
          statementDescriptor: 'SHOP',
          customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena' },
        },
        customerId: 'cus_x',
        paymentPlanId: p.id,
        storedPaymentMethodId: 'pm_x',
      }),
    );
    const made = createPayment(charge.payment, ctx);
    expect(made.payment).toMatchObject({ state: 'CAPTURED', capturedValue: 700, paymentPlanId: p.id });
  });
});

describe('plan payments and bodies', () => {
  it('planPayment records the payment as it stands, billed now', () => {
    const ctx = testDomain();
    const p = plan(ctx, { type: 'RECURRING' });
    const failed = createPayment(
      newPayment({ transId: 'X', simulationMode: 'DECLINED', amount: { value: 1999, currency: 'EUR' } }),
      ctx,
    ).payment;
    ctx.advance(DAY);
    const record = planPayment(p, failed, ctx);
    expect(record).toEqual({
      paymentPlanId: p.id,
      payId: failed.payId,
      scope: SCOPE,
      status: 'FAILED',
      amount: { value: 1999, currency: 'EUR' },
      billingDate: ctx.now.toISOString(),
    });
    expect(planPaymentBody(record)).toEqual({
      payId: failed.payId,
      status: 'FAILED',
      amount: { value: 1999, currency: 'EUR' },
      billingDate: ctx.now.toISOString(),
    });
  });

  it('planBody carries the object of its own type only', () => {
    const ctx = testDomain();
    const recurring = planBody(
      plan(ctx, { type: 'RECURRING', recurring: { frequency: 'YEARLY', expiryDate: '2030-01-01' } }),
    );
    expect(recurring).toMatchObject({
      id: 'pp_0001',
      paymentPlanType: 'RECURRING',
      planStatus: 'ACTIVE',
      triggerType: 'AUTOMATIC',
      merchantCustomerId: 'm-1',
      creationDate: T0,
      lastBillingDate: T0,
      paymentMethod: { type: 'CARD', card: CARD },
      recurring: {
        amount: { value: 1999, currency: 'EUR' },
        frequency: 'YEARLY',
        nextPaymentDate: '2027-11-24T09:00:00.000',
        expirationDate: '2030-01-01T00:00:00.000',
      },
    });
    expect(Object.keys(recurring)).not.toEqual(expect.arrayContaining(['installments']));
    const installments = planBody(plan(ctx, { type: 'INSTALLMENTS', installments: { total: 2 } }));
    expect(installments.installments).toEqual({
      totalInstallments: 2,
      paidInstallments: 1,
      frequency: 'MONTHLY',
      nextPaymentDate: '2026-12-24T09:00:00.000',
    });
    expect(installments.recurring).toBeUndefined();
    expect(planBody(plan(ctx, { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }))).toMatchObject({
      paymentPlanType: 'UNSCHEDULED_MIT',
      unscheduledMit: { currency: 'EUR' },
    });
    expect(planBody(plan(ctx, { type: 'UNSCHEDULED' }))).toMatchObject({
      paymentPlanType: 'DELAYED_SHIPMENT',
      delayedShipment: {},
    });
    const cancelled = planBody({
      ...plan(ctx, { type: 'RECURRING' }),
      status: 'CANCELLED',
      cancelledAt: '2027-01-01T00:00:00.000Z',
    });
    expect(cancelled).toMatchObject({ planStatus: 'CANCELLED', cancellationDate: '2027-01-01T00:00:00.000Z' });
  });

  it('planListItem summarizes the plan', () => {
    const ctx = testDomain();
    const p = plan(
      ctx,
      { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } },
      { payment: initial(ctx, { details: { statementDescriptor: 'SHOP' } }) },
    );
    expect(planListItem(p)).toEqual({
      id: p.id,
      paymentPlanType: 'UNSCHEDULED_MIT',
      planStatus: 'ACTIVE',
      merchantCustomerId: 'm-1',
      description: 'SHOP',
      lastBillingDate: T0,
      amount: { value: 1999, currency: 'EUR' },
    });
  });
});
