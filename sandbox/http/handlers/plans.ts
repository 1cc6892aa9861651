// Payment plans: the filtered, paged list; one plan; a charge by the plan type's amount rules; the
// payments of a plan; the plans of a customer.
import { isRejection } from '../../app/outcomes.js';
import { chargePaymentPlan, getPlan, listPlanPayments, listPlans } from '../../app/plans.js';
import { operationResult } from '../../domain/payments.js';
import { planBody, planListItem, planPaymentBody } from '../../domain/plans.js';
import type { Schemas } from '../../domain/types.js';
import type { PlanFilter } from '../../store/store.js';
import { type Handlers, type RequestContext, read, write } from '../pipeline.js';
import { envelope, pageOf, rejectionReply } from '../replies.js';

/** The list's filters, from the query parameters the contract gives (those not given are undefined). */
function planFilter(query: RequestContext<'listPaymentPlans'>['query']): PlanFilter {
  return {
    createdFrom: query.CreatedAtFrom,
    createdTo: query.CreatedAtTo,
    lastBillingFrom: query.LastBillingFrom,
    lastBillingTo: query.LastBillingTo,
    paymentPlanId: query.PaymentPlanId,
    merchantCustomerId: query.MerchantCustomerId,
    currency: query.Currency,
    amountFrom: query.AmountFrom,
    amountTo: query.AmountTo,
    amount: query.Amount,
    status: query.PlanStatus,
    type: query.PlanType,
  };
}

export const planHandlers = {
  listPaymentPlans: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const page = await listPlans(store, ctx.scope, planFilter(ctx.query), request);
    const body: Schemas['PaymentPlanPage'] = envelope(page, request, planListItem);
    return { status: 200, body };
  }),

  getPaymentPlan: read(async (ctx, store) => {
    const outcome = await getPlan(store, ctx.scope, ctx.path.paymentPlanId);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: planBody(outcome.plan) };
  }),

  chargePaymentPlan: write(async (ctx, tx) => {
    const outcome = await chargePaymentPlan(ctx, tx, ctx.path.paymentPlanId, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    const { decision, plan } = outcome;
    const { paymentMethods: _, ...result } = operationResult(decision.payment, decision.reported);
    const body: Schemas['PlanChargeResult'] = { paymentPlanId: plan.id, ...result };
    return { status: decision.outcome === 'ok' ? 201 : 422, body };
  }),

  listPaymentPlanPayments: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const page = await listPlanPayments(store, ctx.scope, ctx.path.paymentPlanId, request);
    if (isRejection(page)) return rejectionReply(ctx, page);
    const body: Schemas['PlanPaymentPage'] = envelope(page, request, planPaymentBody);
    return { status: 200, body };
  }),

  listCustomerPaymentPlans: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const page = await listPlans(store, ctx.scope, { customerId: ctx.path.customerId }, request);
    const body: Schemas['PaymentPlanPage'] = envelope(page, request, planListItem);
    return { status: 200, body };
  }),
} satisfies Partial<Handlers>;
