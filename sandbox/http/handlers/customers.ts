// Customers and their stored payment methods (made by payments; listed, read, updated, deleted here).
import {
  deleteCustomer,
  deletePaymentMethod,
  getCustomer,
  getPaymentMethod,
  listCustomers,
  listPaymentMethods,
  updateCustomer,
} from '../../app/customers.js';
import { isRejection } from '../../app/outcomes.js';
import { customerBody, storedPaymentMethodBody } from '../../domain/customers.js';
import type { Schemas } from '../../domain/types.js';
import { type Handlers, read, write } from '../pipeline.js';
import { envelope, pageOf, rejectionReply } from '../replies.js';

export const customerHandlers = {
  listCustomers: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const page = await listCustomers(store, ctx.scope, request, ctx.query.MerchantCustomerId);
    const body: Schemas['CustomerPage'] = envelope(page, request, customerBody);
    return { status: 200, body };
  }),

  getCustomer: read(async (ctx, store) => {
    const outcome = await getCustomer(store, ctx.scope, ctx.path.id);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: customerBody(outcome.customer) };
  }),

  updateCustomer: write(async (ctx, tx) => {
    const outcome = await updateCustomer(ctx, tx, ctx.path.id, ctx.body);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: customerBody(outcome.customer) };
  }),

  deleteCustomer: write(async (ctx, tx) => {
    const outcome = await deleteCustomer(ctx, tx, ctx.path.id);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 204 };
  }),

  listCustomerPaymentMethods: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const page = await listPaymentMethods(store, ctx.scope, ctx.path.id, request);
    if (isRejection(page)) return rejectionReply(ctx, page);
    const body: Schemas['StoredPaymentMethodPage'] = envelope(page, request, storedPaymentMethodBody);
    return { status: 200, body };
  }),

  getCustomerPaymentMethod: read(async (ctx, store) => {
    const outcome = await getPaymentMethod(store, ctx.scope, ctx.path.customerId, ctx.path.paymentMethodId);
    return isRejection(outcome)
      ? rejectionReply(ctx, outcome)
      : { status: 200, body: storedPaymentMethodBody(outcome.method) };
  }),

  deleteCustomerPaymentMethod: write(async (ctx, tx) => {
    const outcome = await deletePaymentMethod(ctx, tx, ctx.path.customerId, ctx.path.paymentMethodId);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 204 };
  }),
} satisfies Partial<Handlers>;
