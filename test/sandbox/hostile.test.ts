// The sandbox against a hostile merchant, on SQLite (what PostgreSQL cannot store, on both stores):
// keys named like Object.prototype's members, bodies nested 10 000 deep, text PostgreSQL cannot
// store (NUL, lone surrogates), URLs fastify cannot route, bodies and headers over the limits,
// unauthenticated bodies, the hosted form in a browser's other encoding, merchant URLs a root must
// not accept, an empty Idempotency-Key, capability URLs in the log. Each is answered as the contract
// says (a 400 naming the field, the operation's 401, 413 or 415, the hosted page's HTML), never a
// 5xx, and nothing is logged as a failure. Responses of contract operations are checked against the
// contract (conformingFetch, or checkResponse for those fetch cannot send). Slow and greedy clients:
// limits.test.ts.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import { METADATA_LIMIT_BYTES } from '../../sandbox/http/limits.js';
import { checkResponse } from '../support/contract-check.js';
import { databases, HTTP_STORES, STORES } from '../support/postgres.js';
import { head, rawExchange } from '../support/raw-http.js';
import {
  cardPayment,
  checkoutSession,
  conformingFetch,
  merchantUrls,
  sandboxContract,
  sandboxPerSuite,
  startTestSandbox,
  transId,
} from '../support/sandbox.js';

const dbs = databases();

/** A response of `operationId` as raw text would be checked: violations of the contract, none expected. */
const conforms = (
  operationId: OperationId,
  answer: { status?: number; headers: Record<string, string>; body: string },
) => checkResponse(sandboxContract(), operationId, answer.status ?? 0, answer.headers, answer.body);

/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/**
 * For a suite on `kind`: a sandbox that starts before its tests, and the rule that nothing a client
 * sends is logged as the sandbox's failure (no "failed" line, no stack trace).
 */
function hostileSuite(kind: 'sqlite' | 'postgres') {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));
  let failures: MockInstance<typeof console.error>;
  beforeEach(() => {
    failures = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    const logged = failures.mock.calls.map((call) => String(call[0]));
    failures.mockRestore();
    expect(logged).toEqual([]);
  });
  const url = () => sandbox().url;
  return { sandbox, url, port: () => Number(new URL(url()).port), auth: () => `Authorization: ${sandbox().basic()}` };
}

describe.each(HTTP_STORES)('a hostile merchant, on %s', (kind) => {
  const { sandbox, url, port, auth } = hostileSuite(kind);

  describe('keys named like Object.prototype members', () => {
    it('query parameters: an unknown one is a 400 naming it, whatever its name', async () => {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
        const customers = await sandbox().call('GET', `/customers?${name}=1`);
        expect(customers.status, name).toBe(400);
        expect(Object.keys(customers.body.errors), name).toEqual([name]);
        const plans = await sandbox().call('GET', `/payment-plans?${name}=x&Page=1`);
        expect(plans.status, name).toBe(400);
        expect(plans.body.status).toBe('400');
        expect(Object.keys(plans.body.errors), name).toEqual([name]);
      }
    });

    it('body keys: allowed where the schema allows any key (metadata), read back as sent; replays hash them', async () => {
      const metadata = JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","valueOf":1,"toString":"t"}');
      const id = transId('PROTO');
      const body = JSON.stringify(cardPayment(id, { metadata }));
      const key = { 'idempotency-key': `proto-${id}` };
      const created = await sandbox().call('POST', '/payments', { body, headers: key });
      expect(created.status).toBe(201);
      expect(JSON.stringify(created.body.metadata)).toBe(JSON.stringify(metadata));
      const read = await sandbox().call('GET', `/payments/getByTransId/${id}`);
      expect(JSON.stringify(read.body.metadata)).toBe(JSON.stringify(metadata));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const replay = await sandbox().call('POST', '/payments', { body, headers: key });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const changed = body.replace('"polluted":true', '"polluted":false');
      expect((await sandbox().call('POST', '/payments', { body: changed, headers: key })).status).toBe(409);
      // Elsewhere such keys are unknown fields, which the contract's schemas let through: no 500.
      const stray = await sandbox().call('POST', '/payments', { body: '{"valueOf":1,"__proto__":{"transId":"x"}}' });
      expect(stray.status).toBe(400);
      expect(Object.keys(stray.body.errors).sort()).toEqual(['amount', 'transId']);
    });

    it('form fields of the token endpoint, and the admin API', async () => {
      for (const field of ['constructor', '__proto__', 'toString']) {
        const token = await sandbox().call('POST', '/authorization/oauth/token', {
          body: `grant_type=client_credentials&${field}=1`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(token.status, field).toBe(200);
      }
      const admin = { authorization: `Bearer ${sandbox().sandbox.adminKey}`, 'content-type': 'application/json' };
      const reset = await fetch(`${url()}/_sandbox/reset`, {
        method: 'POST',
        headers: admin,
        body: '{"constructor":1,"merchantId":"nobody-at-all"}',
      });
      expect(reset.status).toBe(400);
      expect(Object.keys((await reset.json()).errors)).toEqual(['constructor']);
      const list = await fetch(`${url()}/_sandbox/webhook-deliveries?hasOwnProperty=1`, { headers: admin });
      expect(list.status).toBe(400);
      expect(Object.keys((await list.json()).errors)).toEqual(['hasOwnProperty']);
    });
  });

  describe('deep bodies', () => {
    it('a body nested 10 000 deep is a 400 before it is parsed; 60 deep is fine', async () => {
      const deep = `{"transId":"DEEP","amount":{"value":1,"currency":"USD"},"metadata":{"x":${nested(10_000)}}}`;
      const refused = await sandbox().call('POST', '/payments', {
        body: deep,
        headers: { 'idempotency-key': transId('deep') },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors['(body)'][0]).toMatch(/more than 64 levels deep/);
      const arrays = await sandbox().call('POST', '/payments', { body: `${'['.repeat(50_000)}${']'.repeat(50_000)}` });
      expect(arrays.status).toBe(400);
      // brackets inside strings do not count
      const id = transId('SHALLOW');
      const fine = await sandbox().call('POST', '/payments', {
        body: JSON.stringify(cardPayment(id, { metadata: { x: JSON.parse(nested(60)), text: '{{{{[[[['.repeat(20) } })),
        headers: { 'idempotency-key': transId('shallow') },
      });
      expect(fine.status).toBe(201);
      const admin = await fetch(`${url()}/_sandbox/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox().sandbox.adminKey}`, 'content-type': 'application/json' },
        body: nested(10_000),
      });
      expect(admin.status).toBe(400);
    });
  });

  describe("fastify's own errors, in the contract's shapes", () => {
    it('a path that is not valid percent-encoding, or a parameter over the router’s limit: the operation’s 400 naming it', async () => {
      const bad = await fetch(`${sandbox().baseUrl}/payments/getByPayId/%ZZ`, {
        headers: { authorization: sandbox().basic() },
      });
      const badText = await bad.text();
      expect(bad.status).toBe(400);
      expect(conforms('getPaymentByPayId', { status: 400, headers: headersOf(bad), body: badText })).toEqual([]);
      expect(Object.keys(JSON.parse(badText).errors)).toEqual(['id']);
      const plan = await fetch(`${sandbox().baseUrl}/payment-plans/%E0%A4%A`, { headers: { authorization: 'x' } });
      const planText = await plan.text();
      expect(conforms('getPaymentPlan', { status: plan.status, headers: headersOf(plan), body: planText })).toEqual([]);
      expect(JSON.parse(planText).status).toBe('400');
      const long = await conformingFetch(`${sandbox().baseUrl}/payments/getByPayId/${'a'.repeat(3000)}`, {
        headers: { authorization: sandbox().basic() },
      });
      expect(long.status).toBe(400);
      expect((await long.json()).errors.id).toEqual(['must NOT have more than 2048 characters']);
      // characters a URI may not hold, sent as they are: named in `instance` percent-encoded
      const raw = await rawExchange(port(), [
        head(['GET /api/v2/payments/getByPayId/a"b{c}|%zz HTTP/1.1', 'Host: x', auth(), 'Connection: close']),
      ]);
      expect(raw.status).toBe(400);
      expect(conforms('getPaymentByPayId', raw)).toEqual([]);
      const nowhere = await fetch(`${url()}/nowhere/%ZZ`);
      expect(nowhere.status).toBe(400);
      expect(nowhere.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(Object.keys(await nowhere.json()).sort()).toEqual(['detail', 'status', 'title', 'type']);
      const page = await fetch(`${url()}/hosted/payments/test/m/%ZZ`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('malformed framing (content length, chunks) and headers over the limit (431)', async () => {
      for (const framing of [
        'Content-Length: abc',
        'Content-Length: 5\r\nContent-Length: 6',
        'Transfer-Encoding: chunked',
      ]) {
        const answer = await rawExchange(port(), [
          head(['POST /api/v2/payments HTTP/1.1', 'Host: x', auth(), 'Content-Type: application/json', framing]),
          'zz\r\n',
        ]);
        expect(answer.status, framing).toBe(400);
        expect(conforms('createPayment', answer), framing).toEqual([]);
      }
      const big = await rawExchange(port(), [
        head(['GET /api/v2/customers HTTP/1.1', 'Host: x', auth(), `X-Padding: ${'a'.repeat(20_000)}`]),
      ]);
      expect(big.status).toBe(431);
      expect(big.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(big.body)).toMatchObject({ status: 431, title: 'Request header fields too large.' });
      expect(big.closedAfterMs).toBeDefined();
    });

    it('a body where the operation takes none, or of a type it does not take, is its 400, never a 500', async () => {
      for (const [method, path, id] of [
        ['DELETE', '/customers/cus_x', 'deleteCustomer'],
        ['DELETE', '/customers/cus_x/paymentMethods/pm_x', 'deleteCustomerPaymentMethod'],
      ] as const) {
        const text = await conformingFetch(`${sandbox().baseUrl}${path}`, {
          method,
          headers: { authorization: sandbox().basic(), 'content-type': 'text/plain' },
          body: 'hello',
        });
        expect(text.status, id).toBe(400);
        const big = await conformingFetch(`${sandbox().baseUrl}${path}`, {
          method,
          headers: { authorization: sandbox().basic(), 'content-type': 'application/json' },
          body: JSON.stringify({ blob: 'x'.repeat(1_100_000) }),
        });
        expect(big.status, id).toBe(400);
      }
    });

    it('an unknown route answers the generic problem shape', async () => {
      const unknown = await fetch(`${sandbox().baseUrl}/payments/unknown/explode`, { method: 'POST' });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await unknown.json()).toMatchObject({ status: 404, title: 'No such operation.' });
    });
  });

  describe('authentication before the body', () => {
    it('a large body from an unknown client is not waited for: the 401 comes at once', async () => {
      const answer = await rawExchange(
        port(),
        [
          head([
            'POST /api/v2/payments HTTP/1.1',
            'Host: x',
            'Authorization: Basic bm9ib2R5Om5vcGU=',
            'Content-Type: application/json',
            'Content-Length: 1000000',
          ]),
          '{"transId":',
          { waitMs: 3_000 },
        ],
        2_000,
      );
      expect(answer.status).toBe(401);
      expect(conforms('createPayment', answer)).toEqual([]);
    });

    it('a small body is let in unread and answered 401 after it; a valid one is unaffected', async () => {
      const answer = await rawExchange(port(), [
        head([
          'POST /api/v2/payments HTTP/1.1',
          'Host: x',
          'Connection: close',
          'Content-Type: application/json',
          'Content-Length: 2',
        ]),
        { waitMs: 200 },
        '{}',
      ]);
      expect(answer.status).toBe(401);
      expect(conforms('createPayment', answer)).toEqual([]);
      const ok = await sandbox().call('POST', '/payments', { body: cardPayment(transId('AUTHED')) });
      expect(ok.status).toBe(201);
    });
  });

  describe('the hosted form', () => {
    const session = async () => {
      const created = await sandbox().call('POST', '/payments/sessions', { body: checkoutSession(transId('FORM')) });
      expect(created.status).toBe(202);
      return created.body._links.redirect.href as string;
    };

    it('multipart/form-data, as a browser may post it, works', async () => {
      const href = await session();
      const form = new FormData();
      form.set('method', 'CARD');
      form.set('decision', 'pay');
      const paid = await fetch(href, { method: 'POST', body: form, redirect: 'manual' });
      expect(paid.status).toBe(303);
      expect(new URL(paid.headers.get('location')!).searchParams.get('status')).toBe('CAPTURED');
    });

    it('too large, another encoding, a broken multipart body: the page’s HTML, never JSON', async () => {
      const href = await session();
      const cases: Array<[string, string, number]> = [
        ['application/x-www-form-urlencoded', `decision=pay&pad=${'x'.repeat(2_000_000)}`, 413],
        ['application/json', '{"decision":"pay"}', 415],
        ['text/plain', 'decision=pay', 415],
        ['multipart/form-data; boundary=zz', 'not multipart at all', 400],
      ];
      for (const [type, body, status] of cases) {
        const answer = await fetch(href, {
          method: 'POST',
          headers: { 'content-type': type },
          body,
          redirect: 'manual',
        });
        expect(answer.status, type).toBe(status);
        expect(answer.headers.get('content-type'), type).toBe('text/html; charset=utf-8');
        expect(answer.headers.get('content-security-policy'), type).toContain("default-src 'none'");
      }
      // the page is still usable
      expect((await fetch(href)).status).toBe(200);
    });
  });

  describe("the merchant's URLs", () => {
    it('live root: https only for return and cancel; test root: http too; never javascript: or file:', async () => {
      const urls = (u: Record<string, string>) => ({ urls: u });
      const cases: Array<[string, 'test' | 'live', Record<string, string>, number, string?]> = [
        ['live http return', 'live', { return: 'http://shop.example/r' }, 400, 'urls.return'],
        ['live http cancel', 'live', { cancel: 'http://shop.example/c' }, 400, 'urls.cancel'],
        ['test javascript:', 'test', { return: 'javascript:alert(1)' }, 400, 'urls.return'],
        ['test file:', 'test', { cancel: 'file:///etc/passwd' }, 400, 'urls.cancel'],
        ['webhook ftp:', 'test', { webhook: 'ftp://shop.example/h' }, 400, 'urls.webhook'],
        ['live webhook data:', 'live', { webhook: 'data:text/plain,x' }, 400, 'urls.webhook'],
        ['live https', 'live', { return: 'https://shop.example/r', cancel: 'https://shop.example/c' }, 201],
        ['test http', 'test', { return: 'http://localhost:3000/r', webhook: 'http://localhost:3000/h' }, 201],
      ];
      for (const [name, root, u, status, field] of cases) {
        const body = { transId: transId('URL'), amount: { value: 100, currency: 'EUR' }, ...urls(u) };
        const r = await sandbox().call('POST', '/payments', { body, root });
        expect(r.status, name).toBe(status);
        if (field) expect(Object.keys(r.body.errors), name).toEqual([field]);
      }
      const session = await sandbox().call('POST', '/payments/sessions', {
        root: 'live',
        body: checkoutSession(transId('URLS'), { urls: { ...merchantUrls(), return: 'http://shop.example/r' } }),
      });
      expect(session.status).toBe(400);
      expect(Object.keys(session.body.errors)).toEqual(['urls.return']);
      const link = await sandbox().call('POST', '/payments/links', {
        body: { transId: transId('URLL'), amount: { value: 100, currency: 'EUR' }, urls: { cancel: 'javascript:x' } },
      });
      expect(link.status).toBe(400);
      const intent = await sandbox().call('POST', '/payment-intents', {
        root: 'live',
        body: { amount: { value: 100, currency: 'EUR' }, urls: { return: 'http://shop.example/r' } },
      });
      expect(intent.status).toBe(400);
    });
  });

  describe('Idempotency-Key and metadata', () => {
    it('an empty Idempotency-Key is a 400 naming the header; nothing is created', async () => {
      const id = transId('EMPTYKEY');
      const r = await sandbox().call('POST', '/payments', {
        body: cardPayment(id),
        headers: { 'idempotency-key': '' },
      });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual(['Idempotency-Key']);
      expect((await sandbox().call('GET', `/payments/getByTransId/${id}`)).status).toBe(404);
    });

    it(`metadata over ${METADATA_LIMIT_BYTES} bytes of JSON is a 400 naming it; at the limit it is kept`, async () => {
      const at = (bytes: number) => ({ blob: 'x'.repeat(bytes - '{"blob":""}'.length) });
      const id = transId('META');
      const kept = await sandbox().call('POST', '/payments', {
        body: cardPayment(id, { metadata: at(METADATA_LIMIT_BYTES) }),
      });
      expect(kept.status).toBe(201);
      const over = await sandbox().call('POST', '/payments', {
        body: cardPayment(transId('META'), { metadata: at(METADATA_LIMIT_BYTES + 1) }),
      });
      expect(over.status).toBe(400);
      expect(Object.keys(over.body.errors)).toEqual(['metadata']);
      const capture = await sandbox().call('POST', `/payments/${kept.body.payId}/captures`, {
        body: { transId: `${id}-C`, amount: { value: 100, currency: 'USD' }, metadata: at(200_000) },
      });
      expect(capture.status).toBe(400);
      expect(Object.keys(capture.body.errors)).toEqual(['metadata']);
    });
  });
});

// What SQLite would store and PostgreSQL cannot is refused before it reaches either: held on both.
describe.each(STORES)('text PostgreSQL cannot store, on %s', (kind) => {
  const { sandbox, url, port, auth } = hostileSuite(kind);
  it('NUL and lone surrogates: a 400 naming the field, in the path, the query, the body, a form', async () => {
    const path = await sandbox().call('GET', '/payments/getByPayId/abc%00def');
    expect(path.status).toBe(400);
    expect(Object.keys(path.body.errors)).toEqual(['id']);
    const query = await sandbox().call('GET', '/customers?MerchantCustomerId=a%00b');
    expect(query.status).toBe(400);
    expect(Object.keys(query.body.errors)).toEqual(['MerchantCustomerId']);
    const field = await sandbox().call('POST', '/payments', { body: JSON.stringify(cardPayment('NUL\u0000ID')) });
    expect(field.status).toBe(400);
    expect(field.body.errors).toEqual({ transId: ['must not contain the NUL character (U+0000)'] });
    const surrogate = await sandbox().call('POST', '/payments', {
      body: JSON.stringify(cardPayment(transId('SURR'), { metadata: { note: 'a\ud800b' } })),
    });
    expect(surrogate.status).toBe(400);
    expect(Object.keys(surrogate.body.errors)).toEqual(['metadata.note']);
    const key = await sandbox().call('POST', '/payments', {
      body: JSON.stringify(cardPayment(transId('KEY'), { metadata: { 'a\u0000': 1 } })),
    });
    expect(key.status).toBe(400);
    expect(Object.keys(key.body.errors)).toEqual(['metadata']);
    const form = await sandbox().call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials&scope=a%00b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect(form.body.error_description).toMatch(/^scope must not contain the NUL/);
    // an escaped backslash before u0000 is no NUL
    const text = await sandbox().call('POST', '/payments', {
      body: JSON.stringify(cardPayment(transId('ESC'), { metadata: { note: '\\u0000' } })),
    });
    expect(text.status).toBe(201);
  });

  it('before authentication, on the hosted page (404: the address names nothing) and the admin API', async () => {
    const unauthenticated = await conformingFetch(`${sandbox().baseUrl}/payments/getByPayId/x%00`);
    expect(unauthenticated.status).toBe(400);
    const page = await fetch(`${url()}/hosted/payments/test/${sandbox().merchant.merchantId}%00/x`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const posted = await fetch(`${url()}/hosted/sessions/test/m/cs%00`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=cancel',
    });
    expect(posted.status).toBe(404);
    const admin = { authorization: `Bearer ${sandbox().sandbox.adminKey}` };
    const clock = await fetch(`${url()}/_sandbox/clocks/m%00/test`, { headers: admin });
    expect(clock.status).toBe(400);
    expect(Object.keys((await clock.json()).errors)).toEqual(['merchantId']);
    const deliveries = await fetch(`${url()}/_sandbox/webhook-deliveries?payId=%00`, { headers: admin });
    expect(deliveries.status).toBe(400);
  });

  it('a NUL in a header is refused by the parser: a 400 in the operation’s shape', async () => {
    const answer = await rawExchange(port(), [
      head([
        'POST /api/v2/payments HTTP/1.1',
        'Host: x',
        auth(),
        'Idempotency-Key: a\u0000b',
        'Content-Type: application/json',
        'Content-Length: 2',
      ]),
      '{}',
    ]);
    expect(answer.status).toBe(400);
    expect(conforms('createPayment', answer)).toEqual([]);
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'https://developer.payment-service.example/problems/validation-error',
      status: 400,
      errors: { '(request)': [expect.stringMatching(/^could not be parsed/)] },
    });
  });
});

describe('the request log', () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  const lines: string[] = [];
  beforeAll(async () => {
    sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  });
  afterAll(() => sandbox?.stop());

  it("leaves the hosted page's id (a bearer capability) out", async () => {
    const created = await sandbox.call('POST', '/payments/sessions', { body: checkoutSession(transId('LOG')) });
    const href = created.body._links.redirect.href as string;
    const id = href.split('/').at(-1)!;
    expect((await fetch(href)).status).toBe(200);
    await fetch(`${href}?x=1`, { method: 'POST', body: 'decision=cancel', redirect: 'manual' });
    await new Promise((r) => setTimeout(r, 50));
    const hosted = lines.filter((line) => line.includes('/hosted/'));
    expect(hosted.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).not.toContain(id);
    expect(hosted[0]).toContain(`/hosted/sessions/test/${sandbox.merchant.merchantId}/[redacted]`);
  });
});

const headersOf = (response: Response): Record<string, string> => Object.fromEntries(response.headers);
