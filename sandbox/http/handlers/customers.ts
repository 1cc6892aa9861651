// Customers and their stored payment methods (made by payments; listed, read, updated, deleted here).
import { customerBody, storedPaymentMethodBody, updateCustomer } from '../../domain/customers.js';
import type { Schemas } from '../../domain/types.js';
import type { Handler } from '../pipeline.js';
import { envelope, PAGE_SIZE } from './plans.js';
import { notFound, param, read, write } from './shared.js';

const pageOf = (query: Record<string, unknown>) => ({ page: typeof query.Page === 'number' ? query.Page : 1, pageSize: PAGE_SIZE });

export const customerHandlers = {
  listCustomers: read(async (ctx, store) => {
    const request = pageOf(ctx.query);
    const merchantCustomerId = typeof ctx.query.MerchantCustomerId === 'string' ? ctx.query.MerchantCustomerId : undefined;
    const page = await store.transaction(async (tx) => {
      if (merchantCustomerId === undefined) return tx.customers.list(ctx.scope, request);
      // One customer per merchantCustomerId: the filtered list has one item, or none.
      const one = await tx.customers.getByMerchantCustomerId(ctx.scope, merchantCustomerId);
      return { items: one && request.page === 1 ? [one] : [], total: one ? 1 : 0 };
    });
    return { status: 200, body: envelope(page, request, customerBody) satisfies Schemas['CustomerPage'] };
  }),

  getCustomer: read(async (ctx, store) => {
    const id = param(ctx, 'id');
    const customer = await store.transaction((tx) => tx.customers.get(ctx.scope, id));
    return customer ? { status: 200, body: customerBody(customer) } : notFound(ctx, 'Customer', id);
  }),

  updateCustomer: write(async (ctx, tx) => {
    const id = param(ctx, 'id');
    const customer = await tx.customers.get(ctx.scope, id);
    if (!customer) return notFound(ctx, 'Customer', id);
    const updated = updateCustomer(customer, ctx.body as Schemas['CustomerUpdateRequest'], ctx.domain);
    await tx.customers.update(updated);
    return { status: 200, body: customerBody(updated) };
  }),

  deleteCustomer: write(async (ctx, tx) => {
    const id = param(ctx, 'id');
    return (await tx.customers.delete(ctx.scope, id)) ? { status: 204 } : notFound(ctx, 'Customer', id);
  }),

  listCustomerPaymentMethods: read(async (ctx, store) => {
    const id = param(ctx, 'id');
    const request = pageOf(ctx.query);
    const page = await store.transaction(async (tx) => ((await tx.customers.get(ctx.scope, id)) ? tx.paymentMethods.list(ctx.scope, id, request) : undefined));
    return page ? { status: 200, body: envelope(page, request, storedPaymentMethodBody) satisfies Schemas['StoredPaymentMethodPage'] } : notFound(ctx, 'Customer', id);
  }),

  getCustomerPaymentMethod: read(async (ctx, store) => {
    const [customerId, id] = [param(ctx, 'customerId'), param(ctx, 'paymentMethodId')];
    const method = await store.transaction((tx) => tx.paymentMethods.get(ctx.scope, customerId, id));
    return method ? { status: 200, body: storedPaymentMethodBody(method) } : notFound(ctx, 'Payment method', id);
  }),

  deleteCustomerPaymentMethod: write(async (ctx, tx) => {
    const [customerId, id] = [param(ctx, 'customerId'), param(ctx, 'paymentMethodId')];
    return (await tx.paymentMethods.delete(ctx.scope, customerId, id)) ? { status: 204 } : notFound(ctx, 'Payment method', id);
  }),
} satisfies Record<string, Handler>;
