// What the test clock drives: DELAYED captures fall due `delayedHours` after the authorization,
// waiting payments expire at their `expirationTime`, and AUTOMATIC plans (recurring, installments)
// bill on their `nextPaymentDate`. The store indexes the due times these functions give; the clock
// runs each due item at its own time.
import type { DomainContext } from './context.js';
import { capturable, capturePayment, type Decision, expirePayment, expiryDueAt } from './payments.js';
import type { Payment, PaymentPlan, Schemas, Timestamp } from './types.js';

/** The states a DELAYED payment can still be captured in (a part captured and refunded leaves the rest capturable). */
const CAPTURE_PENDING: ReadonlySet<Payment['state']> = new Set([
  'AUTHORIZED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
]);

/** When the clock captures this payment, or undefined when it never will (not DELAYED, nothing left to capture). */
export function captureDueAt(payment: Payment): Timestamp | undefined {
  if (payment.captureMode !== 'DELAYED' || payment.captureAt === undefined) return undefined;
  return CAPTURE_PENDING.has(payment.state) && capturable(payment) > 0 ? payment.captureAt : undefined;
}

/** The DELAYED capture: what is still authorized and not captured, under the payment's own transId. */
export function captureDelayed(payment: Payment, ctx: DomainContext): Decision {
  const decision = capturePayment(
    payment,
    {
      transId: payment.transId,
      refNr: payment.refNr,
      amount: { value: capturable(payment), currency: payment.currency },
    },
    ctx,
  );
  // Done, whatever the result: the clock does not capture twice.
  const { captureAt: _, ...captured } = decision.payment;
  return { ...decision, payment: captured };
}

/**
 * When the clock acts on this payment: its DELAYED capture, or the expiry of a payment still waiting
 * for the customer or its confirmation (never both: one needs an authorization, the other none).
 */
export function paymentDueAt(payment: Payment): Timestamp | undefined {
  return captureDueAt(payment) ?? expiryDueAt(payment);
}

/** What the clock does with a payment due: expires it while it waits, else captures it. */
export function runDuePayment(payment: Payment, ctx: DomainContext): Decision {
  return expiryDueAt(payment) !== undefined ? expirePayment(payment, ctx) : captureDelayed(payment, ctx);
}

/** A PlanDateTime (`YYYY-MM-DDTHH:MM:SS.mmm`, UTC without a zone) as an ISO timestamp. */
const instant = (planDateTime: string) => `${planDateTime}Z`;

/** When the clock bills this plan, or undefined (not active, billed by the merchant, or no date). */
export function billingDueAt(plan: PaymentPlan): Timestamp | undefined {
  if (plan.status !== 'ACTIVE' || plan.triggerType !== 'AUTOMATIC' || plan.nextPaymentDate === undefined)
    return undefined;
  return instant(plan.nextPaymentDate);
}

/** A recurring plan whose next date lies past its expiration has run its course. */
export function expiresBeforeBilling(plan: PaymentPlan): boolean {
  return (
    plan.expirationDate !== undefined &&
    plan.nextPaymentDate !== undefined &&
    instant(plan.nextPaymentDate) > instant(plan.expirationDate)
  );
}

/** The plan once it has run its course: COMPLETED, with no next date. */
export function completedPlan(plan: PaymentPlan): PaymentPlan {
  const { nextPaymentDate: _, ...rest } = plan;
  return { ...rest, status: 'COMPLETED', version: plan.version + 1 };
}

/**
 * The charge the clock makes on a plan's date, as a merchant would send it: the plan's own amount
 * rules apply (chargePlan), and the transId names the plan and the billing day (unique per scope:
 * no frequency bills twice a day).
 */
export function scheduledCharge(plan: PaymentPlan, due: Timestamp): Schemas['PlanChargeRequest'] {
  return { transId: `${plan.id}-${due.slice(0, 10).replaceAll('-', '')}` };
}

/** Nothing due later than this is run before it: the order in which due items of a scope are run. */
export function earliest<T extends { due: Timestamp }>(items: readonly (T | undefined)[]): T | undefined {
  let first: T | undefined;
  for (const item of items) if (item && (!first || item.due < first.due)) first = item;
  return first;
}

/** Where a clock stands: the wall clock plus its offset; it never goes back. */
export function clockTime(wall: Date, offsetMs: number): Date {
  return new Date(wall.getTime() + offsetMs);
}
