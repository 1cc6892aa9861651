// Webhook delivery is fair across merchants, on SQLite and on PostgreSQL: one merchant's endpoint
// that never answers (each attempt waits for the timeout) holds at most `perMerchant` attempts, and
// another merchant's delivery is sent beside them, at once, not after them. The outbox's claim, by
// itself: round-robin over merchants, a merchant's cap counted from what it already holds, scopes
// with a connected listener left alone; and two stores on one PostgreSQL database (two processes)
// never take the same delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../sandbox/domain/types.js';
import { openStore } from '../../sandbox/store/index.js';
import type { Store } from '../../sandbox/store/store.js';
import { databases, STORES } from '../support/postgres.js';
import { eventually, Receiver } from '../support/receiver.js';
import { sandboxPerSuite } from '../support/sandbox.js';
import { type HoldingReceiver, holdingReceiver } from '../support/sandbox-process.js';

const dbs = databases();
let seq = 0;

/** A PENDING delivery of `merchantId` (test) to `url`, due `agoMs` ago. */
function delivery(merchantId: string, url: string, agoMs = 1_000): WebhookDelivery {
  const id = `fair-${Date.now().toString(36)}-${(++seq).toString().padStart(4, '0')}`;
  return {
    id,
    scope: { merchantId, environment: 'test' },
    payId: `pay-${id}`,
    kind: 'basic',
    url,
    body: JSON.stringify({ payId: `pay-${id}` }),
    status: 'PENDING',
    attempts: [],
    nextAttemptAt: new Date(Date.now() - agoMs).toISOString(),
    createdAt: new Date().toISOString(),
  };
}

const queue = (store: Store, deliveries: WebhookDelivery[]) =>
  store.transaction(async (tx) => {
    for (const d of deliveries) await tx.webhooks.insert(d);
  });

describe.each(STORES)('webhook delivery across merchants on %s', (kind) => {
  const TIMEOUT_MS = 4_000;
  const hanging: { receiver?: HoldingReceiver } = {};
  const endpoint = new Receiver();
  const sandbox = sandboxPerSuite(
    async () => {
      hanging.receiver = await holdingReceiver({ hold: 1_000 });
      await endpoint.start();
      return dbs.database(kind);
    },
    { webhooks: { maxAttempts: 1, timeoutMs: TIMEOUT_MS, pollMs: 25, perMerchant: 4 } },
  );
  afterAll(async () => {
    // First: the held requests end, so that the sandbox's attempts end with them.
    await hanging.receiver?.close();
    await endpoint.stop();
  });

  it('a merchant whose endpoint hangs, with 50 deliveries queued, holds 4 attempts; another merchant is delivered at once beside them', async () => {
    const { sandbox: running, merchant, other } = sandbox();
    const slow = hanging.receiver!;
    await queue(
      running.store,
      Array.from({ length: 50 }, () => delivery(merchant.merchantId, slow.url, 2_000)),
    );
    running.deliverer.kick();
    await eventually('the hanging merchant to hold its attempts', () => (slow.received.length >= 4 ? true : undefined));

    const started = Date.now();
    await queue(running.store, [delivery(other.merchantId, `${endpoint.url}/other`)]);
    running.deliverer.kick();
    await eventually('the other merchant’s delivery', () => (endpoint.on('/other').length > 0 ? true : undefined));
    const waited = Date.now() - started;
    // The bound: one claim (the kick), not an attempt timeout of the hanging merchant.
    expect(waited, `the other merchant waited ${waited} ms`).toBeLessThan(1_000);
    expect(waited).toBeLessThan(TIMEOUT_MS);
    // Meanwhile the hanging merchant holds its 4, no more (its other 46 wait their turn).
    expect(slow.received).toHaveLength(4);
    const pending = await running.store.webhooks.list({ merchantId: merchant.merchantId, status: 'PENDING' });
    expect(pending).toHaveLength(50);
    const [sent] = await eventually('the delivery to be recorded', async () => {
      const found = await running.store.webhooks.list({ merchantId: other.merchantId, status: 'DELIVERED' });
      return found.length > 0 ? found : undefined;
    });
    expect(sent!.attempts.map((a) => a.statusCode)).toEqual([200]);
  }, 30_000);
});

describe.each(STORES)('the outbox claim on %s', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ database: await dbs.database(kind) });
    for (const merchantId of ['hang', 'fine', 'third'])
      await store.merchants.upsert({
        merchantId,
        apiKeyHash: `${merchantId}-hash`,
        sealedWebhookSecrets: 'whsec_x',
        createdAt: new Date().toISOString(),
      });
  });
  afterAll(() => store?.close());

  const claim = (perMerchant: number, limit = 64) => {
    const now = new Date();
    return store.webhooks.claimDue({
      now: now.toISOString(),
      lockedUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit,
      perMerchant,
    });
  };

  it('takes every merchant’s next delivery before any merchant’s one after it, and no more than a merchant’s cap in all', async () => {
    const hang = Array.from({ length: 50 }, (_, i) => delivery('hang', 'http://hang.example/', 10_000 - i));
    const fine = [delivery('fine', 'http://fine.example/', 5_000), delivery('fine', 'http://fine.example/', 4_000)];
    await queue(store, [...hang, ...fine]);

    const first = await claim(3, 4);
    expect(first.map((d) => d.id)).toEqual([hang[0]!.id, fine[0]!.id, hang[1]!.id, fine[1]!.id]);
    const second = await claim(3);
    expect(second.map((d) => d.id)).toEqual([hang[2]!.id]); // its third; fine has none left
    expect(await claim(3)).toEqual([]); // hang holds 3: its cap
    // A merchant that holds nothing comes first.
    const third = delivery('third', 'http://third.example/', 60_000);
    await queue(store, [third]);
    expect((await claim(4, 1)).map((d) => d.id)).toEqual([third.id]);
  });

  it('leaves the scopes of a connected listener to it', async () => {
    const now = new Date();
    const fine = delivery('fine', 'http://fine.example/');
    await queue(store, [fine]);
    const registered = await store.listeners.register(
      {
        scope: fine.scope,
        id: 'lst_fairness',
        now: now.toISOString(),
        expiresAt: new Date(now.getTime() + 60_000).toISOString(),
      },
      4,
    );
    expect(registered).toBe('registered');
    expect((await claim(10)).map((d) => d.id)).not.toContain(fine.id);
    expect(await store.listeners.remove('fine', 'lst_fairness')).toBe(true);
    expect((await claim(10)).map((d) => d.id)).toContain(fine.id);
  });
});

describe('two stores on one PostgreSQL database', () => {
  it('claiming at once, they never take the same delivery', async () => {
    const database = await dbs.database('postgres');
    const [a, b] = await Promise.all([openStore({ database }), openStore({ database })]);
    try {
      for (const merchantId of ['m1', 'm2', 'm3'])
        await a.merchants.upsert({
          merchantId,
          apiKeyHash: `${merchantId}-h`,
          sealedWebhookSecrets: 'x',
          createdAt: '',
        });
      const all = ['m1', 'm2', 'm3'].flatMap((m) => Array.from({ length: 20 }, () => delivery(m, 'http://x.example/')));
      await queue(a, all);
      const taken: string[] = [];
      for (let round = 0; round < 10; round++) {
        const now = new Date();
        const request = {
          now: now.toISOString(),
          lockedUntil: new Date(now.getTime() + 60_000).toISOString(),
          limit: 8,
          perMerchant: 100,
        };
        const claims = await Promise.all([a, b, a, b].map((s) => s.webhooks.claimDue(request)));
        taken.push(...claims.flat().map((d) => d.id));
      }
      expect(new Set(taken).size).toBe(taken.length);
      expect(new Set(taken)).toEqual(new Set(all.map((d) => d.id)));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
