// Retries, timeouts, idempotency keys and errors of the client SDK, against a fake of the service
// behind fetch (test/support/fake-api.ts); a closed port, through a real socket: network.test.ts.
// Error bodies are the contract's own examples (components.examples of the bundle).
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createPaymentClient,
  PaymentApiError,
  type PaymentClientSettings,
  PaymentError,
  PaymentTimeoutError,
} from '../../src/client/index.js';
import { parseRetryAfter } from '../../src/client/retry.js';
import { type FakeApi, type FakeHandler, fakeApi, reply } from '../support/fake-api.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const examples = (loadBundle().components as JsonObject).examples as Record<string, { value: JsonObject }>;
const example = (name: string) => structuredClone(examples[name]!.value);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const paymentRequest = { transId: 'ORD-1', amount: { value: 1050, currency: 'EUR' } } as const;
const capture = { transId: 'ORD-1', amount: { value: 1050, currency: 'EUR' } } as const;

let api: FakeApi | undefined;
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await api?.close();
  api = undefined;
});

async function clientFor(handler: FakeHandler, settings: PaymentClientSettings = {}) {
  api = await fakeApi(handler);
  // Tiny back-off so that retry tests take milliseconds.
  return createPaymentClient({
    merchantId: 'm',
    apiKey: 'k',
    baseUrl: api.baseUrl,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    ...settings,
  });
}

/**
 * Starts `call` on fake timers (at `now`) and holds that its second attempt is sent after exactly
 * `waitMs`: none a millisecond before, one then, and the call answered.
 */
async function expectRetryAfter(call: () => Promise<unknown>, waitMs: number, now = Date.now()): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now });
  const answered = call();
  await vi.advanceTimersByTimeAsync(waitMs - 1);
  expect(api!.requests, `attempts within ${waitMs - 1} ms`).toHaveLength(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(api!.requests, `attempts after ${waitMs} ms`).toHaveLength(2);
  await expect(answered).resolves.toMatchObject({ id: 'pp_1' });
}

/** Answers the statuses in turn (the last one repeats), with `success` for a 2xx. */
const sequence =
  (statuses: number[], success: unknown = { payId: 'pay-1' }): FakeHandler =>
  (_req, i) => {
    const status = statuses[Math.min(i, statuses.length - 1)]!;
    return status < 300
      ? reply(status, success)
      : reply(
          status,
          status === 500 ? { responseCode: '99', responseDescription: 'Internal error' } : example('TooManyRequests'),
        );
  };

describe('retries', () => {
  it('retries an idempotent POST on 500, 500 → 200 with the SAME Idempotency-Key on every attempt', async () => {
    const client = await clientFor(sequence([500, 500, 201]));
    const result = await client.payments.create(paymentRequest);
    expect(result).toEqual({ payId: 'pay-1' });
    const keys = api!.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
  });

  it("sends the caller's Idempotency-Key on every attempt, and a new key per call otherwise", async () => {
    const client = await clientFor(sequence([503, 201]));
    await client.payments.create(paymentRequest, { idempotencyKey: 'order-1-create' });
    expect(api!.requests.map((r) => r.headers['idempotency-key'])).toEqual(['order-1-create', 'order-1-create']);
    await client.checkoutSessions.create({ transId: 'ORD-2' } as never);
    await client.checkoutSessions.create({ transId: 'ORD-3' } as never);
    const [a, b] = api!.requests.slice(2).map((r) => r.headers['idempotency-key']);
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });

  it('retries a GET on 503 and on 429', async () => {
    const client = await clientFor(sequence([503, 429, 200], { id: 'pp_1' }));
    expect(await client.paymentPlans.retrieve('pp_1')).toEqual({ id: 'pp_1' });
    expect(api!.requests).toHaveLength(3);
  });

  it('never retries a POST without an idempotency key (capture): one request, the error surfaced', async () => {
    const client = await clientFor(sequence([500, 200]));
    const error = await client.payments.capture('pay-1', capture).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentApiError);
    expect((error as PaymentApiError).status).toBe(500);
    expect((error as PaymentApiError).message).toContain('Internal error');
    expect((error as PaymentApiError).attempts).toBe(1);
    expect(api!.requests).toHaveLength(1);
    expect(api!.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never retries PATCH or DELETE either', async () => {
    const client = await clientFor(sequence([503]));
    await expect(client.customers.update('cus_1', { email: 'a@example.com' } as never)).rejects.toBeInstanceOf(
      PaymentApiError,
    );
    await expect(client.customers.delete('cus_1')).rejects.toBeInstanceOf(PaymentApiError);
    expect(api!.requests.map((r) => r.method)).toEqual(['PATCH', 'DELETE']);
  });

  it('stops after maxAttempts (client-wide and per call)', async () => {
    const client = await clientFor(sequence([503]), { maxAttempts: 4 });
    await expect(client.paymentPlans.retrieve('pp_1')).rejects.toMatchObject({ status: 503, attempts: 4 });
    expect(api!.requests).toHaveLength(4);
    await expect(client.paymentPlans.retrieve('pp_1', { maxAttempts: 1 })).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    });
    expect(api!.requests).toHaveLength(5);
  });

  it('does not retry other 4xx', async () => {
    const client = await clientFor(() => reply(409, example('IdempotencyConflict')));
    await expect(client.payments.create(paymentRequest)).rejects.toMatchObject({ status: 409 });
    expect(api!.requests).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('parses delay-seconds and HTTP-dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('waits Retry-After seconds before the next attempt (not the tiny back-off)', async () => {
    const client = await clientFor((_req, i) =>
      i === 0 ? reply(429, example('PlanTooManyRequests'), { 'Retry-After': '1' }) : reply(200, { id: 'pp_1' }),
    );
    await expectRetryAfter(() => client.paymentPlans.retrieve('pp_1'), 1000);
  });

  it('honours an HTTP-date Retry-After', async () => {
    // HTTP-dates have whole seconds: two seconds after 12:00:00.250 is 12:00:02, 1750 ms later.
    const now = Date.parse('2026-11-28T12:00:00.250Z');
    const client = await clientFor((_req, i) =>
      i === 0 ? reply(429, {}, { 'Retry-After': new Date(now + 2000).toUTCString() }) : reply(200, { id: 'pp_1' }),
    );
    await expectRetryAfter(() => client.paymentPlans.retrieve('pp_1'), 1750, now);
  });

  it('gives up at once when Retry-After is beyond the deadline, with the 429 itself', async () => {
    const client = await clientFor(() => reply(429, example('TooManyRequests'), { 'Retry-After': '60' }));
    const start = performance.now();
    await expect(client.payments.retrieve('pay-1', { timeoutMs: 5_000 })).rejects.toMatchObject({ status: 429 });
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(api!.requests).toHaveLength(1);
  });
});

describe('timeouts, aborts, network errors', () => {
  it('times out with PaymentTimeoutError', async () => {
    const client = await clientFor(() => ({ ...reply(200, {}), delayMs: 3_000 }));
    const start = performance.now();
    const error = await client.payments.retrieve('pay-1', { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(error).toBeInstanceOf(PaymentError);
    expect((error as PaymentTimeoutError).timeoutMs).toBe(150);
    expect(performance.now() - start).toBeLessThan(1_500);
  });

  it('with abortOnTimeout: false leaves the late request to finish, discards its answer and never retries after the deadline', async () => {
    const client = await clientFor(() => ({ ...reply(503, {}), delayMs: 300 }), { abortOnTimeout: false });
    await expect(client.paymentPlans.retrieve('pp_1', { timeoutMs: 100 })).rejects.toBeInstanceOf(PaymentTimeoutError);
    await new Promise((done) => setTimeout(done, 500));
    expect(api!.requests).toHaveLength(1);
    expect(api!.requests[0]!.closedByClient).toBe(false);
  });

  it('by default aborts the HTTP request at the deadline', async () => {
    const client = await clientFor(() => ({ ...reply(200, {}), delayMs: 2_000 }));
    await expect(client.paymentPlans.retrieve('pp_1', { timeoutMs: 100 })).rejects.toBeInstanceOf(PaymentTimeoutError);
    await expect.poll(() => api!.requests[0]?.closedByClient, { timeout: 1_000 }).toBe(true);
  });

  it("respects the caller's AbortSignal: rejects with its reason, no retry", async () => {
    const client = await clientFor(() => ({ ...reply(503, {}), delayMs: 2_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await client.paymentPlans.retrieve('pp_1', { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(error).not.toBeInstanceOf(PaymentError);
    expect(api!.requests).toHaveLength(1);
    await expect.poll(() => api!.requests[0]!.closedByClient, { timeout: 1_000 }).toBe(true);
    await expect(client.paymentPlans.retrieve('pp_1', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(api!.requests).toHaveLength(1);
  });

  it("aborts during the back-off too, and with abortOnTimeout the caller's signal still works", async () => {
    const client = await clientFor(() => reply(503, {}), {
      retryBaseDelayMs: 5_000,
      retryMaxDelayMs: 5_000,
      abortOnTimeout: true,
    });
    vi.spyOn(Math, 'random').mockReturnValue(0.9); // a 4.5 s back-off
    const start = performance.now();
    await expect(
      client.paymentPlans.retrieve('pp_1', { signal: AbortSignal.timeout(200), maxAttempts: 5 }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(api!.requests).toHaveLength(1);
  });
});

describe('errors', () => {
  it('422 → PaymentApiError with the operation result and its provider decline details', async () => {
    const client = await clientFor(() => reply(422, example('OperationDeclined')));
    const error = (await client.payments
      .refund('pay-1', { transId: 'ORD-1-R', amount: { value: 100, currency: 'EUR' } } as never)
      .catch((e: unknown) => e)) as PaymentApiError;
    expect(error).toBeInstanceOf(PaymentApiError);
    expect(error.status).toBe(422);
    expect(error.operationId).toBe('refundPayment');
    expect(error.operationResult?.paymentMethods?.payPal?.providerDeclineCategory).toBe('INSUFFICIENT_FUNDS');
    expect(error.operationResult?.responseCode).toBe('21000055');
    expect(error.message).toContain('Declined by the payment method provider');
    expect(error.idempotencyKey).toMatch(UUID);
    expect(error.problem).toBeUndefined();
  });

  it('400 → fieldErrors, problem and traceId', async () => {
    const client = await clientFor(() => reply(400, example('ValidationError')));
    const error = (await client.payments.create(paymentRequest).catch((e: unknown) => e)) as PaymentApiError;
    expect(error.status).toBe(400);
    expect(error.fieldErrors).toEqual({
      'amount.currency': ['The currency must be a 3-character ISO code.'],
      transId: ['The transId must not exceed 64 characters.'],
    });
    expect(error.problem?.title).toBe('One or more validation errors occurred.');
    expect(error.traceId).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(error.message).toContain('amount.currency: The currency must be a 3-character ISO code.');
  });

  it('legacy refund 400 { field, error } → fieldErrors', async () => {
    const client = await clientFor(() => reply(400, example('LegacyRefundValidationError')));
    const error = (await client.payments
      .refund('pay-1', { transId: 'ORD-1-R' } as never)
      .catch((e: unknown) => e)) as PaymentApiError;
    expect(error.fieldErrors).toEqual({ 'amount.value': ['The refund amount exceeds the captured amount.'] });
    expect(error.body).toEqual(example('LegacyRefundValidationError'));
  });

  it('a payment plan problem keeps its string status', async () => {
    const client = await clientFor(() => reply(404, example('PlanNotFound')));
    const error = (await client.paymentPlans.retrieve('pp_x').catch((e: unknown) => e)) as PaymentApiError;
    expect(error.status).toBe(404);
    expect(error.problem?.status).toBe('404');
    expect(error.problem?.detail).toContain('No payment plan with id');
    expect(error.operationId).toBe('getPaymentPlan');
  });

  it('keeps a non-JSON body as text', async () => {
    const client = await clientFor(() => reply(502, 'Bad gateway'));
    const error = (await client.paymentPlans
      .retrieve('pp_1', { maxAttempts: 1 })
      .catch((e: unknown) => e)) as PaymentApiError;
    expect(error.status).toBe(502);
    expect(error.body).toBe('Bad gateway');
    expect(error.fieldErrors).toEqual({});
  });
});
