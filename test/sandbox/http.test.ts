// The sandbox's HTTP layer, on SQLite and on PostgreSQL: every operation is routed from the
// contract under both roots; credentials per operation; validation of every part of a request with
// the contract's 400 naming each field; 413 and 415; the roots and merchants keep their data
// apart; CORS only where a browser may call. Every response goes through the conformance check.
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { operations as contractOperations } from '../../tooling/openapi/walker.js';
import { checkResponse } from '../support/contract-check.js';
import { databases, STORES } from '../support/postgres.js';
import { ConformanceError, conformingFetch, sandboxContract, sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();

const cardPayment = (transId: string, extra: Record<string, unknown> = {}) => ({
  transId,
  amount: { value: 2500, currency: 'USD' },
  captureMethod: { type: 'MANUAL' },
  paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  ...extra,
});

describe.each(STORES)('the sandbox on %s', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

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
      expect(r.body.errors.simulationMode[0]).toMatch(/unknown simulation code; the contract lists SUCCESS, DECLINED/);
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
