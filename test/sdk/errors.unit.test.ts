// The client's errors by meaning (every status to its class, all PaymentApiErrors), the response
// metadata of a success, and the system error code of a failed connection, against a fake of the
// service behind fetch (a refused connection, through a real socket: network.test.ts). Error bodies are the contract's own examples (components.examples of the bundle).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { errorClassOf } from '../../generator/steps/resources.js';
import {
  AuthenticationError,
  apiErrorFor,
  createPaymentClient,
  IdempotencyConflictError,
  NotFoundError,
  PaymentApiError,
  PaymentDeclinedError,
  PaymentError,
  PaymentNetworkError,
  PermissionError,
  RateLimitError,
  type ResponseMetadata,
  responseOf,
  ServerError,
  ValidationError,
} from '../../src/client/index.js';
import { type FakeApi, type FakeHandler, fakeApi, reply } from '../support/fake-api.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const examples = (loadBundle().components as JsonObject).examples as Record<string, { value: JsonObject }>;
const example = (name: string) => structuredClone(examples[name]!.value);
const capture = { transId: 'ORD-1', amount: { value: 1050, currency: 'EUR' } } as const;

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function clientFor(handler: FakeHandler) {
  api = await fakeApi(handler);
  return createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: api.baseUrl, maxAttempts: 1 });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call resolved');
}

describe('errors by meaning', () => {
  it.each([
    [400, 'ValidationError', ValidationError, 'ValidationError'],
    [401, 'Unauthorized', AuthenticationError, 'AuthenticationError'],
    [403, 'Forbidden', PermissionError, 'PermissionError'],
    [404, 'NotFound', NotFoundError, 'NotFoundError'],
    [409, 'IdempotencyConflict', IdempotencyConflictError, 'IdempotencyConflictError'],
    [422, 'OperationDeclined', PaymentDeclinedError, 'PaymentDeclinedError'],
    [429, 'TooManyRequests', RateLimitError, 'RateLimitError'],
    [500, 'PaymentServerError', ServerError, 'ServerError'],
    [503, 'PaymentServerError', ServerError, 'ServerError'],
    [413, 'PayloadTooLarge', PaymentApiError, 'PaymentApiError'],
  ] as const)('%i (%s) rejects with %o, a PaymentApiError with its status', async (status, name, Class, className) => {
    const client = await clientFor(() => reply(status, example(name)));
    const error = await rejection(client.payments.capture('pay-1', capture));
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error).toBeInstanceOf(PaymentError);
    expect((error as PaymentApiError).status).toBe(status);
    expect((error as Error).name).toBe(className);
    expect(Object.getPrototypeOf(error)).toBe(Class.prototype);
  });

  it('a ValidationError carries the fields of the problem', async () => {
    const client = await clientFor(() => reply(400, example('ValidationError')));
    const error = (await rejection(client.payments.capture('pay-1', capture))) as ValidationError;
    expect(error.fieldErrors).toEqual({
      'amount.currency': ['The currency must be a 3-character ISO code.'],
      transId: ['The transId must not exceed 64 characters.'],
    });
  });

  it('a PaymentDeclinedError carries the result code and the operation result', async () => {
    const body = example('OperationDeclined');
    const client = await clientFor(() => reply(422, body));
    const error = (await rejection(client.payments.capture('pay-1', capture))) as PaymentDeclinedError;
    expect(error.responseCode).toBe(body.responseCode);
    expect(error.responseDescription).toBe(body.responseDescription);
    expect(error.operationResult).toEqual(body);
    expect(error.message).toContain(String(body.responseDescription));
  });

  it('a RateLimitError says how long to wait, in seconds', async () => {
    const client = await clientFor(() => reply(429, example('TooManyRequests'), { 'Retry-After': '7' }));
    const error = (await rejection(client.payments.retrieve('pay-1'))) as RateLimitError;
    expect(error.retryAfter).toBe(7);
    expect(apiErrorFor(429, undefined, new Headers())).toHaveProperty('retryAfter', undefined);
  });

  it('fieldErrors come from sl-violations when a mock sends them, instead of its canned body', () => {
    const violations = [
      { location: ['request', 'body', 'amount', 'value'], severity: 'Error', code: 'minimum', message: 'must be >= 1' },
      {
        location: ['request', 'body'],
        severity: 'Error',
        code: 'required',
        message: "must have required property 'transId'",
      },
      { location: ['request', 'query', 'Page'], severity: 'Error', code: 'type', message: 'must be integer' },
    ];
    const error = apiErrorFor(
      400,
      example('ValidationError'),
      new Headers({ 'sl-violations': JSON.stringify(violations) }),
    );
    expect(error.fieldErrors).toEqual({
      'amount.value': ['must be >= 1'],
      transId: ["must have required property 'transId'"],
      Page: ['must be integer'],
    });
    // the mock answers an invalid request with the operation's 422 when it has one: still a validation failure
    const declinedByMock = apiErrorFor(
      422,
      example('OperationDeclined'),
      new Headers({ 'sl-violations': JSON.stringify(violations) }),
    );
    expect(declinedByMock).toBeInstanceOf(ValidationError);
    expect(declinedByMock.operationResult).toBeUndefined();
    expect(apiErrorFor(422, example('OperationDeclined'), new Headers())).toBeInstanceOf(PaymentDeclinedError);
    // Prism's 401 for a wrong scheme carries sl-violations too: still an AuthenticationError
    const scheme = [{ location: ['request'], severity: 'Error', code: 401, message: 'Invalid security scheme used' }];
    const unauthorized = apiErrorFor(
      401,
      example('Unauthorized'),
      new Headers({ 'sl-violations': JSON.stringify(scheme) }),
    );
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect(unauthorized.fieldErrors).toEqual({});
    expect(
      apiErrorFor(400, example('ValidationError'), new Headers({ 'sl-violations': 'not json' })).fieldErrors,
    ).toHaveProperty('transId');
  });
});

describe('the @throws of the generated methods', () => {
  it('name the class the client rejects with for each status', () => {
    const resources = readFileSync(join(import.meta.dirname, '..', '..', 'generated', 'resources.ts'), 'utf8');
    const throws = [...resources.matchAll(/@throws \{(\w+)\} (\d{3}):/g)].map(([, name, status]) => [status!, name!]);
    expect(new Set(throws.map(([status]) => status))).toEqual(
      new Set(['400', '401', '403', '404', '409', '413', '415', '422', '429', '500']),
    );
    for (const [status, name] of throws) {
      expect(name, status).toBe(apiErrorFor(Number(status), undefined, new Headers()).name);
      expect(name, status).toBe(errorClassOf(status));
    }
    for (const status of ['502', '503', '418'])
      expect(errorClassOf(status)).toBe(apiErrorFor(Number(status), undefined, new Headers()).name);
  });
});

describe('response metadata', () => {
  it('rides on the typed body without changing what JSON.stringify or spreading see', async () => {
    const body = example('RefundApproved');
    const client = await clientFor(() =>
      reply(200, body, {
        'Idempotent-Replayed': 'true',
        'X-Request-Id': 'req-42',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      }),
    );
    const refund = example('RefundRequest') as Parameters<typeof client.payments.refund>[1];
    const refunded = await client.payments.refund('pay-1', refund, { idempotencyKey: 'key-9' });
    expect(JSON.stringify(refunded)).toBe(JSON.stringify(body));
    expect({ ...refunded }).toEqual(body);
    expect(Object.keys(refunded)).toEqual(Object.keys(body));
    const metadata = responseOf(refunded) as ResponseMetadata;
    expect(metadata).toMatchObject({
      status: 200,
      replayed: true,
      requestId: 'req-42',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      idempotencyKey: 'key-9',
      attempts: 1,
    });
    expect(metadata.headers.get('x-request-id')).toBe('req-42');
    expect((refunded as unknown as { lastResponse: ResponseMetadata }).lastResponse).toBe(metadata);
  });

  it('says not replayed, and takes the trace id of the body, when the headers say nothing', async () => {
    const client = await clientFor(() => reply(200, { payId: 'pay-1', traceId: 'trace-in-body' }));
    const payment = await client.payments.retrieve('pay-1');
    expect(responseOf(payment)).toMatchObject({
      status: 200,
      replayed: false,
      traceId: 'trace-in-body',
      requestId: undefined,
    });
    expect(responseOf({ payId: 'not from the client' })).toBeUndefined();
  });
});

describe('network errors', () => {
  it('without a code, name the innermost cause', () => {
    const cause = new TypeError('fetch failed', { cause: new Error('bad port') });
    const error = new PaymentNetworkError('getPaymentByPayId: no response: fetch failed', { cause });
    expect(error.message).toBe('getPaymentByPayId: no response: fetch failed (bad port)');
    expect(error.code).toBeUndefined();
    expect(error.cause).toBe(cause);
  });

  it('find the code inside an AggregateError of the addresses tried', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:1'), { code: 'ECONNREFUSED' });
    const cause = new TypeError('fetch failed', { cause: new AggregateError([refused]) });
    expect(new PaymentNetworkError('no response', { cause }).code).toBe('ECONNREFUSED');
  });
});
