// Customers and their stored payment methods (payments make them; merchants list, read, update and
// delete them).
import { updateCustomer as updatedCustomer } from '../domain/customers.js';
import type { Customer, Schemas, Scope, StoredPaymentMethod } from '../domain/types.js';
import type { Page, PageRequest, Store, StoreTransaction } from '../store/store.js';
import type { AppContext } from './context.js';
import { notFound, type Rejection } from './outcomes.js';

/** The customers of a scope, or the one with `merchantCustomerId` (one customer per merchantCustomerId). */
export function listCustomers(
  store: Store,
  scope: Scope,
  page: PageRequest,
  merchantCustomerId?: string,
): Promise<Page<Customer>> {
  return store.transaction(async (tx) => {
    if (merchantCustomerId === undefined) return tx.customers.list(scope, page);
    const one = await tx.customers.getByMerchantCustomerId(scope, merchantCustomerId);
    return { items: one && page.page === 1 ? [one] : [], total: one ? 1 : 0 };
  });
}

export async function getCustomer(store: Store, scope: Scope, id: string): Promise<{ customer: Customer } | Rejection> {
  const customer = await store.transaction((tx) => tx.customers.get(scope, id));
  return customer ? { customer } : notFound('Customer', id);
}

export async function updateCustomer(
  ctx: AppContext,
  tx: StoreTransaction,
  id: string,
  request: Schemas['CustomerUpdateRequest'],
): Promise<{ customer: Customer } | Rejection> {
  const customer = await tx.customers.get(ctx.scope, id);
  if (!customer) return notFound('Customer', id);
  const updated = updatedCustomer(customer, request, ctx.domain);
  await tx.customers.update(updated);
  return { customer: updated };
}

/** Deletes the customer and its stored payment methods. */
export async function deleteCustomer(
  ctx: AppContext,
  tx: StoreTransaction,
  id: string,
): Promise<{ deleted: true } | Rejection> {
  return (await tx.customers.delete(ctx.scope, id)) ? { deleted: true } : notFound('Customer', id);
}

export async function listPaymentMethods(
  store: Store,
  scope: Scope,
  customerId: string,
  page: PageRequest,
): Promise<Page<StoredPaymentMethod> | Rejection> {
  const found = await store.transaction(async (tx) =>
    (await tx.customers.get(scope, customerId)) ? tx.paymentMethods.list(scope, customerId, page) : undefined,
  );
  return found ?? notFound('Customer', customerId);
}

export async function getPaymentMethod(
  store: Store,
  scope: Scope,
  customerId: string,
  id: string,
): Promise<{ method: StoredPaymentMethod } | Rejection> {
  const method = await store.transaction((tx) => tx.paymentMethods.get(scope, customerId, id));
  return method ? { method } : notFound('Payment method', id);
}

export async function deletePaymentMethod(
  ctx: AppContext,
  tx: StoreTransaction,
  customerId: string,
  id: string,
): Promise<{ deleted: true } | Rejection> {
  return (await tx.paymentMethods.delete(ctx.scope, customerId, id))
    ? { deleted: true }
    : notFound('Payment method', id);
}
