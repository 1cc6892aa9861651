// Customers and their stored payment methods come from payments: a payment that carries
// `customerInfo.merchantCustomerId` creates the customer (or brings its details up to date), and a
// credential-on-file card payment stores the card as brand, last four digits and expiry, under a
// pseudo number; never the full card number.
import { definedMembers } from '../../tooling/defined.js';
import type { DomainContext } from './context.js';
import type { Customer, PseudoNumberRecord, Schemas, Scope, StoredPaymentMethod } from './types.js';

const iso = (date: Date) => date.toISOString();

export interface CustomerSource {
  customerInfo?: Schemas['CustomerInfo'];
  billingAddress?: Schemas['Address'];
  shipping?: Schemas['Shipping'];
}

/**
 * The customer a payment names, created or updated with the payment's details (the latest payment
 * wins, field by field); undefined when the payment names no merchantCustomerId.
 */
export function customerFromPayment(
  existing: Customer | undefined,
  scope: Scope,
  source: CustomerSource,
  ctx: DomainContext,
): Customer | undefined {
  const merchantCustomerId = source.customerInfo?.merchantCustomerId;
  if (merchantCustomerId === undefined) return undefined;
  // Stored without undefined members (the customer's unit tests hold it).
  const data: Schemas['CustomerData'] = definedMembers({
    ...existing?.data,
    ...source.customerInfo,
    billingAddress: source.billingAddress ?? existing?.data.billingAddress,
    shipping: source.shipping ?? existing?.data.shipping,
  });
  if (existing) return { ...existing, data, updatedAt: iso(ctx.now) };
  return {
    id: ctx.newId('customer'),
    scope,
    merchantCustomerId,
    data,
    createdAt: iso(ctx.now),
    updatedAt: iso(ctx.now),
  };
}

/** PATCH /customers/{id}: the fields sent replace the stored ones; the merchant's customer id stays. */
export function updateCustomer(
  customer: Customer,
  request: Schemas['CustomerUpdateRequest'],
  ctx: DomainContext,
): Customer {
  return {
    ...customer,
    data: definedMembers({ ...customer.data, ...request, merchantCustomerId: customer.merchantCustomerId }),
    updatedAt: iso(ctx.now),
  };
}

export function customerBody(customer: Customer): Schemas['Customer'] {
  return {
    ...customer.data,
    merchantCustomerId: customer.merchantCustomerId,
    id: customer.id,
    creationDate: customer.createdAt,
  };
}

/** The stored method a card pseudo number becomes for a customer. */
export function storedCard(customerId: string, record: PseudoNumberRecord, ctx: DomainContext): StoredPaymentMethod {
  return {
    id: ctx.newId('paymentMethod'),
    scope: record.scope,
    customerId,
    type: 'CARD',
    card: record.card ?? {},
    pseudoNumber: record.pseudoNumber,
    createdAt: iso(ctx.now),
  };
}

export function storedPaymentMethodBody(method: StoredPaymentMethod): Schemas['StoredPaymentMethod'] {
  return {
    id: method.id,
    type: method.type,
    card: method.card,
    pseudoNumber: method.pseudoNumber,
    creationDate: method.createdAt,
  };
}
