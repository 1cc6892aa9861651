// The client SDK against the stateful sandbox, as a merchant integration would use them together:
// every resource method on real state, typed errors from real refusals, listAll over real pages,
// the three credential modes, idempotency keys. Every response is checked against the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../generated/operations.js';
import { createPaymentClient, PaymentApiError, type PaymentClient } from '../../src/client/index.js';
import { checkoutSession, conformingFetch, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let t: TestSandbox;
let client: PaymentClient;
const called = new Set<string>();

beforeAll(async () => {
  t = await startTestSandbox();
  // Records which operation each request addressed, so that the last test can prove that every
  // method of the SDK was exercised against the sandbox.
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname.replace(/^\/api\/v2/, '');
    for (const info of Object.values(operations)) {
      const pattern = new RegExp(`^${info.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (info.method === request.method.toLowerCase() && pattern.test(path)) called.add(info.sdkMethod);
    }
    return conformingFetch(request);
  };
  client = createPaymentClient({
    merchantId: t.merchant.merchantId,
    apiKey: t.merchant.apiKey,
    baseUrl: t.baseUrl,
    fetch: recording,
    maxAttempts: 1,
  });
});
afterAll(async () => {
  await t?.stop();
});

const cof = (type: 'UNSCHEDULED' | 'RECURRING') =>
  type === 'RECURRING'
    ? { type, initialPayment: true, recurring: { frequency: 'MONTHLY' as const } }
    : { type, initialPayment: true, unscheduled: { subType: 'MIT' as const } };

describe('the SDK against the sandbox', () => {
  it('a card payment: create, retrieve, capture in parts, refund, update', async () => {
    const created = await client.payments.create({
      transId: 'SDK-1',
      amount: { value: 2500, currency: 'USD' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    });
    const payId = created.payId;
    expect((await client.payments.retrieve(payId)).state).toBe('AUTHORIZED');
    await client.payments.capture(payId, { transId: 'SDK-1-C1', amount: { value: 1000, currency: 'USD' } });
    await client.payments.capture(payId, { transId: 'SDK-1-C2', amount: { value: 1500, currency: 'USD' } });
    await client.payments.refund(payId, { transId: 'SDK-1-R', amount: { value: 500, currency: 'USD' } });
    const updated = await client.payments.update(payId, { metadata: { order: '42' } });
    expect(updated).toMatchObject({
      state: 'PARTIALLY_REFUNDED',
      capturedAmount: { value: 2500 },
      refundedAmount: { value: 500 },
      metadata: { order: '42' },
    });
    expect((await client.payments.retrieveByTransId('SDK-1')).payId).toBe(payId);
  });

  it('refusals arrive as typed errors: 422 with the operation result, 400 with the fields, 404', async () => {
    const payId = (
      await client.payments.create({
        transId: 'SDK-2',
        amount: { value: 100, currency: 'EUR' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      })
    ).payId;
    const reversal = await client.payments.reverse(payId, { transId: 'SDK-2-V' }).catch((e: unknown) => e);
    expect(reversal).toBeInstanceOf(PaymentApiError);
    expect((reversal as PaymentApiError).status).toBe(422);
    expect((reversal as PaymentApiError).operationResult).toMatchObject({
      payId,
      status: 'FAILED',
      responseCode: '22000004',
    });
    const invalid = await client.payments
      .create({ transId: 'x'.repeat(65), amount: { value: 1, currency: 'EUR' } })
      .catch((e: unknown) => e);
    expect((invalid as PaymentApiError).fieldErrors).toHaveProperty('transId');
    const missing = await client.payments.retrieve('nothere').catch((e: unknown) => e);
    expect((missing as PaymentApiError).status).toBe(404);
    expect((missing as PaymentApiError).traceId).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const decline = await client.payments
      .incrementAuthorization(payId, { transId: 'SDK-2-I', amount: { value: 1, currency: 'EUR' } })
      .catch((e: unknown) => e);
    expect((decline as PaymentApiError).operationResult?.responseCode).toBe('22000002'); // captured already: AUTOMATIC
  });

  it('the same idempotency key replays: one payment, the same answer', async () => {
    const request = {
      transId: 'SDK-3',
      amount: { value: 990, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT' as const, type: 'CARD' as const },
    };
    const a = await client.payments.create(request, { idempotencyKey: 'sdk-order-3' });
    const b = await client.payments.create(request, { idempotencyKey: 'sdk-order-3' });
    expect(b).toEqual(a);
  });

  it('listAll walks real pages: every plan once', async () => {
    for (let i = 0; i < 25; i++) {
      await client.payments.create({
        transId: `SDK-PLAN-${i}`,
        amount: { value: 100 + i, currency: 'EUR' },
        customerInfo: { merchantCustomerId: 'sdk-customer' },
        credentialOnFile: cof('UNSCHEDULED'),
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      });
    }
    const ids: string[] = [];
    for await (const plan of client.paymentPlans.listAll({ MerchantCustomerId: 'sdk-customer' })) ids.push(plan.id!);
    expect(ids).toHaveLength(25);
    expect(new Set(ids).size).toBe(25);
    const first = await client.paymentPlans.list({ MerchantCustomerId: 'sdk-customer', Page: 2 });
    expect(first).toMatchObject({ page: 2, totalNumberOfPages: 2, totalNumberOfItems: 25 });

    const plan = await client.paymentPlans.retrieve(ids[0]!);
    const charge = await client.paymentPlans.charge(plan.id!, { transId: 'SDK-CHARGE-1', amount: { value: 777 } });
    expect(charge).toMatchObject({ paymentPlanId: plan.id, status: 'OK' });
    const payments = [];
    for await (const p of client.paymentPlans.listAllPayments(plan.id!)) payments.push(p);
    expect(payments.map((p) => p.amount?.value)).toContain(777);

    const customer = (await client.customers.list({ MerchantCustomerId: 'sdk-customer' })).data![0]!;
    expect((await client.customers.retrieve(customer.id)).merchantCustomerId).toBe('sdk-customer');
    const plans = [];
    for await (const p of client.paymentPlans.listAllForCustomer(customer.id)) plans.push(p);
    expect(plans).toHaveLength(25);
    const methods = await client.customers.listPaymentMethods(customer.id);
    const method = methods.data![0]!;
    expect((await client.customers.retrievePaymentMethod(customer.id, method.id)).card?.last4Digits).toBe('1111');
    expect(await client.customers.update(customer.id, { lastName: 'Weber' })).toMatchObject({ lastName: 'Weber' });
    await client.customers.deletePaymentMethod(customer.id, method.id);
    await client.customers.delete(customer.id);
  });

  it('OAuth mode, the X-API-Key mode, and the bearer-only intent confirmation', async () => {
    const oauth = createPaymentClient({
      merchantId: t.merchant.merchantId,
      apiKey: t.merchant.apiKey,
      auth: 'oauth',
      baseUrl: t.baseUrl,
      fetch: conformingFetch,
    });
    expect((await oauth.customers.list()).page).toBe(1);
    const keyOnly = createPaymentClient({ apiKey: t.merchant.apiKey, baseUrl: t.baseUrl, fetch: conformingFetch });
    expect((await keyOnly.paymentPlans.list()).page).toBe(1);
    const intent = await client.paymentIntents.create({ transId: 'SDK-PI', amount: { value: 1234, currency: 'EUR' } });
    const confirmed = await client.paymentIntents.confirm(intent.id, { integrationType: 'DIRECT', type: 'CARD' });
    expect(confirmed.status).toBe('OK');
    expect(await client.authorization.createToken({ grant_type: 'client_credentials' })).toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('the other methods: sessions, links, unreferenced refunds, confirmation, services', async () => {
    expect((await client.checkoutSessions.create(checkoutSession('SDK-S')))._links.redirect.href).toContain(
      '/hosted/sessions/',
    );
    expect(
      (await client.paymentLinks.create({ transId: 'SDK-L', amount: { value: 100, currency: 'EUR' } })).status,
    ).toBe('ACTIVE');
    expect(
      (
        await client.refunds.create({
          transId: 'SDK-U',
          amount: { value: 100, currency: 'EUR' },
          paymentMethods: { card: {} },
        })
      ).status,
    ).toBe('OK');
    const klarna = await client.payments.create({
      transId: 'SDK-K',
      amount: { value: 100, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'KLARNA' },
    });
    expect((await client.payments.confirm(klarna.payId, { transId: 'SDK-K-C' })).status).toBe('OK');
    expect((await client.services.checkDccBin({ bin: '450875' })).cardCountry).toBe('GBR');
    expect(
      (await client.services.createDccQuote({ bin: '450875', amount: { value: 1000, currency: 'EUR' } }))
        .convertedAmount?.currency,
    ).toBe('GBP');
    expect(
      (await client.services.checkDuplication({ transId: 'SDK-K', amount: { value: 100, currency: 'EUR' } })).duplicate,
    ).toBe(true);
    const pseudo = await client.services.createPseudoNumber({ cardNumber: '4242424242424242' });
    expect((await client.services.checkAccountUpdates({ pseudoNumber: pseudo.pseudoNumber })).result).toBe('NO_CHANGE');
  });

  it('every method of the SDK was called against the sandbox', () => {
    expect([...called].sort()).toEqual(
      Object.values(operations)
        .map((o) => o.sdkMethod)
        .sort(),
    );
  });
});
