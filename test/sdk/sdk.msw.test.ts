// The SDK under Mock Service Worker (msw/node), as a front-end team's tests use it: a client made
// before the mock server starts still goes through it (the client looks globalThis.fetch up at each
// call), and stops going through it once the server is closed; a client given a `fetch` of its own
// keeps that one. MSW intercepts in this process: no socket is opened (the in-process project forbids it).
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createPaymentClient } from '../../src/client/index.js';

const BASE_URL = 'https://api.test.example/api/v2';
const PLAN = {
  id: 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P',
  paymentPlanType: 'RECURRING',
  planStatus: 'ACTIVE',
};

const server = setupServer(
  http.get(`${BASE_URL}/payment-plans/:paymentPlanId`, ({ params, request }) =>
    HttpResponse.json({ ...PLAN, id: params.paymentPlanId, seenKey: request.headers.get('x-api-key') }),
  ),
);

afterEach(() => server.close());

describe('the SDK under msw/node', () => {
  it('sends through MSW a client made before the mock server started', async () => {
    const client = createPaymentClient({ apiKey: 'sk_test_msw', baseUrl: BASE_URL, maxAttempts: 1 });
    server.listen({ onUnhandledRequest: 'error' });
    const plan = (await client.paymentPlans.retrieve('pp_msw_1')) as unknown as Record<string, unknown>;
    expect(plan.id).toBe('pp_msw_1');
    expect(plan.seenKey).toBe('sk_test_msw');
  });

  it('stops going through MSW once it is closed, and a fetch given to the client is kept', async () => {
    const calls: string[] = [];
    const own: typeof fetch = async (input) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return Response.json({ ...PLAN, id: 'from-own-fetch' });
    };
    const pinned = createPaymentClient({ apiKey: 'sk_test_msw', baseUrl: BASE_URL, fetch: own, maxAttempts: 1 });
    server.listen({ onUnhandledRequest: 'error' });
    const plan = (await pinned.paymentPlans.retrieve('pp_msw_2')) as unknown as Record<string, unknown>;
    expect(plan.id).toBe('from-own-fetch');
    expect(calls).toEqual([`${BASE_URL}/payment-plans/pp_msw_2`]);
    server.close();

    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return Response.json({ ...PLAN, id: 'from-global-fetch' });
    }) as typeof fetch;
    try {
      const client = createPaymentClient({ apiKey: 'sk_test_msw', baseUrl: BASE_URL, maxAttempts: 1 });
      const again = (await client.paymentPlans.retrieve('pp_msw_3')) as unknown as Record<string, unknown>;
      expect(again.id).toBe('from-global-fetch');
      expect(seen).toEqual([`${BASE_URL}/payment-plans/pp_msw_3`]);
    } finally {
      globalThis.fetch = original;
    }
  });
});
