// Type tests of the client SDK, compiled by `tsc -p test/sdk/types` (test/sdk/types.test.ts).
// Every `@ts-expect-error` must meet an error: an unused one is itself an error, so each line below
// proves that the types reject that mistake. Nothing here runs.

import type { Resources as DocumentedResources } from '../../../generated/resources.js';
import type {
  CheckoutSessionCreated,
  CheckoutSessionRequest,
  Customer,
  OperationResult,
  PaymentCreated,
  PaymentDetails,
  PaymentPlanListItem,
  PaymentPlanPage,
  TokenResponse,
} from '../../../generated/types.js';
import {
  createPaymentClient,
  type Resources as DerivedResources,
  PaymentApiError,
  type PaymentClient,
  type SuccessBody,
} from '../../../src/client/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

declare const client: PaymentClient;
const amount = { value: 11_900, currency: 'EUR' };
const urls = {
  return: 'https://shop.example/ok',
  cancel: 'https://shop.example/cancel',
  webhook: 'https://shop.example/hook',
};
const session: CheckoutSessionRequest = { transId: 'ORD-1', amount, urls };

export async function positive(): Promise<void> {
  // Return types are the success response bodies of the contract.
  const captured = await client.payments.capture('pay-1', { transId: 'ORD-1', amount });
  expectType<Equal<typeof captured, OperationResult>>();
  const created = await client.payments.create(
    { transId: 'ORD-1', amount, channel: 'ECOM', captureMethod: { type: 'MANUAL' } },
    { idempotencyKey: 'k-1' },
  );
  expectType<Equal<typeof created, PaymentCreated>>();
  expectType<Equal<Awaited<ReturnType<typeof client.checkoutSessions.create>>, CheckoutSessionCreated>>();
  expectType<Equal<Awaited<ReturnType<typeof client.payments.retrieve>>, PaymentDetails>>();
  expectType<Equal<Awaited<ReturnType<typeof client.paymentPlans.list>>, PaymentPlanPage>>();
  expectType<Equal<Awaited<ReturnType<typeof client.authorization.createToken>>, TokenResponse>>();
  expectType<Equal<Awaited<ReturnType<typeof client.customers.delete>>, undefined>>();
  expectType<Equal<SuccessBody<'getCustomer'>, Customer>>();

  // Path parameters in order, then the body, then the query, then per-call options.
  await client.customers.retrievePaymentMethod('cus_1', 'pm_1', {
    timeoutMs: 5_000,
    signal: AbortSignal.timeout(10_000),
  });
  await client.paymentPlans.list({ PlanStatus: 'ACTIVE', Page: 2 }, { maxAttempts: 1 });
  await client.paymentPlans.list();
  await client.checkoutSessions.create(session, { idempotencyKey: 'order-1', headers: { 'X-Request-Id': 'r-1' } });
  await client.authorization.createToken({ grant_type: 'client_credentials' });

  // listAll companions yield the items of the pages.
  for await (const plan of client.paymentPlans.listAll({ PlanType: 'RECURRING' })) {
    expectType<Equal<typeof plan, PaymentPlanListItem>>();
  }
  for await (const customer of client.customers.listAll())
    expectType<Equal<typeof customer, NonNullable<SuccessBody<'listCustomers'>['data']>[number]>>();

  // The raw openapi-fetch client is typed by `paths`.
  const { data } = await client.raw.GET('/payment-plans/{paymentPlanId}', {
    params: { path: { paymentPlanId: 'pp_1' } },
  });
  const plan: SuccessBody<'getPaymentPlan'> | undefined = data;
  void plan;

  try {
    await client.payments.refund('pay-1', { transId: 'ORD-1-R', amount });
  } catch (e) {
    if (e instanceof PaymentApiError) {
      const category: string | undefined = e.operationResult?.paymentMethods?.payPal?.providerDeclineCategory;
      const status: number | string | undefined = e.problem?.status; // a string in payment plan problems
      const messages: string[] | undefined = e.fieldErrors['amount.value'];
      void [category, status, messages, e.traceId];
    }
  }
}

export async function negative(): Promise<void> {
  // @ts-expect-error transId is required in createCheckoutSession
  await client.checkoutSessions.create({ amount, urls });
  // @ts-expect-error amount.currency is required
  await client.checkoutSessions.create({ ...session, amount: { value: 100 } });
  // @ts-expect-error amount.value is an integer number, not a string
  await client.payments.capture('pay-1', { transId: 'ORD-1', amount: { value: '100', currency: 'EUR' } });
  // @ts-expect-error channel 'WEB' is not in the enum (ECOM, MOTO, APP, PAYBYLINK, POS)
  await client.payments.create({ transId: 'ORD-1', amount, channel: 'WEB' });
  // @ts-expect-error captureMethod type 'LATER' is not in the enum (AUTOMATIC, MANUAL, DELAYED)
  await client.checkoutSessions.create({ ...session, captureMethod: { type: 'LATER' } });
  // @ts-expect-error grant_type is the literal client_credentials
  await client.authorization.createToken({ grant_type: 'password' });
  // @ts-expect-error the path parameter is missing
  await client.customers.retrievePaymentMethod('cus_1');
  // @ts-expect-error the body is required
  await client.payments.capture('pay-1');
  // @ts-expect-error a plan status filter outside the enum
  await client.paymentPlans.list({ PlanStatus: 'PAUSED' });
  // @ts-expect-error Page is walked by listAll, not a filter
  client.paymentPlans.listAll({ Page: 2 });
  // @ts-expect-error capture accepts no Idempotency-Key (and is never retried)
  await client.payments.capture('pay-1', { transId: 'ORD-1', amount }, { idempotencyKey: 'k' });
  // @ts-expect-error no such operation
  await client.payments.archive('pay-1');
  // @ts-expect-error no listAll for an operation without pagination
  client.payments.retrieveAll;
  // @ts-expect-error the raw client knows the paths of the contract
  await client.raw.GET('/payments/{id}/history', { params: { path: { id: 'x' } } });
  // @ts-expect-error credentials are merchantId + apiKey or apiKey alone
  createPaymentClient({ merchantId: 'm' });
  // @ts-expect-error the environments are test and live
  createPaymentClient({ apiKey: 'k', environment: 'staging' });
}

// The documented signatures (generated/resources.ts, what an editor shows) are the derived ones
// (src/client/types.ts, from openapi-typescript's `paths`): every method of every resource, both ways.
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type EveryLeafTrue<T> = T extends true
  ? true
  : T extends false
    ? false
    : { [K in keyof T]-?: EveryLeafTrue<T[K]> }[keyof T] extends true
      ? true
      : false;
type SameSignatures = {
  [R in keyof DerivedResources]: R extends keyof DocumentedResources
    ? {
        [M in keyof DerivedResources[R]]: M extends keyof DocumentedResources[R]
          ? MutuallyAssignable<DocumentedResources[R][M], DerivedResources[R][M]>
          : false;
      }
    : false;
};
expectType<EveryLeafTrue<SameSignatures>>();
expectType<Equal<keyof DocumentedResources, keyof DerivedResources>>();
expectType<Equal<keyof DocumentedResources['paymentPlans'], keyof DerivedResources['paymentPlans']>>();
// The check can fail: two different methods are not the same signature.
// @ts-expect-error capture is not retrieve
expectType<MutuallyAssignable<DocumentedResources['payments']['capture'], DerivedResources['payments']['retrieve']>>();
type PageWalkers = MutuallyAssignable<
  DocumentedResources['paymentPlans']['listAll'],
  DerivedResources['customers']['listAll']
>;
// @ts-expect-error a documented list is not another list's page walker
expectType<PageWalkers>();
