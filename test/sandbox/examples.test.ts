// The contract's examples as a merchant's data (sandbox/app/seed.ts) (the demo merchant: on SQLite and on PostgreSQL):
// the admin API gives a merchant the objects the examples name, under the examples' own ids (read
// here from the bundle too, never copied), each in the state its operation needs; a second time,
// or on colliding data, nothing is made (409); a reset brings them back to the scopes that had
// them; the demo merchant has them from its first start on a database, and keeps its data on the
// next; examples that name one payment for two states are the contract's error.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { giveExamples } from '../../sandbox/app/seed.js';
import { createContract } from '../../sandbox/contract/contract.js';
import { loadAdminDocument } from '../../sandbox/documents.js';
import { ADMIN_PREFIX } from '../../sandbox/http/admin.js';
import { startSandbox } from '../../sandbox/server.js';
import { type JsonObject, operationById, type ParameterObject } from '../../tooling/openapi/walker.js';
import { ISOLATED_ENV } from '../../tooling/process/sandbox-command.js';
import { checkResponse, matchOperation } from '../support/contract-check.js';
import { databases, HTTP_STORES, STORES } from '../support/postgres.js';
import { conformingFetch, newMerchant, sandboxContract, sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();
const examples = () => sandboxContract().examples;
const pathId = (operationId: Parameters<ReturnType<typeof examples>['pathParameter']>[0], name = 'id') =>
  examples().pathParameter(operationId, name);

describe.each(HTTP_STORES)("the contract's examples on %s", (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

  /** An admin call, its response held to the admin document. */
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sandbox().url}${ADMIN_PREFIX}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sandbox().sandbox.adminKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const document = loadAdminDocument();
    const match = matchOperation(document, method, `${ADMIN_PREFIX}${path}`)!;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    expect(checkResponse(document, match.operation.id, response.status, headers, text)).toEqual([]);
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const get = async (path: string, who = sandbox().merchant, root: 'test' | 'live' = 'test') => {
    const r = await sandbox().call('GET', path, { who, root });
    return r;
  };
  const seed = (merchantId: string, environment?: 'test' | 'live') =>
    admin('POST', `/merchants/${merchantId}/examples`, environment ? { environment } : undefined);

  it('gives a merchant every object the examples name, under its id, in the state its operation needs', async () => {
    const made = await seed(sandbox().merchant.merchantId);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ merchantId: sandbox().merchant.merchantId, environment: 'test' });
    const ids = new Set((made.body.objects as Array<{ id: string }>).map((o) => o.id));
    const kinds = new Set((made.body.objects as Array<{ kind: string }>).map((o) => o.kind));
    expect([...kinds].sort()).toEqual([
      'customer',
      'payment',
      'paymentIntent',
      'paymentLink',
      'paymentMethod',
      'paymentPlan',
      'pseudoNumber',
    ]);

    const shown = examples().response<{ payId: string; state: string }>('getPaymentByPayId', 200);
    const state = async (payId: string) => (await get(`/payments/getByPayId/${payId}`)).body.state;
    expect(await state(shown.payId)).toBe(shown.state);
    expect((await get(`/payments/getByTransId/${pathId('getPaymentByTransId')}`)).status).toBe(200);
    for (const operationId of ['capturePayment', 'reversePayment', 'incrementAuthorization'] as const)
      expect(await state(pathId(operationId)), operationId).toBe('AUTHORIZED');
    expect(await state(pathId('confirmPayment'))).toBe('PENDING_CONFIRMATION');
    expect(await state(pathId('refundPayment'))).toBe('CAPTURED');
    for (const operationId of ['capturePayment', 'confirmPayment', 'refundPayment', 'updatePayment'] as const)
      expect(ids.has(pathId(operationId)), operationId).toBe(true);

    const plan = await get(`/payment-plans/${pathId('getPaymentPlan', 'paymentPlanId')}`);
    const { id, planStatus, paymentPlanType, merchantCustomerId } = examples().response<Record<string, unknown>>(
      'getPaymentPlan',
      200,
    );
    expect(plan.body).toMatchObject({ id, planStatus, paymentPlanType, merchantCustomerId });
    const planPayments = await get(`/payment-plans/${pathId('listPaymentPlanPayments', 'paymentPlanId')}/payments`);
    expect(planPayments.body.data.map((p: { payId: string }) => p.payId)).toEqual(
      examples()
        .response<{ data: Array<{ payId: string }> }>('listPaymentPlanPayments', 200)
        .data.map((p) => p.payId),
    );
    const charged = await get(`/payment-plans/${pathId('chargePaymentPlan', 'paymentPlanId')}`);
    expect(charged.body).toMatchObject({ paymentPlanType: 'UNSCHEDULED_MIT', planStatus: 'ACTIVE' });

    const customerId = pathId('getCustomer');
    const customer = examples().response<Record<string, unknown>>('getCustomer', 200);
    const { creationDate: _, ...described } = customer;
    expect((await get(`/customers/${customerId}`)).body).toMatchObject(described);
    const methodId = pathId('getCustomerPaymentMethod', 'paymentMethodId');
    const method = await get(
      `/customers/${pathId('getCustomerPaymentMethod', 'customerId')}/paymentMethods/${methodId}`,
    );
    expect(method.body).toMatchObject({
      id: methodId,
      pseudoNumber: examples().response<{ pseudoNumber: string }>('getCustomerPaymentMethod', 200).pseudoNumber,
    });
    for (const id of [pathId('confirmPaymentIntent'), customerId, methodId]) expect(ids.has(id), id).toBe(true);
    expect(ids.has(examples().response<{ id: string }>('createPaymentLink', 201).id)).toBe(true);

    // The pseudo numbers of the tokenization examples: the same number answers with the example's token.
    const token = await sandbox().call('POST', '/services/createPseudoNumber', {
      body: examples().request('createPseudoNumber'),
    });
    expect(token.body.pseudoNumber).toBe(
      examples().response<{ pseudoNumber: string }>('createPseudoNumber', 200).pseudoNumber,
    );
  });

  it('a second time, on colliding data or for an unknown merchant: nothing is made (409, 404)', async () => {
    const before = (await get('/customers')).body.totalNumberOfItems;
    const again = await seed(sandbox().merchant.merchantId);
    expect(again.status).toBe(409);
    expect(again.body.type).toMatch(/sandbox\/examples-conflict$/);
    expect(again.body.detail).toMatch(/reset the scope first/);
    expect((await get('/customers')).body.totalNumberOfItems).toBe(before);
    expect((await seed('nobody')).status).toBe(404);
    // Another merchant's data, whose transId the examples would take: a conflict, nothing made.
    const other = sandbox().other;
    const taken = await sandbox().call('POST', '/payments', {
      who: other,
      body: { transId: pathId('getPaymentByTransId'), amount: { value: 100, currency: 'EUR' } },
    });
    expect(taken.status).toBe(201);
    expect((await seed(other.merchantId)).status).toBe(409);
    expect((await get(`/payments/getByPayId/${pathId('capturePayment')}`, other)).status).toBe(404);
  });

  it('a reset gives them again only when asked (examples: true), the changes undone; otherwise the scope stays empty', async () => {
    const merchant = sandbox().merchant;
    const captureId = pathId('capturePayment');
    const capture = await sandbox().call('POST', `/payments/${captureId}/captures`, {
      body: examples().request('capturePayment'),
    });
    expect(capture.status).toBe(200);
    expect((await get(`/customers/${pathId('deleteCustomer')}`)).status).toBe(200);
    expect((await sandbox().call('DELETE', `/customers/${pathId('deleteCustomer')}`)).status).toBe(204);
    const own = await sandbox().call('POST', '/payments', {
      body: { transId: `OWN-${Date.now()}`, amount: { value: 100, currency: 'EUR' } },
    });

    const reset = await admin('POST', '/reset', {
      merchantId: merchant.merchantId,
      environment: 'test',
      examples: true,
    });
    expect(reset.status).toBe(200);
    expect(reset.body.examples).toEqual([{ merchantId: merchant.merchantId, environment: 'test' }]);
    expect((await get(`/payments/getByPayId/${captureId}`)).body.state).toBe('AUTHORIZED');
    expect((await get(`/customers/${pathId('deleteCustomer')}`)).status).toBe(200);
    expect((await get(`/payments/getByPayId/${own.body.payId}`)).status).toBe(404);
    // Without `examples`, a reset of a scope that had them leaves it empty: seeding is never sticky.
    const plain = await admin('POST', '/reset', { merchantId: merchant.merchantId, environment: 'test' });
    expect(plain.body.examples).toEqual([]);
    expect((await get(`/payments/getByPayId/${captureId}`)).status).toBe(404);
    expect((await get('/customers')).body.totalNumberOfItems).toBe(0);
    expect((await seed(merchant.merchantId)).status).toBe(201);
  });

  it('the live root gets its own, on request', async () => {
    expect((await get(`/payments/getByPayId/${pathId('refundPayment')}`, sandbox().merchant, 'live')).status).toBe(404);
    expect((await seed(sandbox().merchant.merchantId, 'live')).status).toBe(201);
    expect((await get(`/payments/getByPayId/${pathId('refundPayment')}`, sandbox().merchant, 'live')).status).toBe(200);
    const live = await admin('POST', '/reset', {
      merchantId: sandbox().merchant.merchantId,
      environment: 'live',
      examples: true,
    });
    expect(live.body.examples).toEqual([{ merchantId: sandbox().merchant.merchantId, environment: 'live' }]);
    expect((await get(`/payments/getByPayId/${pathId('refundPayment')}`, sandbox().merchant, 'live')).status).toBe(200);
  });

  it("examples that name one payment for two states are the contract's error, and nothing is made", async () => {
    const document = structuredClone(sandboxContract().document) as JsonObject;
    const capture = operationById(document, 'capturePayment');
    const parameter: ParameterObject = {
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
      example: pathId('refundPayment'),
    };
    capture.pathItem.parameters = [parameter];
    const contract = createContract(document as Parameters<typeof createContract>[0]);
    const merchant = newMerchant('twice');
    const t = sandbox().sandbox;
    await t.store.merchants.upsert({
      merchantId: merchant.merchantId,
      apiKeyHash: 'x',
      sealedWebhookSecrets: 'w',
      createdAt: new Date().toISOString(),
    });
    const deps = { examples: contract.examples, tables: contract.tables, fingerprint: (text: string) => text };
    await expect(giveExamples(t.store, deps, merchant.merchantId, 'test', new Date())).rejects.toThrow(
      /capturePayment names payment \w+, which is CAPTURED \(it needs AUTHORIZED\): give it a payment of its own/,
    );
    const shown = examples().response<{ payId: string }>('getPaymentByPayId', 200);
    expect(await t.store.paymentDocument({ merchantId: merchant.merchantId, environment: 'test' }, shown.payId)).toBe(
      undefined,
    );
  });
});

describe.each(STORES)('the demo merchant on %s', (kind) => {
  it('has the examples from its first start on a database, and keeps its data on the next', async () => {
    const dir = kind === 'sqlite' ? await mkdtemp(join(tmpdir(), 'sandbox-examples-')) : undefined;
    const database = dir ? join(dir, 'sandbox.db') : await dbs.database('postgres');
    const start = () =>
      startSandbox({
        port: 0,
        database,
        secret: ISOLATED_ENV.SANDBOX_SECRET,
        demo: true,
        contract: sandboxContract(),
      }).then((sandbox) => ({ sandbox, demo: sandbox.demo! }));
    const call = (
      s: { sandbox: Awaited<ReturnType<typeof startSandbox>>; demo: { merchantId: string; apiKey: string } },
      method: string,
      path: string,
      body?: unknown,
    ) =>
      conformingFetch(`${s.sandbox.url}/api/v2${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${s.demo.merchantId}:${s.demo.apiKey}`).toString('base64')}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const captureId = pathId('capturePayment');
    const first = await start();
    try {
      expect(first.sandbox.examples).toEqual(['demo_merchant']);
      const capture = await call(
        first,
        'POST',
        `/payments/${captureId}/captures`,
        examples().request('capturePayment'),
      );
      expect(capture.status).toBe(200);
    } finally {
      await first.sandbox.close();
    }
    const second = await start();
    try {
      expect(second.sandbox.examples).toEqual([]);
      const details = await call(second, 'GET', `/payments/getByPayId/${captureId}`);
      expect(((await details.json()) as { state: string }).state).toBe('CAPTURED');
    } finally {
      await second.sandbox.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
