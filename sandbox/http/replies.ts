// Outcomes as HTTP answers: the one place where a use case's result becomes a status and a body.
import type { Rejection } from '../app/outcomes.js';
import { type Decision, operationResult } from '../domain/payments.js';
import type { Page } from '../store/store.js';
import type { Reply, RequestContext } from './pipeline.js';

/** A rejection in the operation's shapes: 400 naming the field, 404, or 422 with the domain's result. */
export function rejectionReply(ctx: Pick<RequestContext, 'problem'>, rejection: Rejection): Reply {
  switch (rejection.rejected) {
    case 'invalid':
      return ctx.problem(400, {
        title: 'One or more validation errors occurred.',
        detail: 'See errors for the fields that failed validation.',
        errors: { [rejection.field]: [rejection.message] },
      });
    case 'notFound':
      return ctx.problem(404, {
        title: `${rejection.what} not found.`,
        detail: `No ${rejection.what.toLowerCase()} with id ${rejection.id} exists for this merchant.`,
      });
    case 'refused':
      return { status: 422, body: rejection.result };
  }
}

/** The operation result of a decision: `success` (default 200) when it succeeded, else 422. */
export const decisionReply = (decision: Decision, success = 200): Reply => ({
  status: decision.outcome === 'ok' ? success : 422,
  body: operationResult(decision.payment, decision.reported),
});

/** Where a hosted page of the sandbox is: the checkout session's, a payment link's, a HOSTED payment's. */
export function hostedUrl(
  ctx: Pick<RequestContext, 'publicUrl' | 'environment' | 'merchant'>,
  kind: 'sessions' | 'links' | 'payments',
  id: string,
): string {
  return `${ctx.publicUrl}/hosted/${kind}/${ctx.environment}/${encodeURIComponent(ctx.merchant.merchantId)}/${id}`;
}

/** Items per page of every list (the interface document does not give the page size). */
export const PAGE_SIZE = 20;

/** The page a list request asks for (its `Page` query parameter, 1 by default). */
export const pageOf = (query: { Page?: number }) => ({ page: query.Page ?? 1, pageSize: PAGE_SIZE });

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
