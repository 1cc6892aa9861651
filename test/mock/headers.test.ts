// Headers of `npm run mock` (mock/launch.mjs running scripts/mock.ts: Prism behind its front, mock/front.ts) that
// the contract requires or forbids: a 401 carries the challenges of the schemes its operation
// accepts (RFC 9110 §11.6.1), the token response `Cache-Control: no-store` and `Pragma: no-cache`
// (RFC 6749 §5.1), and no answer carries `Idempotent-Replayed` (only a replay does; the mock
// keeps no state and never replays).
import { describe, expect, it } from 'vitest';
import { challengesByOperation } from '../../tooling/openapi/challenges.js';
import { operations } from '../../tooling/openapi/walker.js';
import { loadBundle } from '../support/openapi.js';
import { sharedMockCommand } from '../support/prism.js';

const doc = loadBundle();
const challenges = challengesByOperation(doc);
/** The run's `npm run mock` (test/support/services/mock-command.ts). */
const mockBaseUrl = await sharedMockCommand();

const basic = `Basic ${Buffer.from('merchant:key').toString('base64')}`;

/** The operation of the contract that `method` on `path` (after the root) addresses, by its path template. */
const operationAt = (method: string, path: string) =>
  operations(doc, ['paths']).find(
    (entry) =>
      entry.method === method.toLowerCase() && new RegExp(`^${entry.key.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  )?.operation.operationId;

describe('npm run mock: required and replay-only headers', () => {
  it.each([
    ['listCustomers', 'GET', '/customers', undefined],
    ['getPaymentPlan', 'GET', '/payment-plans/pp_1', undefined],
    ['confirmPaymentIntent', 'POST', '/payment-intents/pi_1/confirm', { integrationType: 'DIRECT', type: 'CARD' }],
    ['createAccessToken', 'POST', '/authorization/oauth/token', undefined],
  ] as const)('%s: a 401 names the schemes the operation accepts', async (operationId, method, path, body) => {
    const r = await fetch(`${mockBaseUrl}${path}`, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    // the row calls the operation it names, and the contract gives that operation a challenge
    expect(operationAt(method, path)).toBe(operationId);
    expect(challenges.get(operationId), `${operationId} accepts an HTTP scheme`).toBeDefined();
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(challenges.get(operationId));
  });

  it('intent confirmation challenges Bearer alone; the others Basic and Bearer', () => {
    expect(challenges.get('confirmPaymentIntent')).toBe('Bearer realm="Payment Service API v2"');
    expect(challenges.get('listCustomers')).toBe(
      'Basic realm="Payment Service API v2", Bearer realm="Payment Service API v2"',
    );
  });

  it('the token response is not to be cached', async () => {
    const r = await fetch(`${mockBaseUrl}/authorization/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
  });

  it('no answer carries Idempotent-Replayed, although the contract gives the header an example', async () => {
    const session = await fetch(`${mockBaseUrl}/payments/sessions`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: JSON.stringify({
        transId: 't-1',
        amount: { value: 100, currency: 'EUR' },
        urls: { return: 'https://shop.example/r', cancel: 'https://shop.example/c', webhook: 'https://shop.example/w' },
      }),
    });
    expect(session.status).toBe(202);
    expect(session.headers.has('idempotent-replayed')).toBe(false);
    const notFound = await fetch(`${mockBaseUrl}/payments/pay_1/refunds`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json', prefer: 'code=404' },
      body: JSON.stringify({ transId: 't-2', amount: { value: 100, currency: 'EUR' } }),
    });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.has('idempotent-replayed')).toBe(false);
  });
});
