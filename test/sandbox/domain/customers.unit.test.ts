// Customers and stored payment methods (sandbox/domain/customers.ts) without HTTP: a payment naming a
// merchantCustomerId creates the customer or brings it up to date field by field, PATCH replaces the
// fields sent but never the merchant's id, and a stored card is brand, last four and expiry under a
// pseudo number, never the number.
import { describe, expect, it } from 'vitest';
import {
  customerBody,
  customerFromPayment,
  storedCard,
  storedPaymentMethodBody,
  updateCustomer,
} from '../../../sandbox/domain/customers.js';
import type { Schemas } from '../../../sandbox/domain/types.js';
import { DAY, pseudoNumberOf, SCOPE, T0, type TestDomain, testDomain } from '../../support/domain.js';

const ADDRESS = { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DEU' } as Schemas['Address'];
const OTHER_ADDRESS = { street: 'Ring 2', city: 'Köln', postalCode: '50667', country: 'DEU' } as Schemas['Address'];
const SHIPPING = { address: ADDRESS } as Schemas['Shipping'];

/** The customer a payment of SCOPE makes when it names no customer the merchant has yet. */
const newCustomer = (payment: Parameters<typeof customerFromPayment>[2], ctx: TestDomain) =>
  customerFromPayment(undefined, SCOPE, payment, ctx);

describe('customerFromPayment', () => {
  it('none without a merchantCustomerId', () => {
    const ctx = testDomain();
    expect(newCustomer({}, ctx)).toBeUndefined();
    expect(newCustomer({ customerInfo: { firstName: 'Lena' }, billingAddress: ADDRESS }, ctx)).toBeUndefined();
    expect(ctx.issued('customer')).toBe(0);
  });

  it("a new customer: the payment's customer details, billing address and shipping, created now", () => {
    const ctx = testDomain();
    const c = newCustomer(
      {
        customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena', email: 'lena@example.com' },
        billingAddress: ADDRESS,
        shipping: SHIPPING,
      },
      ctx,
    );
    expect(c).toEqual({
      id: 'cus_0001',
      scope: SCOPE,
      merchantCustomerId: 'm-1',
      data: {
        merchantCustomerId: 'm-1',
        firstName: 'Lena',
        email: 'lena@example.com',
        billingAddress: ADDRESS,
        shipping: SHIPPING,
      },
      createdAt: T0,
      updatedAt: T0,
    });
  });

  it('stores no undefined field', () => {
    const c = newCustomer({ customerInfo: { merchantCustomerId: 'm-1', lastName: undefined } }, testDomain())!;
    expect(Object.entries(c.data).filter(([, v]) => v === undefined)).toEqual([]);
    expect(c.data).toEqual({ merchantCustomerId: 'm-1' });
  });

  it('a later payment brings the customer up to date field by field; what it does not send stays', () => {
    const ctx = testDomain();
    const first = newCustomer(
      {
        customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena', lastName: 'Schmidt' },
        billingAddress: ADDRESS,
        shipping: SHIPPING,
      },
      ctx,
    )!;
    ctx.advance(DAY);
    const second = customerFromPayment(
      first,
      SCOPE,
      {
        customerInfo: { merchantCustomerId: 'm-1', lastName: 'Weber', email: 'l@example.com' },
        billingAddress: OTHER_ADDRESS,
      },
      ctx,
    )!;
    expect(second).toEqual({
      ...first,
      data: {
        merchantCustomerId: 'm-1',
        firstName: 'Lena',
        lastName: 'Weber',
        email: 'l@example.com',
        billingAddress: OTHER_ADDRESS,
        shipping: SHIPPING,
      },
      updatedAt: ctx.now.toISOString(),
    });
    expect(second.id).toBe(first.id);
    expect(second.createdAt).toBe(T0);
    expect(ctx.issued('customer')).toBe(1);
  });
});

describe('updateCustomer', () => {
  it("replaces the fields sent, keeps the others and the merchant's customer id", () => {
    const ctx = testDomain();
    const c = newCustomer(
      { customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena', lastName: 'Schmidt' }, billingAddress: ADDRESS },
      ctx,
    )!;
    ctx.advance(1000);
    const updated = updateCustomer(
      c,
      { lastName: 'Weber', phone: { countryCode: '+49', number: '301234567' }, merchantCustomerId: 'hijack' },
      ctx,
    );
    expect(updated).toEqual({
      ...c,
      data: {
        merchantCustomerId: 'm-1',
        firstName: 'Lena',
        lastName: 'Weber',
        phone: { countryCode: '+49', number: '301234567' },
        billingAddress: ADDRESS,
      },
      updatedAt: ctx.now.toISOString(),
    });
    expect(updated.merchantCustomerId).toBe('m-1');
  });
});

describe('customerBody', () => {
  it("is the customer's data with its ids and creation date", () => {
    const ctx = testDomain();
    const c = newCustomer({ customerInfo: { merchantCustomerId: 'm-1', firstName: 'Lena' } }, ctx)!;
    expect(customerBody(c)).toEqual({ merchantCustomerId: 'm-1', firstName: 'Lena', id: 'cus_0001', creationDate: T0 });
  });
});

describe('storedCard', () => {
  it('is the card of a pseudo number record for a customer: brand, last four, expiry, never the number', () => {
    const ctx = testDomain();
    const record = pseudoNumberOf('5555555555554444', ctx, { expiryDate: '203001', cardHolderName: 'Lena' });
    ctx.advance(1000);
    const method = storedCard('cus_1', record, ctx);
    expect(method).toEqual({
      id: 'pm_0001',
      scope: SCOPE,
      customerId: 'cus_1',
      type: 'CARD',
      card: { brand: 'MASTERCARD', last4Digits: '4444', expiryDate: '203001', cardHolderName: 'Lena' },
      pseudoNumber: record.pseudoNumber,
      createdAt: ctx.now.toISOString(),
    });
    const body = storedPaymentMethodBody(method);
    expect(body).toEqual({
      id: 'pm_0001',
      type: 'CARD',
      card: method.card,
      pseudoNumber: record.pseudoNumber,
      creationDate: ctx.now.toISOString(),
    });
    expect(JSON.stringify([record, method, body])).not.toContain('5555555555554444');
  });

  it('a record without card data gives an empty card summary', () => {
    const ctx = testDomain();
    const iban = pseudoNumberOf('DE89370400440532013000', ctx, { type: 'IBAN' });
    expect(storedCard('cus_1', iban, ctx).card).toEqual({});
  });
});
