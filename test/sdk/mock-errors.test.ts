// The SDK against the Prism mock of the contract: a request the mock refuses rejects with
// ValidationError whose fieldErrors are the violations Prism found (its `sl-violations` header),
// not the canned example body it answers with; a status asked for with `Prefer` rejects with the
// class of that status; a success carries its response metadata.
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createPaymentClient,
  NotFoundError,
  PaymentApiError,
  PaymentDeclinedError,
  responseOf,
  ValidationError,
} from '../../src/client/index.js';
import { sharedPrism } from '../support/prism.js';

const prism = { baseUrl: await sharedPrism() };

const client = () => createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: prism.baseUrl, maxAttempts: 1 });

async function rejection(promise: Promise<unknown>): Promise<PaymentApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentApiError);
    return error as PaymentApiError;
  }
  throw new Error('the call resolved');
}

describe('errors from the mock', () => {
  it("an invalid request is a ValidationError with Prism's violations, also where the mock answers 422", async () => {
    const invalid = { transId: '', amount: { value: -1, currency: 'EURO' } };
    const error = await rejection(client().payments.capture('pay-1', invalid as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(PaymentDeclinedError);
    expect(error.status).toBe(422);
    expect(Object.keys(error.fieldErrors).sort()).toEqual(['amount.currency', 'amount.value', 'transId']);
    expect(error.fieldErrors['amount.value']!.join()).toMatch(/>= 0/);
    expect(error.operationResult).toBeUndefined();
    expect(error.message).toContain('amount.value');
    expect(error.message).not.toContain(String((error.body as { responseDescription?: string }).responseDescription));
  });

  it('a 400 reports the violations of this request, not the fields of the example body', async () => {
    const error = await rejection(client().customers.update('cus-1', { email: 5, billingAddress: 'x' } as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fieldErrors).sort()).toEqual(['billingAddress', 'email']);
  });

  it('a wrong security scheme is an AuthenticationError, though Prism reports it in sl-violations too', async () => {
    const error = await rejection(client().customers.retrieve('cus-1', { headers: { Authorization: 'Unknown x' } }));
    expect(error.headers.get('sl-violations')).toBeTruthy();
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
  });

  it('a 404 asked for with Prefer is a NotFoundError', async () => {
    const error = await rejection(client().customers.retrieve('cus-1', { headers: { Prefer: 'code=404' } }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.fieldErrors).toEqual({});
  });

  it('a success carries its status and headers', async () => {
    const customer = await client().customers.retrieve('cus-1');
    const metadata = responseOf(customer);
    expect(metadata?.status).toBe(200);
    expect(metadata?.headers.get('content-type')).toMatch(/json/);
    expect(metadata?.replayed).toBe(false);
    expect(Object.keys(customer)).not.toContain('lastResponse');
  });
});
