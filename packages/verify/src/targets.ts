// For each operation, what a valid call of it needs besides its example: the object its path names
// (made by the fixtures, as the contract's links chain them) and the members of its example that
// must name this run's objects (a pseudo number the run got, a transId it used). One table, shared
// by the checks that call an operation as a client would.
import type { Merchant } from './client.js';
import type { RunContext } from './context.js';
import { FixtureError, type Fixtures } from './fixtures.js';

export interface Target {
  params?: Record<string, string>;
  /** Members of the example replaced (top-level names; nested with a dot path). */
  set?: Record<string, unknown>;
  query?: Record<string, string | number>;
}

/** An id a fixture should have: a FixtureError naming it when the server's answers did not give it. */
function need(value: string | undefined, what: string): string {
  if (value === undefined) throw new FixtureError(what, undefined);
  return value;
}

type TargetMaker = (fx: Fixtures, merchant: Merchant, ctx: RunContext) => Promise<Target>;

const pseudoNumberOf = async (ctx: RunContext, merchant: Merchant): Promise<string | undefined> => {
  const answer = await ctx.client.send({
    operationId: 'createPseudoNumber',
    title: 'a pseudo number for a test card',
    auth: { scheme: 'basic', merchant },
    body: { cardNumber: '4111111111111111' },
  });
  return answer.json?.pseudoNumber ?? answer.json?.pseudoCardNumber;
};

export const TARGETS: Record<string, TargetMaker> = {
  confirmPayment: async (fx, merchant) => {
    const p = await fx.klarnaPayment(merchant);
    return { params: { id: p.payId }, set: { transId: p.transId } };
  },
  incrementAuthorization: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).payId } }),
  reversePayment: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).payId } }),
  capturePayment: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).payId } }),
  refundPayment: async (fx, merchant) => ({
    params: { id: (await fx.cardPayment({ merchant, capture: 'AUTOMATIC' })).payId },
    set: { 'paymentMethods.card': undefined },
  }),
  getPaymentByPayId: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).payId } }),
  getPaymentByTransId: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).transId } }),
  updatePayment: async (fx, merchant) => ({ params: { id: (await fx.cardPayment({ merchant })).payId } }),
  confirmPaymentIntent: async (fx, merchant) => ({ params: { id: (await fx.paymentIntent(merchant)).id } }),
  getPaymentPlan: async (fx, merchant) => ({
    params: {
      paymentPlanId: need((await fx.customer(merchant)).planId, 'a recurring plan (its payment has no paymentPlanId)'),
    },
  }),
  listPaymentPlanPayments: async (fx, merchant) => ({
    params: {
      paymentPlanId: need((await fx.customer(merchant)).planId, 'a recurring plan (its payment has no paymentPlanId)'),
    },
  }),
  chargePaymentPlan: async (fx, merchant) => ({
    params: {
      paymentPlanId: need(
        (await fx.customer(merchant)).unscheduledPlanId,
        'an unscheduled plan (its payment has no paymentPlanId)',
      ),
    },
  }),
  listPaymentPlans: async (fx, merchant) => ({
    query: { MerchantCustomerId: (await fx.customer(merchant)).merchantCustomerId },
  }),
  listCustomerPaymentPlans: async (fx, merchant) => ({
    params: { customerId: (await fx.customer(merchant)).customerId },
  }),
  listCustomers: async (fx, merchant) => ({
    query: { MerchantCustomerId: (await fx.customer(merchant)).merchantCustomerId },
  }),
  getCustomer: async (fx, merchant) => ({ params: { id: (await fx.customer(merchant)).customerId } }),
  updateCustomer: async (fx, merchant) => ({ params: { id: (await fx.customer(merchant)).customerId } }),
  deleteCustomer: async (fx, merchant) => ({
    params: { id: (await fx.customer(merchant, `del-${Date.now()}`)).customerId },
  }),
  listCustomerPaymentMethods: async (fx, merchant) => ({ params: { id: (await fx.customer(merchant)).customerId } }),
  getCustomerPaymentMethod: async (fx, merchant) => {
    const c = await fx.customer(merchant);
    return {
      params: {
        customerId: c.customerId,
        paymentMethodId: need(c.paymentMethodId, 'a stored card (the customer lists no payment method)'),
      },
    };
  },
  deleteCustomerPaymentMethod: async (fx, merchant) => {
    const c = await fx.customer(merchant, `pm-${Date.now()}`);
    return {
      params: {
        customerId: c.customerId,
        paymentMethodId: need(c.paymentMethodId, 'a stored card (the customer lists no payment method)'),
      },
    };
  },
  checkDuplicatePayment: async (fx, merchant) => {
    const p = await fx.cardPayment({ merchant });
    return { set: { transId: p.transId, merchantCustomerId: (await fx.customer(merchant)).merchantCustomerId } };
  },
  checkAccountUpdates: async (_fx, merchant, ctx) => {
    const pseudoNumber = await pseudoNumberOf(ctx, merchant);
    return pseudoNumber ? { set: { pseudoNumber } } : {};
  },
  createUnreferencedRefund: async (_fx, merchant, ctx) => {
    const pseudoNumber = await pseudoNumberOf(ctx, merchant);
    return pseudoNumber ? { set: { 'paymentMethods.card.pseudoCardNumber': pseudoNumber } } : {};
  },
  createPaymentIntent: async (fx, merchant) => ({
    set: { 'customerInfo.merchantCustomerId': (await fx.customer(merchant)).merchantCustomerId },
  }),
};

/** The target of an operation for a merchant (nothing to add when the table has no entry). */
export async function targetOf(
  operationId: string,
  fx: Fixtures,
  merchant: Merchant,
  ctx: RunContext,
): Promise<Target> {
  const maker = TARGETS[operationId];
  return maker ? maker(fx, merchant, ctx) : {};
}
