// Payment plans as use cases: a charge by the plan type's amount rules (the merchant's, or the test
// clock's on the plan's date), recorded as a plan payment; the plans and their payments, read.

import type { Decision } from '../domain/payments.js';
import { chargePlan as chargeDecision, planPayment } from '../domain/plans.js';
import type { PaymentPlan, PlanPayment, Schemas, Scope } from '../domain/types.js';
import type { Page, PageRequest, PlanFilter, Store, StoreTransaction } from '../store/store.js';
import type { AppContext } from './context.js';
import { invalid, isRejection, notFound, type Rejection, refused } from './outcomes.js';
import { startPayment } from './payments.js';

/** The charge was made (`decision`: its payment, authorized or declined) and the plan moved on. */
export interface PlanCharge {
  plan: PaymentPlan;
  decision: Decision;
}

/** Charges `plan` and records the plan payment; refuses what the plan type's rules or its state do not allow. */
export async function chargePlan(
  ctx: AppContext,
  tx: StoreTransaction,
  plan: PaymentPlan,
  request: Schemas['PlanChargeRequest'],
): Promise<PlanCharge | Rejection> {
  const initial = await tx.payments.get(ctx.scope, plan.initialPayId);
  if (!initial) throw new Error(`plan ${plan.id} lost its initial payment ${plan.initialPayId}`);
  const charge = chargeDecision(plan, request, initial, ctx.domain);
  if (charge.outcome === 'invalid') return invalid(charge.field, charge.message);
  if (charge.outcome === 'refused') {
    const code = ctx.domain.codes[charge.code];
    return refused({
      paymentPlanId: plan.id,
      merchantId: ctx.scope.merchantId,
      transId: request.transId,
      refNr: request.refNr,
      status: 'FAILED',
      ...code,
    });
  }
  const started = await startPayment(ctx, tx, charge.payment, {});
  if (isRejection(started))
    return started.rejected === 'refused' ? refused({ ...started.result, paymentPlanId: plan.id }) : started;
  await tx.plans.update(charge.plan);
  await tx.planPayments.insert(planPayment(charge.plan, started.decision.payment, ctx.domain));
  return { plan: charge.plan, decision: started.decision };
}

/** The merchant's charge of the plan `paymentPlanId` (locked for it). */
export async function chargePaymentPlan(
  ctx: AppContext,
  tx: StoreTransaction,
  paymentPlanId: string,
  request: Schemas['PlanChargeRequest'],
): Promise<PlanCharge | Rejection> {
  const plan = await tx.plans.get(ctx.scope, paymentPlanId, { lock: true });
  return plan ? chargePlan(ctx, tx, plan, request) : notFound('Payment plan', paymentPlanId);
}

export const listPlans = (
  store: Store,
  scope: Scope,
  filter: PlanFilter,
  page: PageRequest,
): Promise<Page<PaymentPlan>> => store.transaction((tx) => tx.plans.list(scope, filter, page));

export async function getPlan(
  store: Store,
  scope: Scope,
  paymentPlanId: string,
): Promise<{ plan: PaymentPlan } | Rejection> {
  const plan = await store.transaction((tx) => tx.plans.get(scope, paymentPlanId));
  return plan ? { plan } : notFound('Payment plan', paymentPlanId);
}

export async function listPlanPayments(
  store: Store,
  scope: Scope,
  paymentPlanId: string,
  page: PageRequest,
): Promise<Page<PlanPayment> | Rejection> {
  const found = await store.transaction(async (tx) =>
    (await tx.plans.get(scope, paymentPlanId)) ? tx.planPayments.list(scope, paymentPlanId, page) : undefined,
  );
  return found ?? notFound('Payment plan', paymentPlanId);
}
