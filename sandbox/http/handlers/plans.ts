// Payment plans: the filtered, paged list; one plan; a charge by the plan type's amount rules; the
// payments of a plan; the plans of a customer.
import { planBody, planListItem, planPaymentBody } from '../../domain/plans.js';
import { operationResult } from '../../domain/payments.js';
import type { Schemas } from '../../domain/types.js';
import type { Page, PlanFilter } from '../../store/store.js';
import type { Handler, Reply, RequestContext } from '../pipeline.js';
import { chargeAndRecord, notFound, param, read, write } from './shared.js';

/** Items per page of every list (the interface document does not give the page size). */
export const PAGE_SIZE = 20;

const pageOf = (ctx: RequestContext) => ({ page: typeof ctx.query.Page === 'number' ? ctx.query.Page : 1, pageSize: PAGE_SIZE });

/** The page envelope of the contract around a page of items. */
export function envelope<T, U>(page: Page<T>, request: { page: number; pageSize: number }, map: (item: T) => U) {
  return {
    totalNumberOfPages: Math.ceil(page.total / request.pageSize),
    totalNumberOfItems: page.total,
    page: request.page,
    pageSize: request.pageSize,
    data: page.items.map(map),
  };
}

/** The list's filters, from the query parameters the contract gives. */
function planFilter(query: Record<string, unknown>): PlanFilter {
  const text = (k: string) => (typeof query[k] === 'string' ? (query[k] as string) : undefined);
  const num = (k: string) => (typeof query[k] === 'number' ? (query[k] as number) : undefined);
  const filter: PlanFilter = {
    createdFrom: text('CreatedAtFrom'),
    createdTo: text('CreatedAtTo'),
    lastBillingFrom: text('LastBillingFrom'),
    lastBillingTo: text('LastBillingTo'),
    paymentPlanId: text('PaymentPlanId'),
    merchantCustomerId: text('MerchantCustomerId'),
    currency: text('Currency'),
    amountFrom: num('AmountFrom'),
    amountTo: num('AmountTo'),
    amount: num('Amount'),
    status: text('PlanStatus') as PlanFilter['status'],
    type: text('PlanType') as PlanFilter['type'],
  };
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as PlanFilter;
}

const planNotFound = (ctx: RequestContext, id: string): Reply => notFound(ctx, 'Payment plan', id);

export const planHandlers = {
  listPaymentPlans: read(async (ctx, store) => {
    const request = pageOf(ctx);
    const page = await store.transaction((tx) => tx.plans.list(ctx.scope, planFilter(ctx.query), request));
    return { status: 200, body: envelope(page, request, planListItem) satisfies Schemas['PaymentPlanPage'] };
  }),

  getPaymentPlan: read(async (ctx, store) => {
    const id = param(ctx, 'paymentPlanId');
    const plan = await store.transaction((tx) => tx.plans.get(ctx.scope, id));
    return plan ? { status: 200, body: planBody(plan) } : planNotFound(ctx, id);
  }),

  chargePaymentPlan: write(async (ctx, tx) => {
    const id = param(ctx, 'paymentPlanId');
    const plan = await tx.plans.get(ctx.scope, id, { lock: true });
    if (!plan) return planNotFound(ctx, id);
    const charge = await chargeAndRecord(ctx, tx, plan, ctx.body as Schemas['PlanChargeRequest']);
    if (charge.outcome === 'rejected') return charge.reply;
    const { decision } = charge;
    const { paymentMethods: _, ...result } = operationResult(decision.payment, decision.reported);
    return { status: decision.outcome === 'ok' ? 201 : 422, body: { paymentPlanId: plan.id, ...result } satisfies Schemas['PlanChargeResult'] };
  }),

  listPaymentPlanPayments: read(async (ctx, store) => {
    const id = param(ctx, 'paymentPlanId');
    const request = pageOf(ctx);
    const page = await store.transaction(async (tx) => ((await tx.plans.get(ctx.scope, id)) ? tx.planPayments.list(ctx.scope, id, request) : undefined));
    return page ? { status: 200, body: envelope(page, request, planPaymentBody) satisfies Schemas['PlanPaymentPage'] } : planNotFound(ctx, id);
  }),

  listCustomerPaymentPlans: read(async (ctx, store) => {
    const request = pageOf(ctx);
    const page = await store.transaction((tx) => tx.plans.list(ctx.scope, { customerId: param(ctx, 'customerId') }, request));
    return { status: 200, body: envelope(page, request, planListItem) satisfies Schemas['PaymentPlanPage'] };
  }),
} satisfies Record<string, Handler>;
