// The client's network errors through real sockets: a connection refused by a closed port is a
// PaymentNetworkError naming the system error code, retried for a GET only.
import { describe, expect, it } from 'vitest';
import { createPaymentClient, PaymentNetworkError } from '../../src/client/index.js';
import { freePort } from '../../tooling/process/server-process.js';

const capture = { transId: 'ORD-1', amount: { value: 1050, currency: 'EUR' } } as const;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

describe('a closed port', () => {
  it("names the system error code and keeps fetch's error as its cause", async () => {
    const port = await freePort();
    const client = createPaymentClient({
      merchantId: 'm',
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${port}`,
      maxAttempts: 1,
    });
    const error = (await rejection(client.payments.retrieve('pay-1'))) as PaymentNetworkError;
    expect(error).toBeInstanceOf(PaymentNetworkError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('reports a closed port as PaymentNetworkError, retried for a GET only', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}`;
    const client = createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl, retryBaseDelayMs: 1 });
    const get = await client.paymentPlans.retrieve('pp_1').catch((e: unknown) => e);
    expect(get).toBeInstanceOf(PaymentNetworkError);
    expect((get as PaymentNetworkError).attempts).toBe(3);
    expect((get as PaymentNetworkError).cause).toBeInstanceOf(Error);
    const post = await client.payments.capture('pay-1', capture).catch((e: unknown) => e);
    expect(post).toBeInstanceOf(PaymentNetworkError);
    expect((post as PaymentNetworkError).attempts).toBe(1);
  });
});
