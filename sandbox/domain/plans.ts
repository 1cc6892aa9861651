// Payment plans: an initial credential-on-file payment creates a plan of the matching type; charges
// follow the interface document's amount rules per plan type; installment plans complete after the
// last installment.
//
//   credentialOnFile.type            plan type          trigger    charge amount
//   RECURRING                        RECURRING          AUTOMATIC  fixed (the initial amount): none may be sent
//   INSTALLMENTS                     INSTALLMENTS       AUTOMATIC  optional (default: the installment amount)
//   UNSCHEDULED, subType MIT         UNSCHEDULED_MIT    MANUAL     required
//   UNSCHEDULED, subType CIT / none  DELAYED_SHIPMENT   MANUAL     optional (default: the initial amount)
import { definedMembers } from '../../tooling/defined.js';
import type { DomainContext, ResponseCodeName } from './context.js';
import type { NewPayment } from './payments.js';
import type { Payment, PaymentPlan, PlanPayment, Schemas, StoredPaymentMethod } from './types.js';

const iso = (date: Date) => date.toISOString();

/** The contract's PlanDateTime: `YYYY-MM-DDTHH:MM:SS.mmm`, UTC without a zone designator. */
export const planDateTime = (date: Date) => date.toISOString().slice(0, 23);

/** A date one period of `frequency` after `date` (UTC). */
export function advance(date: Date, frequency: string | undefined): Date {
  const next = new Date(date.getTime());
  // n months on, on the same day or the month's last when it is shorter (January 31 → February 28):
  // setUTCMonth alone would overflow into the month after, and every later billing would drift.
  const months = (n: number) => {
    const dayOfMonth = next.getUTCDate();
    next.setUTCDate(1);
    next.setUTCMonth(next.getUTCMonth() + n);
    const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
    next.setUTCDate(Math.min(dayOfMonth, lastDay));
  };
  switch (frequency) {
    case 'DAILY':
      next.setUTCDate(next.getUTCDate() + 1);
      break;
    case 'WEEKLY':
      next.setUTCDate(next.getUTCDate() + 7);
      break;
    case 'BIWEEKLY':
      next.setUTCDate(next.getUTCDate() + 14);
      break;
    case 'BIMONTHLY':
      months(2);
      break;
    case 'QUARTERLY':
      months(3);
      break;
    case 'YEARLY':
      months(12);
      break;
    case 'MONTHLY_EOM':
      next.setUTCDate(1);
      months(2);
      next.setUTCDate(0);
      break; // last day of next month
    default:
      months(1); // MONTHLY, and plans without a frequency
  }
  return next;
}

/**
 * The latest start (to the second) of a plan billed every `frequency` whose `billed`-th billing after
 * its start falls at or before `now`: a plan that started then has its next billing still to come.
 * (A month is 28 to 31 days and a day clamps at a month's end, so the start is searched, not computed.)
 */
export function startBilledBy(billed: number, frequency: string | undefined, now: Date): Date {
  const lastBilling = (start: number) => {
    let at = new Date(start);
    for (let i = 0; i < billed; i++) at = advance(at, frequency);
    return at.getTime();
  };
  // Invariant: a start at `early` has billed `billed` times by now, one at `late` has not.
  let early = now.getTime() - (billed + 1) * 400 * 86_400_000;
  let late = now.getTime();
  if (lastBilling(late) <= late) return now;
  while (late - early > 1000) {
    const middle = Math.floor((early + late) / 2);
    if (lastBilling(middle) <= now.getTime()) early = middle;
    else late = middle;
  }
  return new Date(early);
}

/** An ISO date (YYYY-MM-DD) as the start of that day in UTC. */
const day = (isoDate: string | undefined) => (isoDate ? new Date(`${isoDate}T00:00:00.000Z`) : undefined);

export interface PlanSource {
  payment: Payment;
  credentialOnFile: Schemas['CredentialOnFile'];
  merchantCustomerId?: string;
  storedPaymentMethod?: StoredPaymentMethod;
}

/** The plan an authorized initial credential-on-file payment creates, or undefined when it creates none. */
export function planFromInitialPayment(source: PlanSource, ctx: DomainContext): PaymentPlan | undefined {
  const { payment, credentialOnFile: cof } = source;
  if (cof.initialPayment !== true || cof.type === undefined) return undefined;
  const now = ctx.now;
  const order = payment.details.order;
  const base = {
    id: ctx.newId('plan'),
    scope: payment.scope,
    status: 'ACTIVE' as const,
    merchantCustomerId: source.merchantCustomerId,
    customerId: payment.customerId,
    description: order?.description ?? payment.details.statementDescriptor,
    currency: payment.currency,
    amountValue: payment.amount.value,
    paidInstallments: 0,
    initialPayId: payment.payId,
    storedPaymentMethodId: source.storedPaymentMethod?.id,
    card: source.storedPaymentMethod?.card,
    order:
      order?.merchantReference !== undefined || order?.invoiceId !== undefined
        ? { merchantReference: order.merchantReference, invoiceId: order.invoiceId }
        : undefined,
    createdAt: iso(now),
    lastBillingAt: iso(now),
    version: 1,
  };
  switch (cof.type) {
    case 'RECURRING': {
      const start = day(cof.recurring?.startDate);
      const frequency = cof.recurring?.frequency ?? 'MONTHLY';
      const next = start && start > now ? start : advance(now, frequency);
      const expires = day(cof.recurring?.expiryDate);
      return {
        ...base,
        type: 'RECURRING',
        triggerType: 'AUTOMATIC',
        frequency,
        nextPaymentDate: planDateTime(next),
        expirationDate: expires && planDateTime(expires),
      };
    }
    case 'INSTALLMENTS': {
      const total = Math.max(1, Math.trunc(cof.installments?.total ?? 1));
      const paid = Math.min(total, Math.max(1, Math.trunc(cof.installments?.curIdx ?? 1)));
      const frequency = cof.installments?.frequency ?? 'MONTHLY';
      const expires = day(cof.installments?.expiryDate);
      return {
        ...base,
        type: 'INSTALLMENTS',
        triggerType: 'AUTOMATIC',
        status: paid >= total ? 'COMPLETED' : 'ACTIVE',
        frequency,
        totalInstallments: total,
        paidInstallments: paid,
        nextPaymentDate: paid < total ? planDateTime(advance(now, frequency)) : undefined,
        expirationDate: expires && planDateTime(expires),
      };
    }
    case 'UNSCHEDULED':
      return cof.unscheduled?.subType === 'MIT'
        ? { ...base, type: 'UNSCHEDULED_MIT', triggerType: 'MANUAL' }
        : { ...base, type: 'DELAYED_SHIPMENT', triggerType: 'MANUAL' };
  }
}

/** The plan payment that records the initial payment, or a charge. */
export function planPayment(plan: PaymentPlan, payment: Payment, ctx: DomainContext): PlanPayment {
  return {
    paymentPlanId: plan.id,
    payId: payment.payId,
    scope: plan.scope,
    status: payment.state,
    amount: { value: payment.amount.value, currency: payment.currency },
    billingDate: iso(ctx.now),
  };
}

export type ChargeDecision =
  /** Charge it: create `payment`, then store `plan`. */
  | { outcome: 'ok'; plan: PaymentPlan; payment: NewPayment }
  /** The request breaks the plan type's amount rule: a 400 naming the field. */
  | { outcome: 'invalid'; field: string; message: string }
  /** The plan cannot be charged (not active): 422 with the charge result. */
  | { outcome: 'refused'; code: ResponseCodeName };

/** A charge of a plan, by the document's amount rules per plan type. */
export function chargePlan(
  plan: PaymentPlan,
  request: Schemas['PlanChargeRequest'],
  initial: Payment,
  ctx: DomainContext,
): ChargeDecision {
  const sent = request.amount?.value;
  if (plan.type === 'RECURRING' && sent !== undefined) {
    return { outcome: 'invalid', field: 'amount', message: 'not applicable to recurring plans: their amount is fixed' };
  }
  if (plan.type === 'UNSCHEDULED_MIT' && sent === undefined) {
    return { outcome: 'invalid', field: 'amount.value', message: 'required for unscheduled merchant-initiated plans' };
  }
  if (plan.status !== 'ACTIVE') return { outcome: 'refused', code: 'PLAN_NOT_ACTIVE' };
  const value = sent ?? plan.amountValue ?? initial.amount.value;
  if (value <= 0) return { outcome: 'refused', code: 'AMOUNT_NOT_POSITIVE' };

  let next: PaymentPlan = { ...plan, lastBillingAt: iso(ctx.now), version: plan.version + 1 };
  if (plan.type === 'INSTALLMENTS') {
    const paid = plan.paidInstallments + 1;
    const done = paid >= (plan.totalInstallments ?? paid);
    const { nextPaymentDate: _, ...rest } = next;
    next = done
      ? { ...rest, paidInstallments: paid, status: 'COMPLETED' }
      : { ...next, paidInstallments: paid, nextPaymentDate: planDateTime(advance(ctx.now, plan.frequency)) };
  } else if (plan.type === 'RECURRING') {
    next = { ...next, nextPaymentDate: planDateTime(advance(ctx.now, plan.frequency)) };
  }
  return {
    outcome: 'ok',
    plan: next,
    payment: {
      scope: plan.scope,
      transId: request.transId,
      refNr: request.refNr,
      amount: { value, currency: plan.currency },
      captureMethod: { type: 'AUTOMATIC' },
      integrationType: 'DIRECT',
      paymentMethodType: initial.paymentMethodType,
      details: {
        referencePayId: plan.initialPayId,
        order: request.order,
        statementDescriptor: request.statementDescriptor,
        customerInfo: initial.details.customerInfo,
      },
      customerId: plan.customerId,
      paymentPlanId: plan.id,
      storedPaymentMethodId: plan.storedPaymentMethodId,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Bodies

const currencyAmount = (plan: PaymentPlan): Schemas['ReportedAmount'] | undefined =>
  plan.amountValue !== undefined ? { value: plan.amountValue, currency: plan.currency } : undefined;

export function planListItem(plan: PaymentPlan): Schemas['PaymentPlanListItem'] {
  return {
    id: plan.id,
    paymentPlanType: plan.type,
    planStatus: plan.status,
    merchantCustomerId: plan.merchantCustomerId,
    description: plan.description,
    lastBillingDate: plan.lastBillingAt,
    amount: currencyAmount(plan),
  };
}

export function planBody(plan: PaymentPlan): Schemas['PaymentPlan'] {
  const { nextPaymentDate, expirationDate } = plan;
  const frequency = plan.frequency as Schemas['PlanFrequency'] | undefined;
  return {
    id: plan.id,
    paymentPlanType: plan.type,
    planStatus: plan.status,
    triggerType: plan.triggerType,
    merchantCustomerId: plan.merchantCustomerId,
    description: plan.description,
    creationDate: plan.createdAt,
    cancellationDate: plan.cancelledAt,
    lastBillingDate: plan.lastBillingAt,
    order: plan.order,
    paymentMethod: plan.card && { type: 'CARD' as const, card: plan.card },
    // The object of the plan's own type, and no member for the others (the plans' unit tests hold it).
    ...definedMembers({
      recurring:
        plan.type === 'RECURRING'
          ? { amount: currencyAmount(plan), frequency, nextPaymentDate, expirationDate }
          : undefined,
      installments:
        plan.type === 'INSTALLMENTS'
          ? {
              totalInstallments: plan.totalInstallments,
              paidInstallments: plan.paidInstallments,
              frequency,
              nextPaymentDate,
              expirationDate,
            }
          : undefined,
      delayedShipment: plan.type === 'DELAYED_SHIPMENT' ? {} : undefined,
      unscheduledMit: plan.type === 'UNSCHEDULED_MIT' ? { currency: plan.currency } : undefined,
    }),
  };
}

export function planPaymentBody(p: PlanPayment): Schemas['PlanPayment'] {
  return { payId: p.payId, status: p.status, amount: p.amount, billingDate: p.billingDate };
}
