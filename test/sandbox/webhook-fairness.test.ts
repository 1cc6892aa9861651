// Webhook delivery is fair across merchants, on SQLite (HTTP_STORES): one merchant's endpoint
// that never answers (each attempt waits for the timeout) holds at most `perMerchant` attempts, and
// another merchant's delivery is sent beside them, at once, not after them. The outbox's claim by
// itself (round-robin over merchants, the cap, listeners' scopes left alone, two processes never
// taking the same delivery) is the store's: test/sandbox/store-contract.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../sandbox/domain/types.js';
import type { Store } from '../../sandbox/store/store.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
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

describe.each(HTTP_STORES)('webhook delivery across merchants on %s', (kind) => {
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
