// Idempotency as Stripe and Adyen do it, on SQLite (HTTP_STORES): the same key with the same
// request replays the first response byte for byte (Idempotent-Replayed: true); the same key with a
// different request is a 409; concurrent requests with one key make one payment; keys are scoped per
// merchant and root; a request that failed validation keeps nothing. Keys kept 24 hours on the
// scope's clock: clock.test.ts; the claims in the store themselves (in flight, completed, renewed,
// taken over, rolled back, two processes at once): store-contract.test.ts.
import { describe, expect, it } from 'vitest';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { conformingFetch, sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();
let seq = 0;
const key = () => `key-${process.pid}-${Date.now()}-${++seq}`;
const payment = (transId: string) => ({
  transId,
  amount: { value: 2500, currency: 'USD' },
  paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
});

describe.each(HTTP_STORES)('idempotency on %s', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

  /** The raw exchange, to compare bytes. */
  const post = async (path: string, body: unknown, k: string, who = sandbox().merchant, root = sandbox().baseUrl) => {
    const response = await conformingFetch(`${root}${path}`, {
      method: 'POST',
      headers: { authorization: sandbox().basic(who), 'content-type': 'application/json', 'idempotency-key': k },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      text: await response.text(),
      replayed: response.headers.get('idempotent-replayed'),
    };
  };

  it('replays the first response byte for byte, marked as a replay; the operation runs once', async () => {
    const k = key();
    const body = payment(`IDEM-${seq}`);
    const first = await post('/payments', body, k);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    // the same body with its keys in another order is the same request
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await post('/payments', reordered, k);
    expect(second).toEqual({ ...first, replayed: 'true' });
    const payId = JSON.parse(first.text).payId;
    const details = (await sandbox().call('GET', `/payments/getByPayId/${payId}`)).body;
    expect(details.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']); // AUTOMATIC, once
  });

  it('replays declines too (422), and the response to an operation on a payment', async () => {
    const declined = payment(`IDEM-D-${seq}`);
    const k = key();
    const first = await post('/payments', { ...declined, simulationMode: 'INSUFFICIENT_FUNDS' }, k);
    expect(first.status).toBe(422);
    expect(await post('/payments', { ...declined, simulationMode: 'INSUFFICIENT_FUNDS' }, k)).toEqual({
      ...first,
      replayed: 'true',
    });

    const payId = JSON.parse(
      (await post('/payments', { ...payment(`IDEM-R-${seq}`), captureMethod: { type: 'AUTOMATIC' } }, key())).text,
    ).payId;
    const refundKey = key();
    const refund = { transId: `IDEM-R-${seq}-r`, amount: { value: 500, currency: 'USD' } };
    const r1 = await post(`/payments/${payId}/refunds`, refund, refundKey);
    const r2 = await post(`/payments/${payId}/refunds`, refund, refundKey);
    expect(r1.status).toBe(200);
    expect(r2).toEqual({ ...r1, replayed: 'true' });
    expect((await sandbox().call('GET', `/payments/getByPayId/${payId}`)).body.refundedAmount.value).toBe(500);
  });

  it('the same key with a different body, path or operation is a 409', async () => {
    const k = key();
    expect((await post('/payments', payment(`IDEM-C-${seq}`), k)).status).toBe(201);
    const changed = await post(
      '/payments',
      { ...payment(`IDEM-C-${seq}`), amount: { value: 2600, currency: 'USD' } },
      k,
    );
    expect(changed.status).toBe(409);
    expect(JSON.parse(changed.text).detail).toMatch(/different request/);
    expect(
      (
        await post(
          '/payments/sessions',
          {
            transId: 'x',
            amount: { value: 1, currency: 'EUR' },
            urls: { return: 'https://a.example', cancel: 'https://a.example', webhook: 'https://a.example' },
          },
          k,
        )
      ).status,
    ).toBe(409);
  });

  it('keys are scoped per merchant and per root', async () => {
    const k = key();
    const a = await post('/payments', payment(`IDEM-S-${seq}`), k);
    const b = await post('/payments', payment(`IDEM-S-${seq}`), k, sandbox().other);
    const c = await post('/payments', payment(`IDEM-S-${seq}`), k, sandbox().merchant, sandbox().liveBaseUrl);
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect([b.replayed, c.replayed]).toEqual([null, null]);
    expect(new Set([a.text, b.text, c.text].map((x) => JSON.parse(x).payId)).size).toBe(3);
  });

  it('a request that failed validation keeps nothing: the key is free for the corrected request', async () => {
    const k = key();
    expect((await post('/payments', { transId: 'x' }, k)).status).toBe(400);
    expect((await post('/payments', payment(`IDEM-V-${seq}`), k)).status).toBe(201);
  });

  it('concurrent requests with one key create exactly one payment', async () => {
    const k = key();
    const body = payment(`IDEM-RACE-${seq}`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/payments', body, k)));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(new Set(created.map((a) => JSON.parse(a.text).payId)).size).toBe(1);
    expect(created.filter((a) => a.replayed === null)).toHaveLength(1);
    expect((await sandbox().call('GET', `/payments/getByTransId/${body.transId}`)).status).toBe(200);
  });
});
