// Housekeeping through the sandbox, on SQLite (HTTP_STORES) (app/housekeeping.ts, run by
// jobs/housekeeper.ts): idempotency keys of real requests are deleted after 24 hours on the clock of
// their scope (an advanced clock expires its own, the others keep theirs); the job runs on its own
// and deletes a delivered notification once its retention has passed. What each delete spares (a
// pending delivery, a key in flight) and its races with the claims: store-contract.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, runHousekeeping } from '../../sandbox/app/housekeeping.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { eventually } from '../support/receiver.js';
import { payOnHostedPage, sandboxPerSuite, sandboxWithReceiverPerSuite } from '../support/sandbox.js';

const dbs = databases();

describe.each(HTTP_STORES)('housekeeping on %s', (kind) => {
  // The job out of the way (hourly): the tests run housekeeping themselves.
  const sandbox = sandboxPerSuite(() => dbs.database(kind), {
    webhooks: { pollMs: 25, retryBaseMs: 3_600_000 },
    retention: { intervalMs: 3_600_000 },
  });

  it('deletes idempotency keys past their 24 hours on the clock of their scope: an advanced clock expires its own, not the others’', async () => {
    const { sandbox: running, merchant, other } = sandbox();
    const create = (who: typeof merchant, key: string) =>
      sandbox().call('POST', '/payments', {
        who,
        headers: { 'idempotency-key': key },
        body: {
          transId: `HK-${key}`,
          amount: { value: 100, currency: 'EUR' },
          paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        },
      });
    const key = `hk-${Date.now().toString(36)}`;
    expect((await create(merchant, key)).status).toBe(201);
    expect((await create(other, key)).status).toBe(201);
    expect(await runHousekeeping(running.store, DEFAULT_RETENTION)).toMatchObject({ idempotencyKeys: 0 });

    // 25 hours on the merchant's test clock: its key has expired; the other merchant's has not.
    await running.clocks.advance({ merchantId: merchant.merchantId, environment: 'test' }, { byMs: 25 * 3_600_000 });
    expect(await runHousekeeping(running.store, DEFAULT_RETENTION)).toMatchObject({ idempotencyKeys: 1 });
    const replayed = await create(other, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // The advanced merchant's key is gone: the same request is new work (its transId is taken: 422).
    const again = await create(merchant, key);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(422);
  });
});

describe.each(HTTP_STORES)('the housekeeping job on %s', (kind) => {
  // Every 100 ms, delivered deliveries kept 1.5 s (dead ones the default 30 days).
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { pollMs: 25 },
    retention: { intervalMs: 100, deliveredMs: 1_500 },
  });

  it('runs on its own: a delivered notification is gone once its retention has passed', async () => {
    const { sandbox: running } = sandbox();
    const id = `HK-JOB-${Date.now().toString(36)}`;
    const payId = await payOnHostedPage(sandbox().call, { transId: id, webhook: `${receiver.url}/hooks/${id}` });
    await eventually('the delivery', async () =>
      (await running.store.webhooks.list({ payId }))[0]?.status === 'DELIVERED' ? true : undefined,
    );
    await eventually('housekeeping to delete it', async () =>
      (await running.store.webhooks.list({ payId })).length === 0 ? true : undefined,
    );
    expect(receiver.on(`/hooks/${id}`)).toHaveLength(1);
  });
});
