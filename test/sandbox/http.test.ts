// The sandbox's HTTP layer, on SQLite (HTTP_STORES): every operation is routed from the
// contract under both roots; credentials per operation; validation of every part of a request with
// the contract's 400 naming each field; 413 and 415; the roots and merchants keep their data
// apart; CORS only where a browser may call; a payment's life on SQLite compiled to WebAssembly
// (sqliteDriver: 'wasm'). Every response goes through the conformance check.
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Sandbox, startSandbox } from '../../sandbox/server.js';
import { StoreOpenError } from '../../sandbox/store/index.js';
import { operations as contractOperations } from '../../tooling/openapi/walker.js';
import { ISOLATED_ENV } from '../../tooling/process/sandbox-command.js';
import { checkResponse } from '../support/contract-check.js';
import { corsHeaders, preflight } from '../support/cors.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import {
  ConformanceError,
  callSandbox,
  cardPayment,
  checkoutSession,
  conformingFetch,
  newMerchant,
  sandboxContract,
  sandboxPerSuite,
  startTestSandbox,
  transId,
} from '../support/sandbox.js';
import { runSandboxCommand } from '../support/sandbox-process.js';

const dbs = databases();

describe.each(HTTP_STORES)('the sandbox on %s', (kind) => {
  // The origin the CORS test below calls from (CORS is closed unless origins are named).
  const sandbox = sandboxPerSuite(() => dbs.database(kind), { corsOrigins: ['http://localhost:3000'] });

  it('routes every operation of the contract under both roots (no "No such operation" 404)', async () => {
    const doc = sandboxContract().document;
    for (const { key, method } of contractOperations(doc, ['paths'])) {
      for (const root of [sandbox().baseUrl, sandbox().liveBaseUrl]) {
        const path = key.replace(/\{[^}]+\}/g, 'unknown_id');
        // No credentials: every operation answers its contract's 401, proving the route exists.
        const response = await conformingFetch(`${root}${path}`, { method: method.toUpperCase() });
        expect(response.status, `${method.toUpperCase()} ${root}${path}`).toBe(401);
      }
    }
    const unknown = await fetch(`${sandbox().baseUrl}/payments/unknown/explode`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).title).toBe('No such operation.');
  });

  describe('credentials', () => {
    it('401 without credentials, with a wrong key, with an unknown merchant', async () => {
      for (const authorization of [
        undefined,
        `Basic ${Buffer.from(`${sandbox().merchant.merchantId}:wrong`).toString('base64')}`,
        `Basic ${Buffer.from('nobody:key').toString('base64')}`,
        'Digest abc',
      ]) {
        const r = await sandbox().call('GET', '/customers', {
          headers: authorization ? { authorization } : { authorization: '' },
        });
        expect(r.status, String(authorization)).toBe(401);
        expect(r.body.type).toMatch(/problems\/unauthorized$/);
      }
    });

    it('a bearer token from the token endpoint works, expires with the root it was issued on, and is refused elsewhere', async () => {
      const token = await sandbox().call('POST', '/authorization/oauth/token', {
        body: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(token.status).toBe(200);
      expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      // RFC 6749 §5.1: a response holding a token is never cached
      expect(token.headers.get('cache-control')).toBe('no-store');
      expect(token.headers.get('pragma')).toBe('no-cache');
      const bearer = { authorization: `Bearer ${token.body.access_token}` };
      expect((await sandbox().call('GET', '/customers', { headers: bearer })).status).toBe(200);
      // issued for the test root: the live root refuses it
      const live = await sandbox().call('GET', '/customers', { headers: bearer, root: 'live' });
      expect(live.status).toBe(401);
      expect(live.body.detail).toMatch(/not issued for the live root/);
      // a forged token
      const [h, p] = String(token.body.access_token).split('.');
      expect(
        (await sandbox().call('GET', '/customers', { headers: { authorization: `Bearer ${h}.${p}.forged` } })).status,
      ).toBe(401);
    });

    it('the token endpoint answers OAuth 2.0 errors: invalid_client, unsupported_grant_type', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const wrong = await sandbox().call('POST', '/authorization/oauth/token', {
        body: 'grant_type=client_credentials',
        headers: {
          ...form,
          authorization: `Basic ${Buffer.from(`${sandbox().merchant.merchantId}:nope`).toString('base64')}`,
        },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      // RFC 6749 §5.2: invalid_client with 401 carries the challenges of the schemes the endpoint takes
      expect(wrong.headers.get('www-authenticate')).toBe(
        'Basic realm="Payment Service API v2", Bearer realm="Payment Service API v2"',
      );
      const grant = await sandbox().call('POST', '/authorization/oauth/token', {
        body: 'grant_type=password',
        headers: form,
      });
      expect(grant.status).toBe(400);
      expect(grant.body.error).toBe('unsupported_grant_type');
    });

    it('X-API-Key works on payment plan operations only; Basic is refused on the bearer-only intent confirmation', async () => {
      const key = { authorization: '', 'x-api-key': sandbox().merchant.apiKey };
      expect((await sandbox().call('GET', '/payment-plans', { headers: key })).status).toBe(200);
      const customers = await sandbox().call('GET', '/customers', { headers: key });
      expect(customers.status).toBe(401);
      expect(customers.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+", Bearer realm="[^"]+"$/);
      expect(customers.body.detail).toMatch(
        /accepts (HTTP Basic .*|a bearer token) or (HTTP Basic .*|a bearer token), not the X-API-Key header/,
      );
      const intent = await sandbox().call('POST', '/payment-intents', {
        body: { amount: { value: 100, currency: 'EUR' } },
      });
      const confirm = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
        body: { integrationType: 'DIRECT', type: 'CARD' },
      });
      expect(confirm.status).toBe(401);
      expect(confirm.headers.get('www-authenticate')).toBe('Bearer realm="Payment Service API v2"');
      expect(confirm.body.detail).toMatch(/accepts a bearer token, not HTTP Basic/);
    });
  });

  describe('validation', () => {
    it('400 names every offending field of the body, path, query and headers, and nothing is created', async () => {
      const r = await sandbox().call('POST', '/payments/sessions', {
        body: {
          transId: 'x'.repeat(65),
          amount: { value: 12.5, currency: 'EURO' },
          urls: {},
          captureMethod: { type: 'DELAYED' },
        },
      });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors).sort()).toEqual([
        'amount.currency',
        'amount.value',
        'captureMethod.delayed',
        'transId',
        'urls.cancel',
        'urls.return',
        'urls.webhook',
      ]);
      const q = await sandbox().call('GET', '/payment-plans?Page=0&PlanStatus=PAUSED&page=2');
      expect(q.status).toBe(400);
      expect(Object.keys(q.body.errors).sort()).toEqual(['Page', 'PlanStatus', 'page']);
      expect(q.body.status).toBe('400'); // plan problems carry the status as a string
      const h = await sandbox().call('POST', '/payments', {
        body: cardPayment('VAL-1'),
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      expect(h.status).toBe(400);
      expect(Object.keys(h.body.errors)).toEqual(['Idempotency-Key']);
      expect((await sandbox().call('GET', '/payments/getByTransId/VAL-1')).status).toBe(404);
    });

    it('malformed JSON is a 400, a missing body a 400, a wrong media type a 415, an oversized body a 413', async () => {
      const malformed = await sandbox().call('POST', '/payments', { body: '{"transId": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors['(body)'][0]).toMatch(/not valid JSON/);
      expect((await sandbox().call('POST', '/payments', { body: '' })).status).toBe(400);
      const media = await sandbox().call('POST', '/payments', {
        body: 'transId=1',
        headers: { 'content-type': 'text/plain' },
      });
      expect(media.status).toBe(415);
      const form = await sandbox().call('POST', '/payments', {
        body: 'transId=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
      const big = await sandbox().call('POST', '/payments', {
        body: JSON.stringify({ transId: 'BIG', metadata: { blob: 'x'.repeat(1_100_000) } }),
      });
      expect(big.status).toBe(413);
      const plan = await sandbox().call('POST', '/payment-plans/pp_x/charge', {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      expect(plan.status).toBe(415);
      expect(plan.body.status).toBe('415');
    });

    it("a body cut short (the client went away) is the client's fault: a 400, nothing logged as a failure", async () => {
      const failures = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const { hostname, port, pathname } = new URL(`${sandbox().baseUrl}/payments`);
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => {
            socket.write(
              `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"transId": "CUT-`,
            );
            socket.end(); // 500 bytes announced, 17 sent
          });
          let received = '';
          socket.on('data', (chunk) => (received += chunk.toString()));
          socket.on('close', () => resolve(received));
          socket.on('error', reject);
        });
        if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        // The handler runs after the socket closed: give it a turn before looking at the log.
        await new Promise((r) => setTimeout(r, 50));
        expect(failures.mock.calls.filter((call) => String(call[0]).includes('failed'))).toEqual([]);
      } finally {
        failures.mockRestore();
      }
    });

    it('an unknown simulation code is invalid input, not a decline', async () => {
      const r = await sandbox().call('POST', '/payments', {
        body: cardPayment('SIM-UNKNOWN', { simulationMode: 'NOT_A_CODE' }),
      });
      expect(r.status).toBe(400);
      expect(r.body.errors.simulationMode[0]).toMatch(/must be one of SUCCESS, DECLINED/);
    });
  });

  describe('scopes', () => {
    it('another merchant never sees a payment (404 as if it did not exist); the live root has its own data', async () => {
      const created = await sandbox().call('POST', '/payments', { body: cardPayment('SCOPE-1') });
      expect(created.status).toBe(201);
      const payId = created.body.payId;
      expect((await sandbox().call('GET', `/payments/getByPayId/${payId}`)).status).toBe(200);
      expect((await sandbox().call('GET', `/payments/getByPayId/${payId}`, { who: sandbox().other })).status).toBe(404);
      expect(
        (
          await sandbox().call('POST', `/payments/${payId}/captures`, {
            who: sandbox().other,
            body: { transId: 'SCOPE-1-C', amount: { value: 100, currency: 'USD' } },
          })
        ).status,
      ).toBe(404);
      expect((await sandbox().call('GET', `/payments/getByPayId/${payId}`, { root: 'live' })).status).toBe(404);
      // the same transId is free on the live root and for the other merchant
      expect((await sandbox().call('POST', '/payments', { body: cardPayment('SCOPE-1'), root: 'live' })).status).toBe(
        201,
      );
      expect(
        (await sandbox().call('POST', '/payments', { body: cardPayment('SCOPE-1'), who: sandbox().other })).status,
      ).toBe(201);
      const duplicate = await sandbox().call('POST', '/payments', { body: cardPayment('SCOPE-1') });
      expect(duplicate.status).toBe(422);
      expect(duplicate.body).toMatchObject({ status: 'FAILED', responseCode: '22000001' });
    });
  });

  describe('CORS', () => {
    it('a browser may call the payment intent confirmation only', async () => {
      const origin = 'http://localhost:3000';
      const preflight = (path: string) =>
        fetch(`${sandbox().baseUrl}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
      const confirm = await preflight('/payment-intents/pi_123/confirm');
      expect(confirm.headers.get('access-control-allow-origin')).toBe(origin);
      expect(confirm.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      const payments = await preflight('/payments');
      expect(payments.headers.get('access-control-allow-origin')).toBeNull();
      const get = await conformingFetch(`${sandbox().baseUrl}/customers`, {
        headers: { origin, authorization: sandbox().basic() },
      });
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

describe('the sandbox on SQLite compiled to WebAssembly (the store where better-sqlite3 does not load)', () => {
  const merchant = newMerchant('wasm');
  const basic = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
  let sandbox: Sandbox;
  const call = (method: string, path: string, options: Parameters<typeof callSandbox>[4] = {}) =>
    callSandbox(sandbox.url, basic, method, path, options);

  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      database: ':memory:',
      sqliteDriver: 'wasm',
      secret: ISOLATED_ENV.SANDBOX_SECRET,
      merchants: [merchant],
      contract: sandboxContract(),
    });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  it('the option reaches the store: a SQLite file, which the WebAssembly driver cannot hold, is refused', async () => {
    // Refused before anything is written: the path is never created.
    const file = join(tmpdir(), `wasm-${process.pid}`, 'sandbox.db');
    const options = { database: file, sqliteDriver: 'wasm', secret: ISOLATED_ENV.SANDBOX_SECRET } as const;
    const refused = await startSandbox(options).then(
      async (started) => started.close(),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreOpenError);
    expect((refused as Error).message).toMatch(/WebAssembly SQLite driver holds :memory: alone/);
  });

  it('creates, captures, refunds and reads a payment; replays an Idempotency-Key; refuses a transId taken', async () => {
    const id = transId('WASM');
    const key = `wasm-${id}`;
    const created = await call('POST', '/payments', { body: cardPayment(id), headers: { 'idempotency-key': key } });
    expect(created.status).toBe(201);
    const payId = created.body.payId as string;

    const replay = await call('POST', '/payments', { body: cardPayment(id), headers: { 'idempotency-key': key } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created.body);

    const duplicate = await call('POST', '/payments', { body: cardPayment(id) });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body).toMatchObject({ status: 'FAILED', responseCode: '22000001' });

    const capture = await call('POST', `/payments/${payId}/captures`, {
      body: { transId: `${id}-C`, amount: { value: 2000, currency: 'USD' } },
    });
    expect(capture.status).toBe(200);
    const refund = await call('POST', `/payments/${payId}/refunds`, {
      body: { transId: `${id}-R`, amount: { value: 500, currency: 'USD' } },
    });
    expect(refund.status).toBe(200);

    const read = await call('GET', `/payments/getByPayId/${payId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      payId,
      transId: id,
      state: 'PARTIALLY_REFUNDED',
      capturedAmount: { value: 2000, currency: 'USD' },
    });
    expect(read.body.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE', 'REFUND']);
    expect((await call('GET', `/payments/getByTransId/${id}`)).body).toEqual(read.body);
  });
});

describe('CORS on the sandbox: the rule of tooling/openapi/cors.ts', () => {
  const allowed = 'http://localhost:5173';
  const other = 'http://localhost:5174';
  const closed = sandboxPerSuite(async () => ':memory:');
  const open = sandboxPerSuite(async () => ':memory:', { corsOrigins: [allowed, 'https://app.example'] });

  /** A payment intent and a bearer token of the sandbox's merchant (what an app receives from its back end). */
  const intentAndToken = async (sb: ReturnType<typeof closed>) => {
    const intent = await sb.call('POST', '/payment-intents', { body: { amount: { value: 990, currency: 'EUR' } } });
    const token = await sb.call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { id: String(intent.body.id), bearer: `Bearer ${token.body.access_token}` };
  };
  const confirm = (sb: ReturnType<typeof closed>, id: string, bearer: string, origin: string, key = 'k1') =>
    conformingFetch(`${sb.baseUrl}/payment-intents/${id}/confirm`, {
      method: 'POST',
      headers: { origin, authorization: bearer, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ integrationType: 'DIRECT', type: 'CARD' }),
    });

  it('is closed by default: no preflight answered anywhere, no Access-Control-* header on any response', async () => {
    for (const base of [closed().baseUrl, closed().liveBaseUrl]) {
      for (const path of [
        '/payment-intents/pi_1/confirm',
        '/payment-intents/pi_1',
        '/payments/sessions',
        '/payments',
      ]) {
        const r = await preflight(base, path, allowed);
        expect(r.status, path).toBe(404);
        expect(corsHeaders(r), path).toEqual([]);
      }
    }
    const { id, bearer } = await intentAndToken(closed());
    const confirmed = await confirm(closed(), id, bearer, allowed);
    expect(confirmed.status).toBe(201);
    expect(corsHeaders(confirmed)).toEqual([]);
    expect(confirmed.headers.get('vary')).toBeNull();
    const customers = await conformingFetch(`${closed().baseUrl}/customers`, {
      headers: { origin: allowed, authorization: closed().basic() },
    });
    expect(customers.status).toBe(200);
    expect(corsHeaders(customers)).toEqual([]);
  });

  it('answers the preflight of an allowed origin on the exact path and method of confirmPaymentIntent, under both roots', async () => {
    for (const base of [open().baseUrl, open().liveBaseUrl]) {
      const r = await preflight(
        base,
        '/payment-intents/pi_1/confirm',
        allowed,
        'POST',
        'authorization,content-type,idempotency-key',
      );
      expect(r.status).toBe(204);
      expect(
        Object.fromEntries([...r.headers].filter(([h]) => h.startsWith('access-control-') || h === 'vary')),
      ).toEqual({
        'access-control-allow-origin': allowed,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
        'access-control-max-age': '600',
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      });
    }
    // a second allowed origin, with a request that needs no extra header
    const app = await preflight(open().baseUrl, '/payment-intents/pi_1/confirm', 'https://app.example', 'POST', '');
    expect(app.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('refuses another origin, another method and another header (403, no Access-Control-Allow-*), and answers nothing elsewhere', async () => {
    const base = open().baseUrl;
    const refused = [
      [other, 'POST', 'authorization', /origin http:\/\/localhost:5174 may not call/],
      ['null', 'POST', 'authorization', /origin null may not call/],
      [allowed, 'GET', '', /GET \/payment-intents\/pi_1\/confirm is not an operation a browser may call/],
      [allowed, 'POST', 'authorization,x-api-key', /does not take the request header x-api-key/],
    ] as const;
    for (const [origin, method, headers, detail] of refused) {
      const r = await preflight(base, '/payment-intents/pi_1/confirm', origin, method, headers);
      expect(r.status, `${origin} ${method} ${headers}`).toBe(403);
      expect(corsHeaders(r)).toEqual([]);
      expect((await r.json()).detail).toMatch(detail);
    }
    // No preflight route for other paths, server-only operations included (the page's fetch fails).
    for (const path of [
      '/payment-intents/pi_1',
      '/payment-intents/pi_1/confirm/more',
      '/payment-intents',
      '/payments/sessions',
      '/customers',
    ]) {
      const r = await preflight(base, path, allowed);
      expect(r.status, path).toBe(404);
      expect(corsHeaders(r), path).toEqual([]);
    }
    // an OPTIONS request that is no preflight (no requested method): no route either
    const plain = await fetch(`${base}/payment-intents/pi_1/confirm`, {
      method: 'OPTIONS',
      headers: { origin: allowed },
    });
    expect(plain.status).toBe(404);
  });

  it('lets an allowed origin read confirmPaymentIntent (Idempotent-Replayed exposed), never another origin, never a server-only operation', async () => {
    const { id, bearer } = await intentAndToken(open());
    const first = await confirm(open(), id, bearer, allowed);
    expect(first.status).toBe(201);
    expect(first.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(first.headers.get('access-control-expose-headers')).toBe(
      'Idempotent-Replayed, WWW-Authenticate, Retry-After',
    );
    expect(first.headers.get('vary')).toBe('Origin');
    const replay = await confirm(open(), id, bearer, allowed);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('access-control-allow-origin')).toBe(allowed);
    const fromOther = await confirm(open(), id, bearer, other);
    expect(corsHeaders(fromOther)).toEqual([]);
    expect(fromOther.headers.get('vary')).toBe('Origin');
    // errors carry the headers too (the browser can read why)
    const unknown = await confirm(open(), 'pi_unknown', bearer, allowed, 'k2');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(allowed);
    const session = await open().call('POST', '/payments/sessions', {
      headers: { origin: allowed },
      body: checkoutSession('CORS-1'),
    });
    expect(session.status).toBe(202);
    expect([...session.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('npm run sandbox refuses an origin that is not one, from the option or the variable: one line, exit 1', async () => {
    for (const [args, env, message] of [
      [
        ['--cors-origin', 'http://localhost:5173/'],
        {},
        /^sandbox: --cors-origin: .* an origin has no path \(drop \/\)/,
      ],
      [
        [],
        { PAYMENT_API_CORS_ORIGINS: 'http://localhost:5173, *' },
        /^sandbox: PAYMENT_API_CORS_ORIGINS: \*: wildcards/,
      ],
    ] as const) {
      const run = await runSandboxCommand(['--db', ':memory:', '--port', '0', ...args], 20_000, env);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
  });

  it('refuses to start with an origin that is not one', async () => {
    for (const bad of ['*', 'http://localhost:5173/', 'localhost:5173']) {
      await expect(startTestSandbox({ corsOrigins: [bad] })).rejects.toThrow(
        /not an origin|wildcards are not accepted/,
      );
    }
  });
});

describe('the conformance check itself', () => {
  it('fails on a status, header or body the contract does not declare', async () => {
    const ok = new Response('{"id":"pi_1"}', { status: 201, headers: { 'content-type': 'application/json' } });
    const { checkConformance } = await import('../support/sandbox.js');
    await expect(checkConformance('createPaymentIntent', ok)).resolves.toBeUndefined();
    await expect(
      checkConformance(
        'createPaymentIntent',
        new Response('{"id":"pi_1"}', { status: 202, headers: { 'content-type': 'application/json' } }),
      ),
    ).rejects.toThrow(/answered 202, which the contract does not declare/);
    await expect(
      checkConformance(
        'createPaymentIntent',
        new Response('{"id":1}', { status: 201, headers: { 'content-type': 'application/json' } }),
      ),
    ).rejects.toBeInstanceOf(ConformanceError);
    await expect(
      checkConformance(
        'createPaymentIntent',
        new Response('{"id":"x"}', { status: 201, headers: { 'content-type': 'application/json', 'x-debug': '1' } }),
      ),
    ).rejects.toThrow(/header x-debug is not declared/);
    expect(checkResponse(sandboxContract(), 'deleteCustomer', 204, {}, 'oops')).toEqual([
      'deleteCustomer 204: the contract declares no body, got oops',
    ]);
  });
});
