// A seeded sandbox (`--seed <n> --now <instant>`, in memory, on loopback) as a team's snapshot tests
// use it: the same script of requests, run in order against two sandbox processes started alike,
// gets byte-identical response bodies (ids, keys, xIds, times, tokens, problem details included) and
// byte-identical webhook bodies; another seed gets other ids. The clocks stay at the instant until a
// scope's clock is advanced. A seed is refused where its guessable keys would matter: a file or
// PostgreSQL database, or an interface other than loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess } from '../../tooling/process/sandbox-command.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { eventually, Receiver } from '../support/receiver.js';
import { submitHostedForm } from '../support/sandbox.js';
import { runSandboxCommand } from '../support/sandbox-process.js';

const NOW = '2026-03-01T09:00:00Z';
const ADMIN_KEY = 'sbx_admin_determinism_test_key_0001';
const PUBLIC_URL = 'http://127.0.0.1:4020';
const secrets = new Map<string, string[]>();
const receiver = new Receiver({ secrets: (merchantId) => secrets.get(merchantId) });

/** A sandbox process with `--seed seed --now NOW`, its webhooks to the receiver under `/<name>/…`. */
const seeded = (seed: number) =>
  startSandboxProcess({
    database: ':memory:',
    // The hosted page's links carry the address clients reach the sandbox at: the same for both runs
    // (two processes cannot share a port at once; one after the other on one port would do as well).
    extra: [
      ...['--seed', String(seed), '--now', NOW, '--admin-key', ADMIN_KEY],
      ...['--public-url', 'http://127.0.0.1:4020'],
    ],
  });

/** The script: every response body, in order, as text. */
async function script(sandbox: ServerProcess, name: string): Promise<{ bodies: string[]; merchantId: string }> {
  const bodies: string[] = [];
  const call = async (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const text = await response.text();
    bodies.push(`${method} ${path} ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const merchant = await call('POST', '/_sandbox/merchants', { headers: admin, body: { merchantId: 'snapshot_shop' } });
  // Another seed signs with another secret under the same merchant id: the receiver takes either.
  secrets.set(merchant.merchantId, [...(secrets.get(merchant.merchantId) ?? []), merchant.webhookSecret]);
  await call('POST', '/_sandbox/merchants', { headers: admin, body: {} });
  const basic = {
    authorization: `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`,
  };
  const webhook = `${receiver.url}/${name}/hooks`;
  const payment = await call('POST', '/api/v2/payments', {
    headers: basic,
    body: {
      transId: 'ORD-2026-000123',
      amount: { value: 11900, currency: 'EUR' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      urls: { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel', webhook },
    },
  });
  await call('POST', `/api/v2/payments/${payment.payId}/captures`, {
    headers: basic,
    body: { transId: 'ORD-2026-000123-CAP1', amount: { value: 11900, currency: 'EUR' } },
  });
  await call('POST', `/api/v2/payments/${payment.payId}/refunds`, {
    headers: basic,
    body: { transId: 'ORD-2026-000123-RFD1', amount: { value: 2500, currency: 'EUR' } },
  });
  await call('GET', `/api/v2/payments/getByPayId/${payment.payId}`, { headers: basic });
  const session = await call('POST', '/api/v2/payments/sessions', {
    headers: basic,
    body: {
      transId: 'ORD-2026-000124',
      amount: { value: 4990, currency: 'EUR' },
      urls: { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel', webhook },
    },
  });
  // Paid on its hosted page (the link names the public URL; this process reaches the sandbox directly).
  const page = session._links.redirect.href.replace(PUBLIC_URL, sandbox.baseUrl);
  const paid = await submitHostedForm(page, { method: 'CARD', decision: 'pay' });
  bodies.push(`POST /hosted ${paid.status} ${paid.headers.get('location')}`);
  await call('POST', '/api/v2/authorization/oauth/token', {
    headers: { ...basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  await call('POST', '/api/v2/payments', { headers: basic, body: { transId: 'ORD-2026-000125' } });
  await call('POST', `/_sandbox/clocks/${merchant.merchantId}/test/advance`, {
    headers: admin,
    body: { seconds: 3600 },
  });
  await call('GET', `/_sandbox/clocks/${merchant.merchantId}/test`, { headers: admin });
  await call('GET', `/_sandbox/clocks/${merchant.merchantId}/live`, { headers: admin });
  return { bodies, merchantId: merchant.merchantId };
}

let a: ServerProcess;
let b: ServerProcess;
let other: ServerProcess;

beforeAll(async () => {
  await receiver.start();
  [a, b, other] = await Promise.all([seeded(42), seeded(42), seeded(7)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), other?.stop()]);
  await receiver.stop();
});

describe('--seed and --now', () => {
  it('two sandboxes with the same seed and instant answer the same script byte for byte, webhooks included; another seed differs', async () => {
    const first = await script(a, 'a');
    const second = await script(b, 'b');
    const third = await script(other, 'other');
    expect(second.bodies).toEqual(first.bodies);
    // Not equal by emptiness: every answer was the one asked for, with ids and keys in it.
    expect(first.bodies.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'POST /_sandbox/merchants 201',
      'POST /_sandbox/merchants 201',
      'POST /api/v2/payments 201',
      expect.stringMatching(/^POST \/api\/v2\/payments\/[0-9a-f]{32}\/captures 200$/),
      expect.stringMatching(/^POST \/api\/v2\/payments\/[0-9a-f]{32}\/refunds 200$/),
      expect.stringMatching(/^GET \/api\/v2\/payments\/getByPayId\/[0-9a-f]{32} 200$/),
      'POST /api/v2/payments/sessions 202',
      'POST /hosted 303',
      'POST /api/v2/authorization/oauth/token 200',
      'POST /api/v2/payments 400',
      'POST /_sandbox/clocks/snapshot_shop/test/advance 200',
      'GET /_sandbox/clocks/snapshot_shop/test 200',
      'GET /_sandbox/clocks/snapshot_shop/live 200',
    ]);
    expect(first.bodies.join('\n')).toContain('"creationDate":"2026-03-01T09:00:00');
    // The live root's clock was never advanced: it still shows the instant.
    expect(JSON.parse(first.bodies.at(-1)!.split(' ').slice(3).join(' '))).toMatchObject({
      now: '2026-03-01T09:00:00.000Z',
    });
    // Another seed: other keys and ids, the same shapes.
    expect(third.bodies[0]).not.toEqual(first.bodies[0]);
    expect(third.bodies[2]).not.toEqual(first.bodies[2]);

    const hooks = (name: string) =>
      receiver
        .on(`/${name}/hooks`)
        .map((r) => r.body)
        .sort();
    await eventually('the checkout’s notification at each sandbox', () =>
      ['a', 'b'].every((n) => hooks(n).length >= 1) ? true : undefined,
    );
    expect(hooks('b')).toEqual(hooks('a'));
    expect(hooks('a')[0]).toContain('"transId":"ORD-2026-000124"');
    expect(hooks('a')[0]).toContain('2026-03-01T09:00:00');
  }, 60_000);

  it('is refused for a database that outlives the process, and off loopback; --now must be an instant', async () => {
    const file = await runSandboxCommand(['--seed', '1', '--db', 'seeded.db', '--port', '0']);
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/--seed makes every key guessable: it needs --db :memory:/);
    const wide = await runSandboxCommand(['--seed', '1', '--db', ':memory:', '--host', '0.0.0.0', '--port', '0']);
    expect(wide.code).toBe(1);
    expect(wide.stderr).toMatch(/needs a loopback --host/);
    const word = await runSandboxCommand(['--seed', 'x', '--db', ':memory:', '--port', '0']);
    expect(word.stderr).toMatch(/--seed must be a non-negative integer, got x/);
    const now = await runSandboxCommand(['--now', 'tomorrow', '--db', ':memory:', '--port', '0']);
    expect(now.code).toBe(1);
    expect(now.stderr).toMatch(/--now must be an ISO 8601 instant/);
  }, 60_000);
});
