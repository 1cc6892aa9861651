// Data files on the sandbox (SQLite in memory), through the Node API of @payment-service/sandbox
// (connectSandbox, whose admin answers are held to the admin document here) and the CLI: the example
// file (sandbox/admin/examples/data.yaml) loaded into a new merchant and read back through the
// merchant API, state by state and amount by amount; a bad file refused with its faults at their
// lines, and nothing written; a file whose ids the scope holds refused the same way; a reset that
// gives the file again; and the in-process sandbox taking a file as an object.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { connectSandbox, createSandbox, SandboxAdminError } from '../../packages/sandbox/src/index.js';
import { runCli } from '../../sandbox/cli/index.js';
import { loadAdminDocument } from '../../sandbox/documents.js';
import { ADMIN_PREFIX } from '../../sandbox/http/admin.js';
import { checkResponse, matchOperation } from '../support/contract-check.js';
import { callSandbox, sandboxPerSuite } from '../support/sandbox.js';

const EXAMPLE = join(REPO_ROOT, 'sandbox', 'admin', 'examples', 'data.yaml');
/** `file:line:column` of the field `key: value` in the example file (the column of its key). */
function inExample(field: string): string {
  const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(field));
  return `${EXAMPLE}:${index + 1}:${lines[index]!.indexOf(field) + 1}`;
}

/** fetch, with every admin answer held to the admin document. */
async function adminChecked(request: Request): Promise<Response> {
  const response = await fetch(request);
  const match = matchOperation(loadAdminDocument(), request.method, new URL(request.url).pathname);
  if (match) {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    const violations = checkResponse(
      loadAdminDocument(),
      match.operation.id,
      response.status,
      headers,
      await response.clone().text(),
    );
    if (violations.length > 0)
      throw new Error(`an admin answer breaks the admin document:\n  ${violations.join('\n  ')}`);
  }
  return response;
}

const scratch = mkdtempSync(join(tmpdir(), 'data-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A data file of `text` in a scratch folder: its path. */
function dataFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('data files on the HTTP sandbox (SQLite in memory)', () => {
  const sandbox = sandboxPerSuite(async () => ':memory:');
  const admin = () =>
    connectSandbox({ origin: sandbox().url, adminKey: sandbox().sandbox.adminKey, fetch: adminChecked });
  /** A merchant's GET on the test root, held to the contract. */
  const read = (merchant: { merchantId: string; apiKey: string }, path: string) =>
    callSandbox(
      sandbox().url,
      `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`,
      'GET',
      path,
    );
  /** The rows a merchant's scopes hold, by kind (a snapshot counts them). */
  const rows = async (merchantId: string) => {
    const response = await adminChecked(
      new Request(`${sandbox().url}${ADMIN_PREFIX}/snapshots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox().sandbox.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ merchantId }),
      }),
    );
    return ((await response.json()) as { rows: Record<string, number> }).rows;
  };
  const merchantIds = async () => {
    const response = await adminChecked(
      new Request(`${sandbox().url}${ADMIN_PREFIX}/merchants`, {
        headers: { authorization: `Bearer ${sandbox().sandbox.adminKey}` },
      }),
    );
    return ((await response.json()) as { data: Array<{ merchantId: string }> }).data.map((m) => m.merchantId);
  };

  it('creates a merchant with the example file: its payments in their states and amounts, customers, saved cards and plans', async () => {
    const merchant = await admin().createMerchant({ data: EXAMPLE });
    const payment = async (transId: string) => {
      const answer = await read(merchant, `/payments/getByTransId/${transId}`);
      expect(answer.status, transId).toBe(200);
      const p = answer.body;
      return {
        state: p.state,
        amounts: [p.authorizedAmount.value, p.capturedAmount.value, p.refundedAmount.value, p.reversedAmount.value],
        currency: p.amount.currency,
        responseCode: p.responseCode,
        operations: p.operations.map((op: { type: string }) => op.type),
      };
    };
    expect(await payment('ORDER-2001')).toMatchObject({
      state: 'AUTHORIZED',
      amounts: [2500, 0, 0, 0],
      operations: ['AUTHORIZATION'],
    });
    expect(await payment('ORDER-2002')).toMatchObject({ state: 'PARTIALLY_CAPTURED', amounts: [4000, 1500, 0, 0] });
    expect(await payment('ORDER-2003')).toMatchObject({ state: 'CAPTURED', amounts: [11900, 11900, 0, 0] });
    expect(await payment('ORDER-2004')).toMatchObject({
      state: 'PARTIALLY_REFUNDED',
      amounts: [8000, 8000, 2000, 0],
      currency: 'USD',
      operations: ['AUTHORIZATION', 'CAPTURE', 'REFUND'],
    });
    expect(await payment('ORDER-2005')).toMatchObject({ state: 'REFUNDED', amounts: [3000, 3000, 3000, 0] });
    expect(await payment('ORDER-2006')).toMatchObject({ state: 'REVERSED', amounts: [990, 0, 0, 990] });
    expect(await payment('ORDER-2007')).toMatchObject({
      state: 'FAILED',
      amounts: [0, 0, 0, 0],
      responseCode: '21000051',
    });
    expect(await payment('ORDER-2008')).toMatchObject({ state: 'PENDING_CONFIRMATION', operations: ['CREATION'] });
    expect(await payment('ORDER-2009')).toMatchObject({
      state: 'FAILED',
      responseCode: '22000013',
      operations: ['CREATION', 'CONFIRMATION'],
    });
    expect((await read(merchant, '/payments/getByTransId/ORDER-2003')).body.metadata).toEqual({
      shopOrderId: '100045',
    });

    const lena = await read(merchant, '/customers/cus_lena');
    expect(lena.body).toMatchObject({
      merchantCustomerId: 'CUST-1001',
      firstName: 'Lena',
      billingAddress: { city: 'Berlin' },
    });
    // One card: the capture of a payment made with it (ORDER-2003) stores no other.
    const cards = await read(merchant, '/customers/cus_lena/paymentMethods');
    expect(cards.body.data).toEqual([
      expect.objectContaining({
        id: 'pm_lena_visa',
        card: expect.objectContaining({ last4Digits: '4242', brand: 'VISA' }),
      }),
    ]);
    const omar = (await read(merchant, '/customers?MerchantCustomerId=CUST-1002')).body.data[0];
    expect(omar.id).toMatch(/^cus_/);

    const box = await read(merchant, '/payment-plans/pp_lena_box');
    expect(box.body).toMatchObject({
      paymentPlanType: 'RECURRING',
      planStatus: 'ACTIVE',
      description: 'Coffee box, monthly',
    });
    expect(box.body.recurring).toMatchObject({ amount: { value: 1499, currency: 'EUR' }, frequency: 'MONTHLY' });
    expect(new Date(`${box.body.recurring.nextPaymentDate}Z`).getTime()).toBeGreaterThan(Date.now());
    const billed = (await read(merchant, '/payment-plans/pp_lena_box/payments')).body.data;
    expect(billed.map((p: { status: string; amount: { value: number } }) => [p.status, p.amount.value])).toEqual([
      ['CAPTURED', 1499],
      ['CAPTURED', 1499],
      ['CAPTURED', 1499],
    ]);
    const omarsPlans = (await read(merchant, `/customers/${omar.id}/payment-plans`)).body.data;
    expect(omarsPlans).toHaveLength(1);
    const installments = (await read(merchant, `/payment-plans/${omarsPlans[0].id}`)).body;
    expect(installments).toMatchObject({
      paymentPlanType: 'INSTALLMENTS',
      installments: { totalInstallments: 6, paidInstallments: 1 },
    });
    await admin().deleteMerchant(merchant.merchantId);
  });

  it('refuses a bad file with each fault at its line and field, and writes nothing (no merchant, no row)', async () => {
    const path = dataFile(
      'bad.yaml',
      [
        'customers:', //                                   1
        '  - id: cus_a', //                                2
        '    merchantCustomerId: A-1', //                  3
        '    cards:', //                                   4
        '      - id: pm_a', //                             5
        "        number: '4242424242424241'", //          6
        'payments:', //                                    7
        '  - transId: ORDER-1', //                         8
        '    amount: { value: 2500, currency: EUR }', //   9
        '    state: REFUNDED', //                          10
        '    refunded: 3000', //                           11
        '  - amount: { value: 100, currency: EUR }', //    12
        '    state: AUTHORIZED', //                        13
        '    customer: cus_b', //                          14
        '    colour: blue', //                             15
      ].join('\n'),
    );
    const before = await merchantIds();
    const refused = await admin()
      .createMerchant({ data: path })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SandboxAdminError);
    expect((refused as SandboxAdminError).status).toBe(400);
    // The schema first: an unknown field stops the check before the rules.
    expect((refused as SandboxAdminError).findings).toEqual([
      `${path}:15:5 /payments/1/colour: is not a field of the data file`,
    ]);
    expect(await merchantIds()).toEqual(before);

    const merchant = await admin().createMerchant();
    const empty = await rows(merchant.merchantId);
    // Without the unknown field, the rules: a card number the sandbox does not take, a customer the file lacks.
    const rules = dataFile('rules.yaml', readFileSync(path, 'utf8').replace('\n    colour: blue', ''));
    const error = (await admin()
      .loadData({ merchantId: merchant.merchantId }, rules)
      .catch((err: unknown) => err)) as SandboxAdminError;
    expect(error.status).toBe(400);
    expect(error.findings.sort()).toEqual(
      [
        `${rules}:6:9 /customers/0/cards/0/number: fails the Luhn check`,
        `${rules}:14:5 /payments/1/customer: names no customer of the file (by id or merchantCustomerId): cus_b`,
      ].sort(),
    );
    expect(error.message).toContain(`${rules}:6:9 /customers/0/cards/0/number`);
    expect(await rows(merchant.merchantId)).toEqual(empty);

    // The references right, the lifecycle refuses the refund above what was captured.
    writeFileSync(rules, readFileSync(rules, 'utf8').replace('4241', '4242').replace('cus_b', 'cus_a'));
    const lifecycle = (await admin()
      .loadData({ merchantId: merchant.merchantId }, rules)
      .catch((err: unknown) => err)) as SandboxAdminError;
    expect(lifecycle.findings).toEqual([
      `${rules}:11:5 /payments/0/refunded: The amount exceeds what is available for this operation (a refund of 3000 of 2500 EUR)`,
    ]);
    expect(await rows(merchant.merchantId)).toEqual(empty);
    await admin().deleteMerchant(merchant.merchantId);
  });

  it('refuses a file whose ids the scope holds (409, each at its field), and a reset gives the file again', async () => {
    const merchant = await admin().createMerchant({ data: EXAMPLE });
    const loaded = await rows(merchant.merchantId);
    const again = (await admin()
      .loadData({ merchantId: merchant.merchantId }, EXAMPLE)
      .catch((err: unknown) => err)) as SandboxAdminError;
    expect(again.status).toBe(409);
    expect(again.findings).toEqual(
      expect.arrayContaining([
        `${inExample('id: cus_lena')} /customers/0/id: is taken: the scope (${merchant.merchantId}, test) holds customer cus_lena already`,
        `${inExample('transId: ORDER-2001')} /payments/0/transId: is taken: the scope (${merchant.merchantId}, test) holds a payment with transId ORDER-2001 already`,
      ]),
    );
    expect(await rows(merchant.merchantId)).toEqual(loaded);

    // A reset empties the scope and gives the file again: the same rows, the given ids.
    await admin().reset({ merchantId: merchant.merchantId }, { data: EXAMPLE });
    expect(await rows(merchant.merchantId)).toEqual(loaded);
    expect((await read(merchant, '/customers/cus_lena')).status).toBe(200);
    await admin().deleteMerchant(merchant.merchantId);
  });

  it("seed --data: the CLI loads a file, and names a bad one's faults at their lines (exit 1)", async () => {
    const merchant = await admin().createMerchant();
    const out: string[] = [];
    const err: string[] = [];
    const cli = (file: string) =>
      runCli(
        ['seed', '--data', file, '--merchant', merchant.merchantId, '--url', sandbox().url, '--cli-config', 'none'],
        { out: (l) => out.push(l), err: (l) => err.push(l), env: { SANDBOX_ADMIN_KEY: sandbox().sandbox.adminKey } },
      );
    const bad = dataFile(
      'cli.json',
      '{\n  "payments": [\n    { "amount": { "value": 1, "currency": "eur" }, "state": "CAPTURED" }\n  ]\n}\n',
    );
    expect(await cli(bad)).toBe(1);
    expect(err.join('\n')).toContain(`${bad}:3:31 /payments/0/amount/currency: must match pattern "^[A-Z]{3}$"`);
    expect(await rows(merchant.merchantId)).toMatchObject({ payments: 0, customers: 0 });
    expect(await cli(EXAMPLE)).toBe(0);
    expect(out.join('\n')).toMatch(/payment\s+\S+\s+ORDER-2009\s+FAILED/);
    await admin().deleteMerchant(merchant.merchantId);
  });
});

describe('data files in process (createSandbox)', () => {
  const sandbox = createSandbox();
  afterAll(async () => (await sandbox).close());

  it('takes a data file as an object, and names its faults by pointer', async () => {
    const inProcess = await sandbox;
    const data = {
      payments: [
        {
          transId: 'IN-PROCESS-1',
          amount: { value: 1200, currency: 'EUR' },
          state: 'PARTIALLY_REFUNDED',
          refunded: 200,
        },
      ],
    };
    const merchant = await inProcess.createMerchant({ data });
    const basic = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
    const answer = await inProcess.fetch(
      new Request(`${inProcess.baseUrl}/payments/getByTransId/IN-PROCESS-1`, { headers: { authorization: basic } }),
    );
    expect(await answer.json()).toMatchObject({ state: 'PARTIALLY_REFUNDED', refundedAmount: { value: 200 } });
    const refused = (await inProcess
      .reset({ merchantId: merchant.merchantId }, { data: { payments: [{ ...data.payments[0], refunded: 2000 }] } })
      .catch((err: unknown) => err)) as SandboxAdminError;
    expect(refused.findings).toEqual([
      '/payments/0/refunded: The amount exceeds what is available for this operation (a refund of 2000 of 1200 EUR)',
    ]);
    // Refused before the reset ran: the payment is still there.
    const still = await inProcess.fetch(
      new Request(`${inProcess.baseUrl}/payments/getByTransId/IN-PROCESS-1`, { headers: { authorization: basic } }),
    );
    expect(still.status).toBe(200);
  });
});
