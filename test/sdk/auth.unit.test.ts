// Credentials of the client SDK against an in-process fake token and API server (test/support/fake-api.ts): which scheme each
// operation gets, the OAuth token cache (cached, refreshed once on 401, single flight), and
// credentials that cannot work failing before anything is sent.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type OperationInfo, operations } from '../../generated/operations.js';
import { createPaymentClient, PaymentApiError, PaymentCredentialsError, PaymentError } from '../../src/client/index.js';
import {
  type FakeApi,
  type FakeHandler,
  fakeApi,
  methodOf,
  placeholderArgs,
  type RecordedRequest,
  reply,
  tokenReply,
} from '../support/fake-api.js';

const TOKEN_PATH = operations.createAccessToken.path;
const merchantId = 'merchant-4711';
const apiKey = 'secret-key-ä'; // non-ASCII: Basic must be UTF-8 safe
const basic = `Basic ${Buffer.from(`${merchantId}:${apiKey}`).toString('base64')}`;
const allOperations = Object.values(operations) as OperationInfo[];
const accepts = (info: OperationInfo, scheme: string) => info.security.some((r) => r.length === 1 && r[0] === scheme);

let api: FakeApi | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await api?.close();
  api = undefined;
});

/** Tokens tok-1, tok-2, … from the token endpoint; every other path answers the handler (default 200 {}). */
async function start(handler: FakeHandler = () => reply(200, { ok: true }), tokenDelayMs = 0): Promise<FakeApi> {
  let tokens = 0;
  api = await fakeApi((req, i) =>
    req.path === TOKEN_PATH ? { ...tokenReply(++tokens), delayMs: tokenDelayMs } : handler(req, i),
  );
  return api;
}

const apiCalls = (a: FakeApi) => a.requests.filter((r) => r.path !== TOKEN_PATH);
const authOf = (r: RecordedRequest) => r.headers.authorization;

describe('HTTP Basic (default with merchantId + apiKey)', () => {
  it('sends Basic base64(merchantId:apiKey) and asks for no token', async () => {
    const a = await start();
    const client = createPaymentClient({ merchantId, apiKey, baseUrl: a.baseUrl });
    await client.payments.retrieve('pay-1');
    await client.paymentPlans.retrieve('pp_1');
    expect(a.to(TOKEN_PATH)).toHaveLength(0);
    expect(apiCalls(a).map(authOf)).toEqual([basic, basic]);
    expect(apiCalls(a).every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
  });

  it('gives a bearer-only operation (payment intent confirm) a token obtained with Basic', async () => {
    const bearerOnly = allOperations.filter((o) => accepts(o, 'bearerAuth') && !accepts(o, 'basicAuth'));
    expect(bearerOnly.map((o) => o.operationId)).toContain('confirmPaymentIntent');
    const a = await start();
    const client = createPaymentClient({ merchantId, apiKey, baseUrl: a.baseUrl });
    await client.paymentIntents.confirm('pi_1', { paymentMethods: { type: 'CARD' } } as never);
    await client.payments.capture('pay-1', { transId: 't-1', amount: { value: 100, currency: 'EUR' } });
    const [token] = a.to(TOKEN_PATH);
    expect(token?.method).toBe('POST');
    expect(token?.headers.authorization).toBe(basic);
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(token!.body).get('grant_type')).toBe('client_credentials');
    expect(a.to('/payment-intents/pi_1/confirm').map(authOf)).toEqual(['Bearer tok-1']);
    expect(a.to('/payments/pay-1/captures').map(authOf)).toEqual([basic]);
  });

  it('authenticates raw openapi-fetch calls too', async () => {
    const a = await start();
    const client = createPaymentClient({ merchantId, apiKey, baseUrl: a.baseUrl });
    const { data } = await client.raw.GET('/payment-plans/{paymentPlanId}', {
      params: { path: { paymentPlanId: 'pp_1' } },
    });
    expect(data).toEqual({ ok: true });
    expect(apiCalls(a).map(authOf)).toEqual([basic]);
  });
});

describe("OAuth (auth: 'oauth')", () => {
  it('caches the token across calls', async () => {
    const a = await start();
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    await client.payments.retrieve('pay-1');
    await client.customers.list();
    await client.paymentPlans.retrieve('pp_1');
    expect(a.to(TOKEN_PATH)).toHaveLength(1);
    expect(apiCalls(a).map(authOf)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1']);
  });

  it('obtains the token itself with Basic (never with a bearer token)', async () => {
    const a = await start();
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    const grant = await client.authorization.createToken({ grant_type: 'client_credentials' });
    expect(grant.access_token).toBe('tok-1');
    expect(a.to(TOKEN_PATH).map(authOf)).toEqual([basic]);
  });

  it('refreshes the token shortly before it expires (tokenRefreshSkewMs)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const a = await start();
    const client = createPaymentClient({
      merchantId,
      apiKey,
      auth: 'oauth',
      baseUrl: a.baseUrl,
      tokenRefreshSkewMs: 30_000,
    });
    await client.payments.retrieve('pay-1'); // tok-1, expires_in 3600 s
    vi.setSystemTime(Date.now() + 3_560_000); // 40 s before expiry: still fresh
    await client.payments.retrieve('pay-1');
    vi.setSystemTime(Date.now() + 20_000); // 20 s before expiry: inside the skew
    await client.payments.retrieve('pay-1');
    expect(apiCalls(a).map(authOf)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('refreshes once after a 401 and retries the call once, even a POST without an idempotency key', async () => {
    const a = await start((req) =>
      authOf(req) === 'Bearer tok-1'
        ? reply(401, { title: 'Unauthorized', status: 401 })
        : reply(200, { payId: 'pay-1' }),
    );
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    const result = await client.payments.capture('pay-1', { transId: 't-1', amount: { value: 100, currency: 'EUR' } });
    expect(result).toEqual({ payId: 'pay-1' });
    expect(a.to(TOKEN_PATH)).toHaveLength(2);
    expect(apiCalls(a).map(authOf)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('refreshes only once: a second 401 is the error', async () => {
    const a = await start(() => reply(401, { title: 'Unauthorized', status: 401, traceId: 'tr-401' }));
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    const error = await client.payments.retrieve('pay-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentApiError);
    expect((error as PaymentApiError).status).toBe(401);
    expect((error as PaymentApiError).traceId).toBe('tr-401');
    expect(a.to(TOKEN_PATH)).toHaveLength(2);
    expect(apiCalls(a)).toHaveLength(2);
  });

  it('fetches a single token for 20 concurrent calls (single flight)', async () => {
    const a = await start(undefined, 50); // the token takes a while: every call waits for it
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.payments.retrieve(`pay-${i}`)));
    expect(a.to(TOKEN_PATH)).toHaveLength(1);
    expect(apiCalls(a)).toHaveLength(20);
    expect(new Set(apiCalls(a).map(authOf))).toEqual(new Set(['Bearer tok-1']));
  });

  it('fetches a single new token when 20 concurrent calls all get 401', async () => {
    const a = await start((req) => (authOf(req) === 'Bearer tok-1' ? reply(401, {}) : reply(200, {})), 20);
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: a.baseUrl });
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.payments.retrieve(`pay-${i}`)));
    expect(a.to(TOKEN_PATH)).toHaveLength(2);
    expect(apiCalls(a).filter((r) => authOf(r) === 'Bearer tok-2')).toHaveLength(20);
  });

  it('surfaces a token endpoint failure as a PaymentApiError of createAccessToken', async () => {
    api = await fakeApi((req) =>
      req.path === TOKEN_PATH
        ? reply(401, { error: 'invalid_client', error_description: 'Unknown merchant' })
        : reply(200, {}),
    );
    const client = createPaymentClient({ merchantId, apiKey, auth: 'oauth', baseUrl: api.baseUrl });
    const error = await client.payments.retrieve('pay-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentApiError);
    expect((error as PaymentApiError).operationId).toBe('createAccessToken');
    expect((error as PaymentApiError).message).toContain('Unknown merchant');
    expect(apiCalls(api)).toHaveLength(0);
  });
});

describe('API key alone ({ apiKey })', () => {
  it('sends X-API-Key to every operation that accepts apiKeyAuth, and fails every other one before sending', async () => {
    const a = await start((req) =>
      reply(req.method === 'DELETE' ? 204 : 200, req.method === 'DELETE' ? undefined : {}),
    );
    const client = createPaymentClient({ apiKey, baseUrl: a.baseUrl });
    const withKey = allOperations.filter((o) => accepts(o, 'apiKeyAuth'));
    expect(withKey.length).toBeGreaterThan(0);
    for (const info of allOperations) {
      const before = a.requests.length;
      const outcome = await methodOf(
        client,
        info.sdkMethod,
      )(...placeholderArgs(info)).then(
        () => 'sent',
        (e: unknown) => e,
      );
      if (accepts(info, 'apiKeyAuth')) {
        expect(outcome, info.operationId).toBe('sent');
        const sent = a.requests.at(-1)!;
        expect(sent.headers['x-api-key'], info.operationId).toBe(apiKey);
        expect(sent.headers.authorization, info.operationId).toBeUndefined();
      } else {
        expect(outcome, info.operationId).toBeInstanceOf(PaymentCredentialsError);
        expect(outcome).toBeInstanceOf(PaymentError);
        expect((outcome as Error).message, info.operationId).toContain(info.sdkMethod);
        expect(a.requests.length, `${info.operationId} sent a request`).toBe(before);
      }
    }
  });

  it('authenticates raw openapi-fetch calls with X-API-Key, and refuses the others before sending', async () => {
    const a = await start();
    const client = createPaymentClient({ apiKey, baseUrl: a.baseUrl });
    await client.raw.GET('/payment-plans/{paymentPlanId}', { params: { path: { paymentPlanId: 'pp_1' } } });
    expect(a.requests.map((r) => r.headers['x-api-key'])).toEqual([apiKey]);
    await expect(client.raw.GET('/customers')).rejects.toBeInstanceOf(PaymentCredentialsError);
    expect(a.requests).toHaveLength(1);
  });

  it('names the problem clearly (payments.capture with an API key alone)', async () => {
    const fetchSpy = vi.fn(globalThis.fetch);
    const client = createPaymentClient({ apiKey, baseUrl: 'http://127.0.0.1:9', fetch: fetchSpy });
    await expect(
      client.payments.capture('pay-1', { transId: 't-1', amount: { value: 1, currency: 'EUR' } }),
    ).rejects.toThrow(
      /payments\.capture \(capturePayment\) accepts basicAuth or bearerAuth; this client has an API key alone/,
    );
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('rejects instead of throwing when the arguments cannot be serialized', async () => {
    const client = createPaymentClient({ merchantId, apiKey, baseUrl: 'http://127.0.0.1:9' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    let pending: Promise<unknown> | undefined;
    expect(() => (pending = client.payments.update('pay-1', circular as never))).not.toThrow();
    await expect(pending).rejects.toThrow(TypeError);
  });

  it("rejects auth: 'oauth' without a merchant id, and a client without credentials", () => {
    expect(() => createPaymentClient({ apiKey, auth: 'oauth' } as never)).toThrow(PaymentCredentialsError);
    expect(() => createPaymentClient({} as never)).toThrow(/needs credentials/);
  });
});

describe('environment and baseUrl', () => {
  it('picks the server of the environment, baseUrl overrides it', async () => {
    const seen: string[] = [];
    const fakeFetch = (async (input: RequestInfo | URL) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;
    await createPaymentClient({ merchantId, apiKey, fetch: fakeFetch }).payments.retrieve('p1');
    await createPaymentClient({ merchantId, apiKey, environment: 'live', fetch: fakeFetch }).payments.retrieve('p1');
    await createPaymentClient({
      merchantId,
      apiKey,
      environment: 'live',
      baseUrl: 'http://localhost:4010/',
      fetch: fakeFetch,
    }).payments.retrieve('p1');
    expect(seen).toEqual([
      'https://test.payment-service.example/api/v2/payments/getByPayId/p1',
      'https://api.payment-service.example/api/v2/payments/getByPayId/p1',
      'http://localhost:4010/payments/getByPayId/p1',
    ]);
  });
});
