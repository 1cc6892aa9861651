// The fault-injecting proxy (test/support/fault-proxy.ts) against a sandbox in this process: without a
// fault it is transparent, and each fault changes what a client sees as its description says (and no
// more than that where a test can tell). Requests through the proxy use plain `fetch`: their answers
// are meant to break the contract, which the sandbox's own `call` would refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import { CHECK_NAMES } from '../../packages/verify/src/types.js';
import { checkResponse } from '../support/contract-check.js';
import { type FakeApi, type RecordedRequest, reply, startFakeApi } from '../support/fake-api.js';
import {
  FAULTS,
  type FaultName,
  type FaultProxy,
  sandboxBehindFaultProxy,
  startFaultProxy,
} from '../support/fault-proxy.js';
import { eventually } from '../support/receiver.js';
import { bearerOf, cardPayment, merchantUrls, sandboxContract, type TestSandbox, transId } from '../support/sandbox.js';
import { checkDelivery } from '../support/webhook-check.js';

/** The checks of `payment-verify` (packages/verify), which FAULTS names. */
const CHECKS: readonly string[] = CHECK_NAMES;

/** Headers of one connection, which no proxy passes on, and the time of the answer. */
const PER_CONNECTION = new Set(['connection', 'keep-alive', 'date']);

type Answer = { status: number; headers: Headers; text: string; body: any };

let t: TestSandbox;
let proxy: FaultProxy;
/** The merchant's webhook endpoint: records what arrives and judges nothing, since the faults break deliveries. */
let receiver: FakeApi;

// Registered before the suite's own: after hooks run in reverse order, so the receiver closes last.
afterAll(async () => {
  await receiver?.close();
});
const suite = sandboxBehindFaultProxy();
beforeAll(async () => {
  receiver = await startFakeApi((request) => reply(request.path === '/hook/busy' ? 503 : 200, 'ok'));
  ({ t, proxy } = suite());
});

/** A request through the proxy with plain fetch; `authorization: null` sends none. */
async function viaProxy(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; authorization?: string | null; root?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.authorization !== null) headers.authorization = options.authorization ?? t.basic();
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = path.startsWith('/hosted/') ? `${proxy.url}${path}` : `${proxy.url}${options.root ?? '/api/v2'}${path}`;
  const response = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** What the contract finds wrong with an answer of an operation (its status, headers and body). */
const violations = (operationId: OperationId, answer: Answer) =>
  checkResponse(sandboxContract(), operationId, answer.status, Object.fromEntries(answer.headers), answer.text);

/** Headers as a record, less those of the connection; `also` drops more. */
const endToEnd = (headers: Headers, also: string[] = []) =>
  Object.fromEntries([...headers].filter(([name]) => !PER_CONNECTION.has(name) && !also.includes(name)));

const token = {
  body: 'grant_type=client_credentials',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
};

/** A MANUAL card payment of 25.00 USD created on the sandbox itself (authorized); its payId. */
async function authorized(): Promise<string> {
  const created = await t.call('POST', '/payments', { body: cardPayment(transId('FP')) });
  expect(created.status).toBe(201);
  return created.body.payId as string;
}

const read = async (payId: string) => (await t.call('GET', `/payments/getByPayId/${payId}`)).body;

/** A HOSTED payment created through the proxy with the receiver's `path` as its webhook, paid on its page through the proxy; the delivery. */
async function hostedDelivery(path: string): Promise<RecordedRequest> {
  const created = await viaProxy('POST', '/payments', {
    body: {
      transId: transId('FPH'),
      amount: { value: 700, currency: 'USD' },
      urls: merchantUrls(`${receiver.baseUrl}${path}`),
    },
  });
  expect(created.status, created.text).toBe(201);
  const page = new URL(created.body._links.redirect.href as string);
  const paid = await fetch(`${proxy.url}${page.pathname}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: 'pay', method: 'CARD' }).toString(),
  });
  expect(paid.status).toBe(303);
  const delivery = await eventually(`a notification on ${path}`, () => receiver.to(path)[0]);
  expect(JSON.parse(delivery.body)).toMatchObject({ payId: created.body.payId });
  return delivery;
}

describe('FAULTS', () => {
  it('names the faults, each with a description and the checks that catch it', () => {
    expect(Object.keys(FAULTS)).toEqual(
      expect.arrayContaining([
        'drop-required-field',
        'wrong-status',
        'missing-required-header',
        'wrong-content-type',
        'server-error-on-bad-input',
        'idempotency-key-ignored',
        'replay-without-marker',
        'cross-merchant-read',
        'capture-above-authorized',
        'read-changed',
        'webhook-signed-over-other-bytes',
        'webhook-outside-schema',
        '401-without-challenge',
        'token-cacheable',
        'test-token-on-live',
        'refund-above-captured',
      ]),
    );
    for (const [name, fault] of Object.entries(FAULTS)) {
      expect(fault.description.length, name).toBeGreaterThan(20);
      expect(fault.caughtBy.length, name).toBeGreaterThan(0);
      expect(CHECKS, name).toEqual(expect.arrayContaining(fault.caughtBy));
    }
  });
});

describe('without a fault', () => {
  it('answers as the sandbox does: status, headers and body', async () => {
    const payId = await authorized();
    for (const path of [`/payments/getByPayId/${payId}`, '/customers?page=1', '/payments/getByPayId/nothing-here']) {
      const direct = await t.call('GET', path);
      const proxied = await viaProxy('GET', path);
      expect(proxied.status, path).toBe(direct.status);
      // A 404 names its own trace.
      const { traceId: _d, ...directBody } = direct.body;
      const { traceId: _p, ...proxiedBody } = proxied.body;
      expect(proxiedBody, path).toEqual(directBody);
      expect(endToEnd(proxied.headers), path).toEqual(endToEnd(direct.headers));
      expect(violations(path.startsWith('/customers') ? 'listCustomers' : 'getPaymentByPayId', proxied)).toEqual([]);
    }

    const unauthorized = await viaProxy('GET', `/payments/getByPayId/${payId}`, { authorization: 'Basic eDp5' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(violations('getPaymentByPayId', unauthorized)).toEqual([]);

    const issued = await viaProxy('POST', '/authorization/oauth/token', token);
    expect(issued.status).toBe(200);
    expect(endToEnd(issued.headers, ['content-length'])).toEqual({
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'content-type': 'application/json; charset=utf-8',
    });

    const invalid = await viaProxy('POST', '/payments', { body: { transId: 5 } });
    expect(invalid.status).toBe(400);
    expect(violations('createPayment', invalid)).toEqual([]);
  });

  it('serves the hosted page as the sandbox does', async () => {
    const created = await t.call('POST', '/payments', {
      body: { transId: transId('FPP'), amount: { value: 700, currency: 'USD' }, urls: merchantUrls() },
    });
    const page = new URL(created.body._links.redirect.href as string);
    const direct = await fetch(page);
    const proxied = await fetch(`${proxy.url}${page.pathname}`);
    expect(proxied.status).toBe(200);
    expect(await proxied.text()).toBe(await direct.text());
    expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
  });

  it('replays an Idempotency-Key with its marker, and refuses it with another body', async () => {
    const body = cardPayment(transId('FPI'));
    const headers = { 'idempotency-key': transId('key') };
    const first = await viaProxy('POST', '/payments', { body, headers });
    const again = await viaProxy('POST', '/payments', { body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.payId).toBe(first.body.payId);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await viaProxy('POST', '/payments', { body: { ...body, transId: transId('FPI') }, headers });
    expect(other.status).toBe(409);
  });

  it('serves the hosted page, and relays the signed notification to the original webhook URL unchanged', async () => {
    const delivery = await hostedDelivery('/hook/none');
    expect(delivery.method).toBe('POST');
    expect(delivery.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await checkDelivery(delivery)).toEqual([]);
  });

  it('refuses captures and refunds beyond what the payment holds, and reads what it holds', async () => {
    const payId = await authorized();
    const capture = await viaProxy('POST', `/payments/${payId}/captures`, {
      body: { transId: transId('FPC'), amount: { value: 2600, currency: 'USD' } },
    });
    expect(capture.status).toBe(422);
    const refund = await viaProxy('POST', `/payments/${payId}/refunds`, {
      body: { transId: transId('FPR'), amount: { value: 1, currency: 'USD' } },
    });
    expect(refund.status).toBe(422);
    const other = await viaProxy('GET', `/payments/getByPayId/${payId}`, { authorization: t.basic(t.other) });
    expect(other.status).toBe(404);
  });
});

describe('forwarding', () => {
  it('passes method, path, query, headers and the raw body on, and the answer back', async () => {
    const upstream = await startFakeApi(() => reply(418, { teapot: true }, { 'x-upstream': 'yes' }));
    const front = await startFaultProxy({ upstream: upstream.baseUrl, webhookSecrets: {}, merchants: [] });
    try {
      const body = `${JSON.stringify({ transId: 'X', note: 'ü' })}  `;
      const headers = { authorization: 'Basic YTpi', 'x-custom': 'v', 'content-type': 'application/json' };
      const answer = await fetch(`${front.url}/api/v2/payments/x?b=2&a=1&a=3`, { method: 'PATCH', headers, body });
      expect(answer.status).toBe(418);
      expect(answer.headers.get('x-upstream')).toBe('yes');
      expect(await answer.json()).toEqual({ teapot: true });
      const seen = upstream.requests[0]!;
      expect(seen).toMatchObject({ method: 'PATCH', path: '/api/v2/payments/x', body });
      expect(seen.query.toString()).toBe('b=2&a=1&a=3');
      expect(seen.headers).toMatchObject({ ...headers, host: new URL(upstream.baseUrl).host });
    } finally {
      await front.stop();
      await upstream.close();
    }
  });

  it('points every urls.webhook of a JSON body at its relay', async () => {
    const upstream = await startFakeApi(() => reply(202, {}));
    const front = await startFaultProxy({ upstream: upstream.baseUrl, webhookSecrets: {}, merchants: [] });
    try {
      const hook = 'http://shop.example/hook?x=1';
      const body = { transId: 'S', urls: merchantUrls(hook), items: [{ urls: { webhook: 'https://b.example/h' } }] };
      await fetch(`${front.url}/api/v2/payments/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const sent = JSON.parse(upstream.requests[0]!.body);
      expect(sent.urls).toEqual({ ...merchantUrls(), webhook: `${front.url}/__relay/${encodeURIComponent(hook)}` });
      expect(sent.items[0].urls.webhook).toBe(`${front.url}/__relay/${encodeURIComponent('https://b.example/h')}`);
    } finally {
      await front.stop();
      await upstream.close();
    }
  });

  it('relays method, headers and raw body to the original URL, and its answer back', async () => {
    const relay = (path: string) => `${proxy.url}/__relay/${encodeURIComponent(`${receiver.baseUrl}${path}?q=1`)}`;
    const body = '{"payId":"a"}  ';
    const headers = { 'content-type': 'application/json', 'x-webhook-signature': 't=1,v1=ab', 'x-other': '1' };
    const answer = await fetch(relay('/hook/relay'), { method: 'POST', headers, body });
    expect([answer.status, await answer.text()]).toEqual([200, 'ok']);
    const seen = receiver.to('/hook/relay')[0]!;
    expect(seen).toMatchObject({ method: 'POST', body, headers });
    expect(seen.query.get('q')).toBe('1');
    const busy = await fetch(relay('/hook/busy'), { method: 'POST', headers, body });
    expect(busy.status).toBe(503);

    // The basic notification (unsigned) loses its payId, and stays unsigned.
    proxy.setFault('webhook-outside-schema');
    await fetch(relay('/hook/basic'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const basic = receiver.to('/hook/basic')[0]!;
    expect(JSON.parse(basic.body)).toEqual({});
    expect(basic.headers['x-webhook-signature']).toBeUndefined();
  });
});

describe('each fault', () => {
  const plant = (fault: FaultName) => proxy.setFault(fault);

  it('drop-required-field: createPayment and the reads lose xId', async () => {
    plant('drop-required-field');
    const created = await viaProxy('POST', '/payments', { body: cardPayment(transId('F1')) });
    expect(created.status).toBe(201);
    expect(created.body.payId).toMatch(/./);
    expect(created.body).not.toHaveProperty('xId');
    expect(violations('createPayment', created).join('\n')).toMatch(/required.*xId/);
    const proxied = await viaProxy('GET', `/payments/getByPayId/${created.body.payId}`);
    expect(proxied.body).not.toHaveProperty('xId');
    expect(violations('getPaymentByPayId', proxied).join('\n')).toMatch(/xId/);
    expect(await read(created.body.payId)).toHaveProperty('xId');
  });

  it('wrong-status: createPayment answers 200, and the payment is created', async () => {
    plant('wrong-status');
    const created = await viaProxy('POST', '/payments', { body: cardPayment(transId('F2')) });
    expect(created.status).toBe(200);
    expect(violations('createPayment', created)).toEqual([expect.stringMatching(/answered 200.*does not declare/)]);
    expect((await read(created.body.payId)).state).toBe('AUTHORIZED');
  });

  it('missing-required-header: the token comes without Pragma', async () => {
    plant('missing-required-header');
    const issued = await viaProxy('POST', '/authorization/oauth/token', token);
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect(issued.headers.get('pragma')).toBeNull();
    expect(violations('createAccessToken', issued)).toEqual([expect.stringMatching(/required header pragma/)]);
  });

  it('wrong-content-type: JSON answers come as text/plain, the body unchanged', async () => {
    const payId = await authorized();
    plant('wrong-content-type');
    const proxied = await viaProxy('GET', `/payments/getByPayId/${payId}`);
    expect(proxied.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(proxied.body).toEqual(await read(payId));
    expect(violations('getPaymentByPayId', proxied)).toEqual([expect.stringMatching(/content-type text\/plain/)]);
    const invalid = await viaProxy('POST', '/payments', { body: { transId: 5 } });
    expect([invalid.status, invalid.headers.get('content-type')]).toEqual([400, 'text/plain; charset=utf-8']);
  });

  it('server-error-on-bad-input: a 400 becomes a 500 with the declared 500 body', async () => {
    plant('server-error-on-bad-input');
    const invalid = await viaProxy('POST', '/payments', { body: { transId: 5 } });
    expect(invalid.status).toBe(500);
    expect(invalid.body).toEqual({ responseCode: '99999999', responseDescription: 'Internal server error' });
    // Declared: only the checks that expect no 5xx, or a 400 for bad input, can tell.
    expect(violations('createPayment', invalid)).toEqual([]);
    const plans = await viaProxy('GET', '/payment-plans?page=0');
    expect(plans.status).toBe(500);
    expect(plans.body.status).toBe('500');
    expect(violations('listPaymentPlans', plans)).toEqual([]);
  });

  it('idempotency-key-ignored: a repeated request runs again, a reused key with another body is accepted', async () => {
    plant('idempotency-key-ignored');
    const body = cardPayment(transId('F6'));
    const headers = { 'idempotency-key': transId('key') };
    const first = await viaProxy('POST', '/payments', { body, headers });
    const again = await viaProxy('POST', '/payments', { body, headers });
    expect([first.status, again.status]).toEqual([201, 422]);
    const other = await viaProxy('POST', '/payments', { body: { ...body, transId: transId('F6') }, headers });
    expect(other.status).toBe(201);
    expect(other.body.payId).not.toBe(first.body.payId);
  });

  it('replay-without-marker: a replay comes without Idempotent-Replayed', async () => {
    plant('replay-without-marker');
    const body = cardPayment(transId('F7'));
    const headers = { 'idempotency-key': transId('key') };
    const first = await viaProxy('POST', '/payments', { body, headers });
    const again = await viaProxy('POST', '/payments', { body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const direct = await t.call('POST', '/payments', { body, headers });
    expect(direct.headers.get('idempotent-replayed')).toBe('true');
  });

  it("cross-merchant-read: the second merchant reads the first one's payment", async () => {
    const payId = await authorized();
    plant('cross-merchant-read');
    const proxied = await viaProxy('GET', `/payments/getByPayId/${payId}`, { authorization: t.basic(t.other) });
    expect(proxied.status).toBe(200);
    expect(proxied.body).toMatchObject({ payId, merchantId: t.merchant.merchantId });
    expect((await t.call('GET', `/payments/getByPayId/${payId}`, { who: t.other })).status).toBe(404);
  });

  it('capture-above-authorized: a capture beyond the authorization is accepted', async () => {
    const payId = await authorized();
    plant('capture-above-authorized');
    const beyond = await viaProxy('POST', `/payments/${payId}/captures`, {
      body: { transId: transId('F9'), amount: { value: 2600, currency: 'USD' } },
    });
    expect(beyond.status).toBe(200);
    expect(violations('capturePayment', beyond)).toEqual([]);
    expect(await read(payId)).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 2500 } });
    // Nothing left to capture: the success is made up, and the payment stays as it was.
    const more = await viaProxy('POST', `/payments/${payId}/captures`, {
      body: { transId: transId('F9'), amount: { value: 100, currency: 'USD' } },
    });
    expect(more.status).toBe(200);
    expect(more.body).toMatchObject({ payId, status: 'OK', responseCode: '00000000' });
    expect(violations('capturePayment', more)).toEqual([]);
    expect(await read(payId)).toMatchObject({ capturedAmount: { value: 2500 } });
    // A capture within the authorization is passed on as it is.
    const within = await authorized();
    const partial = await viaProxy('POST', `/payments/${within}/captures`, {
      body: { transId: transId('F9'), amount: { value: 1000, currency: 'USD' } },
    });
    expect(partial.status).toBe(200);
    expect(await read(within)).toMatchObject({ state: 'PARTIALLY_CAPTURED', capturedAmount: { value: 1000 } });
  });

  it('refund-above-captured: a refund beyond the captured amount is accepted', async () => {
    const payId = await authorized();
    await t.call('POST', `/payments/${payId}/captures`, {
      body: { transId: transId('F16'), amount: { value: 1000, currency: 'USD' } },
    });
    plant('refund-above-captured');
    const beyond = await viaProxy('POST', `/payments/${payId}/refunds`, {
      body: { transId: transId('F16'), amount: { value: 1500, currency: 'USD' } },
    });
    expect(beyond.status).toBe(200);
    expect(violations('refundPayment', beyond)).toEqual([]);
    expect(await read(payId)).toMatchObject({ capturedAmount: { value: 1000 }, refundedAmount: { value: 1000 } });
    const more = await viaProxy('POST', `/payments/${payId}/refunds`, {
      body: { transId: transId('F16'), amount: { value: 1, currency: 'USD' } },
    });
    expect(more.status).toBe(200);
    expect(await read(payId)).toMatchObject({ refundedAmount: { value: 1000 } });
  });

  it('read-changed: the reads report another captured amount and state, still valid', async () => {
    const payId = await authorized();
    const capture = await t.call('POST', `/payments/${payId}/captures`, {
      body: { transId: transId('F10'), amount: { value: 1000, currency: 'USD' } },
    });
    plant('read-changed');
    const byPayId = await viaProxy('GET', `/payments/getByPayId/${payId}`);
    expect(byPayId.body).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 1001 } });
    expect(violations('getPaymentByPayId', byPayId)).toEqual([]);
    const byTransId = await viaProxy('GET', `/payments/getByTransId/${byPayId.body.transId}`);
    expect(byTransId.body).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 1001 } });
    expect(capture.status).toBe(200);
    expect(await read(payId)).toMatchObject({ state: 'PARTIALLY_CAPTURED', capturedAmount: { value: 1000 } });
  });

  it('401-without-challenge: a 401 comes without WWW-Authenticate', async () => {
    plant('401-without-challenge');
    const unauthorized = await viaProxy('GET', '/payments/getByPayId/x', { authorization: null });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBeNull();
    expect(violations('getPaymentByPayId', unauthorized)).toEqual([
      expect.stringMatching(/required header www-authenticate/),
    ]);
  });

  it('token-cacheable: the token comes without Cache-Control and Pragma', async () => {
    plant('token-cacheable');
    const issued = await viaProxy('POST', '/authorization/oauth/token', token);
    expect(issued.status).toBe(200);
    expect([issued.headers.get('cache-control'), issued.headers.get('pragma')]).toEqual([null, null]);
    expect(violations('createAccessToken', issued)).toHaveLength(2);
  });

  it('test-token-on-live: a test token reads on the live root', async () => {
    const payId = await authorized();
    const bearer = await bearerOf(t);
    const path = `/payments/getByPayId/${payId}`;
    const refused = await viaProxy('GET', path, { authorization: bearer, root: '/live/api/v2' });
    expect(refused.status).toBe(401);
    plant('test-token-on-live');
    const accepted = await viaProxy('GET', path, { authorization: bearer, root: '/live/api/v2' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.payId).toBe(payId);
  });

  it('not-found-as-400: a 404 comes as a 400 with its body', async () => {
    plant('not-found-as-400');
    const missing = await viaProxy('GET', '/payments/getByPayId/nothing-here');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ status: 404, title: 'Payment not found.' });
    expect(violations('getPaymentByPayId', missing).join('\n')).toMatch(/errors/);
  });

  it('credentials-not-required: a request without credentials is answered as the first merchant', async () => {
    const payId = await authorized();
    plant('credentials-not-required');
    const read = await viaProxy('GET', `/payments/getByPayId/${payId}`, { authorization: null });
    expect(read.status).toBe(200);
    expect(read.body.payId).toBe(payId);
  });

  it('webhook-signed-over-other-bytes: the notification no longer matches its signature', async () => {
    plant('webhook-signed-over-other-bytes');
    const delivery = await hostedDelivery('/hook/other-bytes');
    expect(delivery.body).toContain('\n  "payId"');
    expect(await checkDelivery(delivery)).toEqual([expect.stringMatching(/signature: .*match/i)]);
  });

  it('webhook-outside-schema: the notification misses state, signed correctly', async () => {
    plant('webhook-outside-schema');
    const delivery = await hostedDelivery('/hook/outside-schema');
    expect(JSON.parse(delivery.body)).not.toHaveProperty('state');
    expect(await checkDelivery(delivery)).toEqual([
      expect.stringMatching(/enhancedPaymentNotification: body: .*state/),
    ]);
  });

  it('webhook-unsigned: the notification comes without its signature', async () => {
    plant('webhook-unsigned');
    const delivery = await hostedDelivery('/hook/unsigned');
    expect(delivery.headers['x-webhook-signature']).toBeUndefined();
    expect((await checkDelivery(delivery)).length).toBeGreaterThan(0);
  });

  it('stops planting when the fault is cleared', async () => {
    plant('wrong-status');
    proxy.setFault(undefined);
    const created = await viaProxy('POST', '/payments', { body: cardPayment(transId('F0')) });
    expect(created.status).toBe(201);
  });
});
