// One behaviour suite, two ways in: a table of scenarios played over HTTP (the sandbox on a socket,
// fastify carrying requests to the core) and in process (createSandbox(): the fetch adapter carrying
// web Requests to the same core). Each step's answer must meet the step's expectation on both, and
// the two transcripts must agree answer for answer (status, media type, the problem's or resource's
// body with generated ids, trace ids and the origin named alike): routing, validation, credentials,
// the rules, problems, idempotency, the clock, the hosted page, the admin API, every contract
// operation's answer held to the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSandbox } from '../../packages/sandbox/src/admin.js';
import { createSandbox } from '../../packages/sandbox/src/node-sandbox.js';
import type { MerchantCredentials } from '../../packages/sandbox/src/types.js';
import { startSandbox } from '../../sandbox/server.js';
import { checkConformance, operationOf, sandboxContract } from '../support/sandbox.js';

/** Both sandboxes' clocks start, and stay, here. */
const NOW = '2026-11-24T09:00:00.000Z';
const MERCHANT_ID = 'merchant_behaviour_table';

interface Way {
  /** The origin requests are addressed to. */
  origin: string;
  fetch(request: Request): Promise<Response>;
  admin: ReturnType<typeof connectSandbox>;
  adminKey: string;
  close(): Promise<void>;
}

/** What a scenario's steps share: the merchant's credentials and what earlier answers named. */
interface Play {
  merchant: MerchantCredentials;
  adminKey: string;
  /** Values earlier steps kept (`keep`), by name. */
  kept: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

interface Step {
  /** The request, its path relative to the origin. */
  request(play: Play): { method: string; path: string; headers?: Record<string, string>; body?: string };
  status: number;
  /** Further expectations on the answer. */
  expect?(answer: Answer, play: Play): void;
  /** Values of the answer later steps need. */
  keep?(answer: Answer): Record<string, string>;
}

const basic = (m: MerchantCredentials) => `Basic ${btoa(`${m.merchantId}:${m.apiKey}`)}`;
const json = (play: Play, extra: Record<string, string> = {}) => ({
  authorization: basic(play.merchant),
  'content-type': 'application/json',
  ...extra,
});
const payment = (transId: string, value = 11_900) =>
  JSON.stringify({
    transId,
    amount: { value, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  });
/** A request of the merchant's: a JSON body (or none), `extra` headers on top; its path may depend on earlier steps. */
const asMerchant =
  (method: string, path: string | ((p: Play) => string), body?: string, extra: Record<string, string> = {}) =>
  (p: Play) => ({
    method,
    path: typeof path === 'string' ? path : path(p),
    headers: json(p, extra),
    ...(body !== undefined ? { body } : {}),
  });
const errorsOf = (a: Answer) => Object.keys((a.json as { errors?: Record<string, unknown> }).errors ?? {});

const SCENARIOS: Record<string, Step[]> = {
  'a payment authorized, captured in part, refunded, read back': [
    {
      request: asMerchant('POST', '/api/v2/payments', payment('ORD-BT-1')),
      status: 201,
      keep: (a) => ({ payId: (a.json as { payId: string }).payId }),
    },
    {
      request: asMerchant(
        'POST',
        (p) => `/api/v2/payments/${p.kept.payId}/captures`,
        JSON.stringify({ transId: 'ORD-BT-1-CAP', amount: { value: 10_000, currency: 'EUR' } }),
      ),
      status: 200,
    },
    {
      request: asMerchant(
        'POST',
        (p) => `/api/v2/payments/${p.kept.payId}/refunds`,
        JSON.stringify({ transId: 'ORD-BT-1-RFD', amount: { value: 20_000, currency: 'EUR' } }),
      ),
      // More than was captured: the rules refuse it.
      status: 422,
    },
    {
      request: asMerchant('GET', (p) => `/api/v2/payments/getByPayId/${p.kept.payId}`),
      status: 200,
      expect: (a) => expect(a.json).toMatchObject({ state: 'PARTIALLY_CAPTURED' }),
    },
    {
      request: asMerchant('HEAD', (p) => `/api/v2/payments/getByPayId/${p.kept.payId}`),
      status: 200,
      expect: (a) => expect(a.text).toBe(''),
    },
  ],
  'idempotency: a replay is marked, a different body under the same key conflicts': [
    {
      request: asMerchant('POST', '/api/v2/payments', payment('ORD-BT-2'), { 'idempotency-key': 'bt-key-1' }),
      status: 201,
      expect: (a) => expect(a.headers.get('idempotent-replayed')).toBeNull(),
    },
    {
      request: asMerchant('POST', '/api/v2/payments', payment('ORD-BT-2'), { 'idempotency-key': 'bt-key-1' }),
      status: 201,
      expect: (a) => expect(a.headers.get('idempotent-replayed')).toBe('true'),
    },
    {
      request: asMerchant('POST', '/api/v2/payments', payment('ORD-BT-2', 500), { 'idempotency-key': 'bt-key-1' }),
      status: 409,
    },
  ],
  'credentials: none, wrong, and a live key on the test root': [
    {
      request: () => ({ method: 'GET', path: '/api/v2/payments/getByTransId/ORD-X' }),
      status: 401,
      expect: (a) => expect(a.headers.get('www-authenticate')).toBeTruthy(),
    },
    {
      request: (p) => ({
        method: 'POST',
        path: '/api/v2/payments',
        headers: {
          authorization: basic({ ...p.merchant, apiKey: 'sk_test_wrong' }),
          'content-type': 'application/json',
        },
        body: payment('ORD-BT-3'),
      }),
      status: 401,
    },
  ],
  'input: a field, malformed JSON, a media type, a required body, a deep body, a body over the limit': [
    {
      request: asMerchant(
        'POST',
        '/api/v2/payments',
        JSON.stringify({ transId: 'ORD-BT-4', amount: { value: -1, currency: 'EURO' } }),
      ),
      status: 400,
      expect: (a) => expect(errorsOf(a).length).toBeGreaterThan(0),
    },
    {
      request: asMerchant('POST', '/api/v2/payments', '{"transId":'),
      status: 400,
      expect: (a) => expect(errorsOf(a)).toEqual(['(body)']),
    },
    {
      request: (p) => ({
        method: 'POST',
        path: '/api/v2/payments',
        headers: { ...json(p), 'content-type': 'text/plain' },
        body: payment('ORD-BT-4'),
      }),
      status: 415,
    },
    {
      request: asMerchant('POST', '/api/v2/payments'),
      status: 400,
      expect: (a) => expect(errorsOf(a)).toEqual(['(body)']),
    },
    {
      request: asMerchant('POST', '/api/v2/payments', `${'['.repeat(200)}${']'.repeat(200)}`),
      status: 400,
    },
    {
      request: asMerchant(
        'POST',
        '/api/v2/payments',
        JSON.stringify({ transId: 'ORD-BT-4b', metadata: { pad: 'p'.repeat(1_100_000) } }),
      ),
      // Over the body limit: refused before it is parsed.
      status: 413,
    },
  ],
  'routing: no such operation, a trailing slash, case, a bad escape, an overlong parameter': [
    { request: asMerchant('GET', '/api/v2/nothing-here'), status: 404 },
    { request: asMerchant('GET', '/api/v2/payments/getByPayId/abc/'), status: 404 },
    { request: asMerchant('GET', '/API/v2/payments/getByPayId/abc'), status: 404 },
    {
      request: asMerchant('GET', '/api/v2/payments/getByPayId/%E0%A4%A'),
      status: 400,
      expect: (a) => expect(errorsOf(a)).toEqual(['id']),
    },
    {
      request: asMerchant('GET', `/api/v2/payments/getByPayId/${'a'.repeat(3_000)}`),
      status: 400,
      expect: (a) => expect(errorsOf(a)).toEqual(['id']),
    },
    {
      request: asMerchant('GET', '/api/v2/payments/getByPayId/0000000000000000000000000000dead'),
      status: 404,
    },
  ],
  'the hosted page: a checkout session shown, paid, used': [
    {
      request: asMerchant(
        'POST',
        '/api/v2/payments/sessions',
        JSON.stringify({
          transId: 'ORD-BT-5',
          amount: { value: 4_990, currency: 'EUR' },
          urls: {
            return: 'https://shop.example/return',
            cancel: 'https://shop.example/cancel',
            webhook: 'https://shop.example/hook',
          },
        }),
      ),
      status: 202,
      keep: (a) => ({
        page: new URL((a.json as { _links: { redirect: { href: string } } })._links.redirect.href).pathname,
      }),
    },
    {
      request: (p) => ({ method: 'GET', path: p.kept.page! }),
      status: 200,
      expect: (a) => expect(a.headers.get('content-type')).toMatch(/^text\/html/),
    },
    {
      request: (p) => ({
        method: 'POST',
        path: p.kept.page!,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=pay&method=CARD',
      }),
      status: 303,
      expect: (a) => expect(a.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return/),
    },
    {
      request: (p) => ({
        method: 'POST',
        path: p.kept.page!,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=pay&method=CARD',
      }),
      status: 410,
    },
    {
      request: (p) => ({
        method: 'POST',
        path: p.kept.page!,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      status: 415,
    },
  ],
  'the clock and the admin API: a delayed capture happens when the clock passes it': [
    {
      request: asMerchant(
        'POST',
        '/api/v2/payments',
        JSON.stringify({
          ...JSON.parse(payment('ORD-BT-6')),
          captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } },
        }),
      ),
      status: 201,
      keep: (a) => ({ payId: (a.json as { payId: string }).payId }),
    },
    {
      request: (p) => ({
        method: 'POST',
        path: `/_sandbox/clocks/${p.merchant.merchantId}/test/advance`,
        headers: { 'content-type': 'application/json' },
        body: '{"seconds":60}',
      }),
      status: 401,
    },
    {
      request: (p) => ({
        method: 'POST',
        path: `/_sandbox/clocks/${p.merchant.merchantId}/test/advance`,
        headers: { authorization: `Bearer ${p.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ seconds: 3 * 3_600 }),
      }),
      status: 200,
    },
    {
      request: asMerchant('GET', (p) => `/api/v2/payments/getByPayId/${p.kept.payId}`),
      status: 200,
      expect: (a) => expect((a.json as { state: string }).state).toBe('CAPTURED'),
    },
    {
      request: (p) => ({
        method: 'GET',
        path: '/_sandbox/no-such',
        headers: { authorization: `Bearer ${p.adminKey}` },
      }),
      status: 404,
    },
  ],
};

/** An answer with what differs by nature between two sandboxes named alike: generated ids, the origin. */
function normalized(answer: Answer, origin: string): string {
  const names = new Map<string, string>();
  const text = answer.text.replaceAll(origin, '<origin>').replace(/\b(?:[a-z]{2,4}_)?[0-9A-Za-z]{16,}\b/g, (token) => {
    if (!/\d/.test(token)) return token;
    if (!names.has(token)) names.set(token, `<id${names.size}>`);
    return names.get(token)!;
  });
  return `${answer.status} ${answer.headers.get('content-type') ?? ''} ${text}`;
}

async function play(way: Way, merchant: MerchantCredentials, steps: Step[]): Promise<string[]> {
  const state: Play = { merchant, adminKey: way.adminKey, kept: {} };
  const transcript: string[] = [];
  for (const [index, step] of steps.entries()) {
    const r = step.request(state);
    const request = new Request(`${way.origin}${r.path}`, {
      method: r.method,
      headers: r.headers,
      // The hosted page's 303 is an answer to compare, not to follow.
      redirect: 'manual',
      ...(r.body !== undefined ? { body: r.body } : {}),
    });
    const response = await way.fetch(request);
    const operation = operationOf(request.url, request.method);
    if (operation && r.method !== 'HEAD') await checkConformance(operation.operationId, response.clone());
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const answer: Answer = { status: response.status, headers: response.headers, text, json: body };
    expect(answer.status, `step ${index + 1}: ${r.method} ${r.path.slice(0, 80)} → ${text.slice(0, 300)}`).toBe(
      step.status,
    );
    step.expect?.(answer, state);
    Object.assign(state.kept, step.keep?.(answer));
    transcript.push(normalized(answer, way.origin));
  }
  return transcript;
}

const ways: Record<'http' | 'in-process', Way> = {} as never;

beforeAll(async () => {
  const overHttp = await startSandbox({
    port: 0,
    database: ':memory:',
    now: new Date(NOW),
    contract: sandboxContract(),
  });
  ways.http = {
    origin: overHttp.url,
    fetch: (request) => fetch(request),
    admin: connectSandbox({ origin: overHttp.url, adminKey: overHttp.adminKey }),
    adminKey: overHttp.adminKey,
    close: () => overHttp.close(),
  };
  const inProcess = await createSandbox({ now: NOW });
  ways['in-process'] = {
    origin: inProcess.origin,
    fetch: (request) => inProcess.fetch(request),
    admin: inProcess,
    adminKey: inProcess.adminKey,
    close: () => inProcess.close(),
  };
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(ways).map((way) => way.close()));
});

describe('one behaviour suite over HTTP and in process', () => {
  for (const [name, steps] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      const transcripts: string[][] = [];
      for (const way of [ways.http, ways['in-process']]) {
        const merchant = await way.admin.createMerchant({ merchantId: MERCHANT_ID });
        try {
          transcripts.push(await play(way, merchant, steps));
        } finally {
          await way.admin.deleteMerchant(merchant.merchantId);
        }
      }
      expect(transcripts[1]).toEqual(transcripts[0]);
    });
  }
});
