// Idempotency as Stripe and Adyen do it, on SQLite and on PostgreSQL: the same key with the same
// request replays the first response byte for byte (Idempotent-Replayed: true); the same key with a
// different request is a 409; concurrent requests with one key make one payment; keys are scoped per
// merchant and root and kept 24 hours; a request that failed validation keeps nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../sandbox/store/store.js';
import { databases, STORES } from '../support/postgres.js';
import { conformingFetch, sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();
let seq = 0;
const key = () => `key-${process.pid}-${Date.now()}-${++seq}`;
const payment = (transId: string) => ({
  transId,
  amount: { value: 2500, currency: 'USD' },
  paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
});

describe.each(STORES)('idempotency on %s', (kind) => {
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

describe.each(STORES)('idempotency keys in the store (%s)', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));
  let store: Store;
  beforeAll(() => {
    store = sandbox().sandbox.store;
  });
  const scope = { merchantId: 'm', environment: 'test' as const };
  const claim = (k: string, now: string, requestHash = 'h') =>
    store.idempotency.claim({
      scope,
      key: k,
      operationId: 'createPayment',
      requestHash,
      now,
      leaseMs: 30_000,
      retentionMs: 24 * 3_600_000,
    });
  const complete = (k: string, token: string, now: string, body = '{}') =>
    store.transaction((tx) =>
      tx.idempotency.complete({
        scope,
        key: k,
        token,
        response: { status: 201, headers: { 'content-type': 'application/json' }, body },
        now,
      }),
    );

  it('a key in flight is a conflict until its request completes or gives it up', async () => {
    const t0 = '2026-11-24T10:00:00.000Z';
    const first = (await claim('flight', t0)) as { outcome: string; token: string };
    expect(first.outcome).toBe('claimed');
    expect(await claim('flight', '2026-11-24T10:00:10.000Z')).toEqual({ outcome: 'conflict', reason: 'in_progress' });
    await store.idempotency.release({ scope, key: 'flight', token: first.token });
    expect((await claim('flight', '2026-11-24T10:00:11.000Z')).outcome).toBe('claimed');
  });

  it.runIf(kind === 'postgres')(
    'PostgreSQL: after its lease ran out (its process died), a key is taken over, and the old token can no longer complete it',
    async () => {
      const t0 = '2026-11-24T10:00:00.000Z';
      const first = (await claim('lease', t0)) as { token: string };
      expect((await claim('lease', '2026-11-24T10:00:31.000Z')).outcome).toBe('claimed');
      await expect(complete('lease', first.token, t0)).rejects.toThrow(/took it over/);
    },
  );

  it('a completed key replays for 24 hours, then the key is new again', async () => {
    const t0 = '2026-11-24T10:00:00.000Z';
    const first = (await claim('retention', t0)) as { token: string };
    await complete('retention', first.token, t0, '{"a":1}');
    expect(await claim('retention', '2026-11-25T09:59:59.000Z')).toEqual({
      outcome: 'replay',
      response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
    });
    expect(await claim('retention', '2026-11-25T09:59:59.000Z', 'other')).toEqual({
      outcome: 'conflict',
      reason: 'different_request',
    });
    const renewed = (await claim('retention', '2026-11-25T10:00:01.000Z', 'other')) as {
      outcome: string;
      token: string;
    };
    expect(renewed.outcome).toBe('claimed');
    await complete('retention', renewed.token, '2026-11-25T10:00:01.000Z', '{"b":2}');
    expect(await claim('retention', '2026-11-25T10:00:02.000Z', 'other')).toMatchObject({
      outcome: 'replay',
      response: { body: '{"b":2}' },
    });
    expect(await store.idempotency.purgeExpired('2026-11-27T00:00:00.000Z')).toBeGreaterThanOrEqual(1);
  });

  it('a completion rolls back with its transaction: nothing is replayed', async () => {
    const t0 = '2026-11-24T10:00:00.000Z';
    const first = (await claim('rollback', t0)) as { token: string };
    await expect(
      store.transaction(async (tx) => {
        await tx.idempotency.complete({
          scope,
          key: 'rollback',
          token: first.token,
          response: { status: 201, headers: {}, body: '{}' },
          now: t0,
        });
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    await store.idempotency.release({ scope, key: 'rollback', token: first.token });
    expect((await claim('rollback', '2026-11-24T10:00:01.000Z')).outcome).toBe('claimed');
  });
});
