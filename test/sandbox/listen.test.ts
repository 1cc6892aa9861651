// Webhooks to a laptop: `npm run sandbox -- listen --forward-to <url>` and the listener operations
// it calls (/_sandbox/listeners…, sandbox/admin/openapi.yaml, merchant credentials). The protocol on
// the HTTP suites' stores (HTTP_STORES in test/support/postgres.ts), every response held to the admin document: a listener takes its scope's
// deliveries instead of the URL, signed as for the URL; the answer it reports is the attempt
// (delivered, or retried and handed over again); bounds (4 listeners per merchant, one open poll);
// claims that no longer hold; another merchant's listener is invisible; with several listeners each
// delivery goes to one; with none, to the URL again. Then end to end: the sandbox, a `listen`
// process (its own process group, stopped in teardown) and a local endpoint that verifies the
// signature with the SDK; a payment's notification arrives there, and a failing endpoint makes the
// sandbox retry.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAdminDocument } from '../../sandbox/documents.js';
import { ADMIN_PREFIX } from '../../sandbox/http/admin.js';
import type { MerchantCredentials } from '../../sandbox/server.js';
import { constructEnhancedNotification } from '../../src/webhooks/index.js';
import { ISOLATED_ENV, SANDBOX_ENTRY, sandboxNodeOptions } from '../../tooling/process/sandbox-command.js';
import { type ProcessGroup, startProcessGroup } from '../../tooling/process/server-process.js';
import { checkResponse, matchOperation } from '../support/contract-check.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { eventually } from '../support/receiver.js';
import {
  payOnHostedPage,
  sandboxPerSuite,
  sandboxWithReceiverPerSuite,
  type TestSandbox,
  transId,
} from '../support/sandbox.js';
import { runSandboxCommand } from '../support/sandbox-process.js';
import { DeliveryChecks } from '../support/webhook-check.js';

const dbs = databases();

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A call of an admin document operation, its response held to the document. */
async function call(
  sandbox: TestSandbox,
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string | null; who?: MerchantCredentials; signal?: AbortSignal } = {},
): Promise<Answer> {
  const authorization = options.authorization === undefined ? sandbox.basic(options.who) : options.authorization;
  const response = await fetch(`${sandbox.url}${ADMIN_PREFIX}${path}`, {
    method,
    headers: {
      ...(authorization !== null ? { authorization } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  const document = loadAdminDocument();
  const match = matchOperation(document, method, new URL(response.url).pathname);
  if (!match) throw new Error(`${method} ${path} is no operation of the admin document`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const violations = checkResponse(document, match.operation.id, response.status, headers, text);
  if (violations.length > 0)
    throw new Error(`the admin API sent a response its document does not declare:\n  ${violations.join('\n  ')}`);
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A HOSTED payment paid on the hosted page: its notification is for `webhook`. */
const paid = (sandbox: TestSandbox, webhook: string, who?: MerchantCredentials) =>
  payOnHostedPage(sandbox.call, { webhook, who, transId: transId('LISTEN'), amount: { value: 1250, currency: 'EUR' } });

describe.each(HTTP_STORES)('the listener operations on %s', (kind) => {
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { retryBaseMs: 50, timeoutMs: 2_000, pollMs: 25, maxAttempts: 4 },
  });

  const register = async (who?: MerchantCredentials) => {
    const r = await call(sandbox(), 'POST', '/listeners', { body: { environment: 'test' }, ...(who ? { who } : {}) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as string;
  };
  const poll = (id: string, query = 'waitSeconds=5', who?: MerchantCredentials, signal?: AbortSignal) =>
    call(sandbox(), 'GET', `/listeners/${id}/deliveries?${query}`, {
      ...(who ? { who } : {}),
      ...(signal ? { signal } : {}),
    });
  const answer = (id: string, delivery: { id: string; claim: string }, result: object) =>
    call(sandbox(), 'POST', `/listeners/${id}/deliveries/${delivery.id}/answer`, {
      body: { claim: delivery.claim, durationMs: 3, ...result },
    });
  const remove = (id: string, who?: MerchantCredentials) =>
    call(sandbox(), 'DELETE', `/listeners/${id}`, { ...(who ? { who } : {}) });

  it('take the merchant’s credentials, not the admin key (401 with a Basic challenge)', async () => {
    const none = await call(sandbox(), 'POST', '/listeners', { authorization: null, body: {} });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic realm="sandbox-listen"');
    const admin = await call(sandbox(), 'POST', '/listeners', {
      authorization: `Bearer ${sandbox().sandbox.adminKey}`,
      body: {},
    });
    expect(admin.status).toBe(401);
    const wrong = await call(sandbox(), 'POST', '/listeners', {
      authorization: `Basic ${Buffer.from(`${sandbox().merchant.merchantId}:sk_test_wrong`).toString('base64')}`,
      body: {},
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toMatch(/wrong API key/);
    // …and merchant credentials still open no admin operation.
    expect((await call(sandbox(), 'GET', '/webhook-deliveries')).status).toBe(401);
  });

  it('hand over the scope’s deliveries instead of the URL, signed as for it; the answer is the attempt: a 500 is retried, a 200 delivers', async () => {
    const id = await register();
    const payId = await paid(sandbox(), `${receiver.url}/hooks/listened`);
    const first = await poll(id);
    expect(first.status).toBe(200);
    const [handed] = first.body.data;
    expect(handed).toMatchObject({ payId, url: `${receiver.url}/hooks/listened`, attempt: 1, timeoutMs: 2_000 });
    const notification = await constructEnhancedNotification(
      handed.body,
      handed.headers,
      sandbox().merchant.webhookSecret as string,
    );
    expect(notification.payId).toBe(payId);

    const failed = await answer(id, handed, { statusCode: 500 });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'PENDING', attempts: [{ statusCode: 500, listenerId: id }] });
    expect((await answer(id, handed, { statusCode: 200 })).status).toBe(409); // that claim is spent

    const again = await eventually('the retry, handed over again', async () => {
      const r = await poll(id, 'waitSeconds=1');
      return r.body.data.length > 0 ? r.body.data[0] : undefined;
    });
    expect(again).toMatchObject({ id: handed.id, attempt: 2 });
    expect(again.claim).not.toBe(handed.claim);
    const delivered = await answer(id, again, { statusCode: 204 });
    expect(delivered.body).toMatchObject({ status: 'DELIVERED' });
    expect(delivered.body.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 204]);
    // The URL itself was never called.
    expect(receiver.on('/hooks/listened')).toEqual([]);
    expect((await remove(id)).status).toBe(204);
    expect((await remove(id)).status).toBe(404);
    expect((await poll(id)).status).toBe(404);
  });

  it('are bounded: 4 listeners per merchant, one open poll per listener; another merchant’s listener is a 404', async () => {
    const ids = [await register(), await register(), await register(), await register()];
    const fifth = await call(sandbox(), 'POST', '/listeners', { body: {} });
    expect(fifth.status).toBe(409);
    expect(fifth.body.detail).toMatch(/has 4 listeners already/);
    // Another merchant has its own 4.
    const theirs = await register(sandbox().other);
    expect((await poll(theirs, 'waitSeconds=0', sandbox().other)).status).toBe(200);
    expect((await poll(theirs, 'waitSeconds=0', sandbox().merchant)).status).toBe(404);
    expect((await remove(theirs, sandbox().merchant)).status).toBe(404);

    const open = new AbortController();
    const waiting = poll(ids[0]!, 'waitSeconds=5', undefined, open.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const second = await poll(ids[0]!, 'waitSeconds=0');
    expect(second.status).toBe(409);
    open.abort();
    await waiting;
    for (const id of [...ids, theirs]) await remove(id, id === theirs ? sandbox().other : undefined);
    expect((await remove(await register())).status).toBe(204); // room again
  });

  it('with several listeners, each delivery goes to one of them; with none, to the URL again', async () => {
    const gone = await sandbox().sandbox.store.listeners.claim({
      scope: { merchantId: sandbox().other.merchantId, environment: 'test' },
      listenerId: 'lst_0000000000000000',
      token: 'lst_0000000000000000.x',
      now: new Date().toISOString(),
      lockedUntil: new Date(Date.now() + 10_000).toISOString(),
      limit: 8,
      maxHeld: 8,
    });
    expect(gone).toBeUndefined(); // no such listener: nothing is taken
    const who = sandbox().other;
    const [a, b] = [await register(who), await register(who)];
    const payIds = [
      await paid(sandbox(), `${receiver.url}/hooks/several`, who),
      await paid(sandbox(), `${receiver.url}/hooks/several`, who),
    ];
    const handed = await Promise.all([poll(a, 'waitSeconds=2&max=1', who), poll(b, 'waitSeconds=2&max=1', who)]);
    const got = handed.flatMap((r) => r.body.data.map((d: { payId: string }) => d.payId));
    expect(got.sort()).toEqual([...payIds].sort());
    for (const id of [a, b]) expect((await remove(id, who)).status).toBe(204);
    // Released by the removal: due at once, now for the URL.
    await eventually('the URL to receive both', () => (receiver.on('/hooks/several').length === 2 ? true : undefined));
    const third = await paid(sandbox(), `${receiver.url}/hooks/several`, who);
    await eventually('a new notification at the URL', () =>
      receiver.on('/hooks/several').some((r) => JSON.parse(r.body).payId === third) ? true : undefined,
    );
  });
});

/**
 * A merchant's local endpoint that verifies every notification with the SDK: 400 when it does not
 * verify, else the queued status (then 200). Each is held to the contract's webhooks too (`checks`).
 */
class VerifyingEndpoint {
  server!: Server;
  url = '';
  verified: string[] = [];
  rejected = 0;
  statuses: number[] = [];
  readonly checks = new DeliveryChecks();
  constructor(private readonly secret: string) {}
  async start() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        await this.checks.check(request.url ?? '/', { method: request.method ?? '', headers: request.headers, body });
        try {
          const n = await constructEnhancedNotification(Buffer.concat(chunks), request.headers, this.secret);
          this.verified.push(n.payId);
          response.writeHead(this.statuses.shift() ?? 200).end();
        } catch {
          this.rejected++;
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }
  async stop() {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.checks.assertConforming();
  }
}

describe('npm run sandbox -- listen --forward-to, end to end', () => {
  let local: VerifyingEndpoint;
  let listener: ProcessGroup | undefined;
  const sandbox = sandboxPerSuite(async () => ':memory:', {
    webhooks: { retryBaseMs: 100, timeoutMs: 3_000, pollMs: 25, maxAttempts: 4 },
  });
  afterEach(() => local?.checks.assertConforming());
  beforeAll(async () => {
    local = new VerifyingEndpoint(sandbox().merchant.webhookSecret as string);
    await local.start();
    const { merchant, url } = sandbox();
    listener = startProcessGroup(
      process.execPath,
      [
        ...sandboxNodeOptions(),
        SANDBOX_ENTRY,
        'listen',
        '--url',
        url,
        '--merchant-id',
        merchant.merchantId,
        '--api-key',
        merchant.apiKey,
        '--forward-to',
        local.url,
      ],
      { env: ISOLATED_ENV, name: 'sandbox listen' },
    );
    await listener.waitFor('its Ready line', (out) => /Ready! Forwarding/.test(out));
  }, 60_000);
  afterAll(async () => {
    await listener?.stop();
    await local?.stop();
  });

  const deliveries = (payId: string) => sandbox().sandbox.store.webhooks.list({ payId });

  it('a payment’s notification arrives at the local endpoint, signed: it verifies with the SDK, and its 200 delivers it', async () => {
    // The merchant's own URL is not reachable from here: the delivery goes to the listener instead.
    const payId = await paid(sandbox(), 'https://merchant.invalid/hooks');
    await eventually('the local endpoint to verify it', () => (local.verified.includes(payId) ? true : undefined));
    const [delivered] = await eventually('the delivery', async () => {
      const found = await deliveries(payId);
      return found[0]?.status === 'DELIVERED' ? found : undefined;
    });
    expect(delivered!.attempts).toHaveLength(1);
    expect(delivered!.attempts[0]).toMatchObject({ statusCode: 200, listenerId: expect.stringMatching(/^lst_/) });
    expect(local.rejected).toBe(0);
    await eventually('listen to print it', () =>
      new RegExp(`payment ${payId} → 200`).test(listener!.output()) ? true : undefined,
    );
  });

  it('a failing local endpoint makes the sandbox retry, through the listener, until it answers 2xx', async () => {
    local.statuses.push(500, 503);
    const payId = await paid(sandbox(), 'https://merchant.invalid/hooks');
    const [delivered] = await eventually('the delivery after the retries', async () => {
      const found = await deliveries(payId);
      return found[0]?.status === 'DELIVERED' ? found : undefined;
    });
    expect(delivered!.attempts.map((a) => a.statusCode)).toEqual([500, 503, 200]);
    expect(local.verified.filter((p) => p === payId)).toHaveLength(3);
  });

  it('refused credentials, or no --forward-to: exit 1 with one line', async () => {
    const { merchant, url } = sandbox();
    for (const [args, message] of [
      [
        ['--merchant-id', merchant.merchantId, '--api-key', 'sk_test_wrong', '--forward-to', local.url],
        /^sandbox listen: the sandbox at .* refused merchant .*'s credentials \(401\)/,
      ],
      [
        ['--merchant-id', merchant.merchantId, '--api-key', merchant.apiKey],
        /^sandbox listen: listen needs --forward-to/,
      ],
    ] as const) {
      const result = await runSandboxCommand(['listen', '--url', url, ...args]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });

  it('once listen stops, it removes its listener: deliveries go to their URL again', async () => {
    await listener!.stop();
    expect(listener!.output()).toMatch(/Stopped; listener lst_[0-9a-f]+ removed\./);
    const payId = await paid(sandbox(), 'https://merchant.invalid/hooks');
    const [attempted] = await eventually('an attempt at the URL', async () => {
      const found = await deliveries(payId);
      return found[0] && found[0].attempts.length > 0 ? found : undefined;
    });
    expect(attempted!.attempts[0]!.listenerId).toBeUndefined();
    expect(attempted!.attempts[0]!.error).toBeDefined(); // merchant.invalid does not resolve
  });
});
