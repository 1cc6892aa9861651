// A merchant's webhook endpoint through its failures and the sandbox's: the customer pays in
// Chromium on the hosted page, and the notification reaches an endpoint that fails three times (four
// attempts, one acknowledged), one that never acknowledges (dead-lettered after N attempts, then resent
// with the CLI: `sandbox/main.ts deliveries resend <id> --url … --admin-key …`), and,
// with the sandbox as a process killed with SIGKILL in the middle of the delivery and restarted on
// the same database, the project's example receiver, which verifies it with the SDK. The deliveries
// and their attempts are read through the admin API (GET /_sandbox/webhook-deliveries).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constructEnhancedNotification } from '../../src/webhooks/index.js';
import { killGroup } from '../../tooling/process/groups.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { e2ePerFile, sdk } from '../support/e2e.js';
import { eventually, Receiver } from '../support/receiver.js';
import { holdingReceiver, runCliInProcess, startSandboxProcess } from '../support/sandbox-process.js';

const MAX_ATTEMPTS = 5;
// An attempt's timeout well above what a loaded machine takes to answer: what these tests hold is
// the endpoint's answer to each attempt, never a timeout.
const e2e = e2ePerFile('webhooks', {
  webhooks: { maxAttempts: MAX_ATTEMPTS, retryBaseMs: 50, retryCapMs: 1_000, timeoutMs: 15_000, pollMs: 25 },
});
const endpoint = new Receiver();
beforeAll(() => endpoint.start());
afterAll(() => endpoint.stop());

/** Pays the session on its hosted page in the browser (screenshots `<shot>-1-hosted-page`, `<shot>-2-return`); the payId from the shop's return URL. */
async function payInBrowser(page: Page, session: { href: string; transId: string }, shot: string): Promise<string> {
  await e2e().openCheckout(session, { amount: '$25.00', currency: 'USD' }, page);
  const landed = await e2e().returnAfter(page, 'Pay $25.00', shot);
  expect(landed.searchParams.get('status')).toBe('CAPTURED');
  return landed.searchParams.get('payId')!;
}

interface Delivery {
  id: string;
  payId: string;
  status: 'PENDING' | 'DELIVERED' | 'DEAD';
  attempts: Array<{ statusCode?: number; error?: string }>;
}
/** The payment's webhook deliveries, through the admin API (GET /_sandbox/webhook-deliveries). */
async function deliveries(payId: string): Promise<Delivery[]> {
  const answer = await e2e().admin('GET', `/webhook-deliveries?payId=${encodeURIComponent(payId)}`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}

describe('webhook delivery to a merchant endpoint that fails', () => {
  it('fails three times, then answers 200: exactly four attempts and one acknowledged, verifiable delivery', async () => {
    const session = await e2e().checkout('E2E-RETRY', { webhook: `${endpoint.url}/retry` });
    endpoint.answer('/retry', [500, 503, 500]);
    const payId = await payInBrowser(await e2e().newPage(), session, 'retry');
    const delivered = await eventually('the delivery to be acknowledged', async () => {
      const [d] = await deliveries(payId);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(await deliveries(payId)).toHaveLength(1);
    expect(delivered.attempts.map((a) => a.statusCode ?? a.error)).toEqual([500, 503, 500, 200]);
    const requests = endpoint.on('/retry');
    expect(requests).toHaveLength(4);
    // The same notification each time, each attempt signed afresh and verifiable with the SDK.
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    for (const r of requests)
      expect((await constructEnhancedNotification(r.body, r.headers, e2e().merchant.webhookSecret)).payId).toBe(payId);
    expect(JSON.parse(requests[3]!.body)).toMatchObject({ payId, state: 'CAPTURED', transId: session.transId });
  });

  it(`never acknowledges: dead-lettered after ${MAX_ATTEMPTS} attempts; resent with the CLI once the endpoint is back, it is delivered`, async () => {
    const { sandbox, merchant } = e2e();
    const session = await e2e().checkout('E2E-DEAD', { webhook: `${endpoint.url}/dead` });
    endpoint.answer('/dead', Array(MAX_ATTEMPTS).fill(500)); // then 200: the endpoint is back
    const payId = await payInBrowser(await e2e().newPage(), session, 'dead');
    const dead = await eventually('the dead letter', async () => {
      const [d] = await deliveries(payId);
      return d?.status === 'DEAD' ? d : undefined;
    });
    expect(dead.attempts.map((a) => a.statusCode)).toEqual(Array(MAX_ATTEMPTS).fill(500));
    expect(endpoint.on('/dead')).toHaveLength(MAX_ATTEMPTS);

    const cli = await runCliInProcess([
      'deliveries',
      'resend',
      dead.id,
      '--url',
      sandbox.url,
      '--admin-key',
      sandbox.adminKey,
    ]);
    expect(cli.code, `${cli.stdout}${cli.stderr}`).toBe(0);
    const delivered = await eventually('the resent delivery', async () => {
      const [d] = await deliveries(payId);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(delivered.id).toBe(dead.id);
    expect(await deliveries(payId)).toHaveLength(1);
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([...Array(MAX_ATTEMPTS).fill(500), 200]);
    const requests = endpoint.on('/dead');
    expect(requests).toHaveLength(MAX_ATTEMPTS + 1);
    expect(
      (await constructEnhancedNotification(requests.at(-1)!.body, requests.at(-1)!.headers, merchant.webhookSecret))
        .payId,
    ).toBe(payId);
  });
});

describe('webhook delivery across a kill -9 of the sandbox', () => {
  let dir: string;
  const running: ServerProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'e2e-sandbox-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL to the sandbox process while the endpoint holds the request; after a restart on the same database the example receiver verifies the notification', async () => {
    const { merchant, example } = e2e();
    const merchantsFile = join(dir, 'merchants.json');
    writeFileSync(merchantsFile, JSON.stringify([merchant]));
    const database = join(dir, 'sandbox.db');
    // The held attempt times out after 15 s: long enough for the browser's last steps after the
    // payment, on a loaded machine, to end while it is still held (after its timeout a retry would
    // come before the kill), short enough for the restarted sandbox's takeover (at the end of the
    // dead process's hold on it) to come within the wait below.
    const extra = ['--webhook-timeout-ms', '15000', '--webhook-retry-ms', '100'];
    const start = async () => {
      const p = await startSandboxProcess({ database, merchantsFile, extra });
      running.push(p);
      return p;
    };
    // In front of the example receiver: holds the first request open, passes the others on.
    const front = await holdingReceiver({ hold: 1, forward: example.enhancedUrl });
    try {
      const victim = await start();
      const client = sdk(`${victim.baseUrl}/api/v2`, merchant);
      const session = await e2e().checkout('E2E-KILL', { webhook: front.url }, client);
      const payId = await payInBrowser(await e2e().newPage(), session, 'kill');
      // The deliverer's first attempt comes at its next tick: seconds on a machine the whole suite loads.
      await eventually('the first attempt', () => (front.received.length > 0 ? true : undefined), 30_000);
      expect(front.received.length, 'the first attempt still held: no retry yet').toBe(1);
      killGroup(victim.pid, 'SIGKILL');
      expect((await victim.exited).signal).toBe('SIGKILL');
      expect(example.accepted()).not.toContain(payId);

      // The outbox row survived; the restarted sandbox takes it over once the dead process's lease ends.
      const restarted = await start();
      await example.waitForAccepted(payId, 1, 60_000);
      expect(front.received.map((r) => r.payId)).toEqual([payId, payId]);
      expect(await sdk(`${restarted.baseUrl}/api/v2`, merchant).payments.retrieve(payId)).toMatchObject({
        payId,
        state: 'CAPTURED',
      });
      await restarted.stop();
    } finally {
      await front.close();
    }
  }, 150_000);
});
