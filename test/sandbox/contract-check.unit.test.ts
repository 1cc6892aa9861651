// The conformance check every sandbox response of the suite goes through (test/support/contract-check.ts):
// an error body that says nothing, and a response without a header the contract requires, fail it.
import { describe, expect, it } from 'vitest';
import { checkResponse } from '../support/contract-check.js';
import { sandboxContract } from '../support/sandbox.js';

const json = { 'content-type': 'application/json; charset=utf-8' };
const challenge = { 'www-authenticate': 'Basic realm="Payment Service API v2", Bearer realm="Payment Service API v2"' };
const unauthorized = JSON.stringify({
  type: 'https://developer.payment-service.example/problems/unauthorized',
  title: 'Authentication required.',
  status: 401,
  detail: 'Send HTTP Basic credentials or a bearer token.',
});
const check = (operationId: string, status: number, headers: Record<string, string>, body: string) =>
  checkResponse(sandboxContract(), operationId as never, status, headers, body);

describe('checkResponse', () => {
  it('passes a problem body with its members and the headers the contract requires', () => {
    expect(check('listCustomers', 401, { ...json, ...challenge }, unauthorized)).toEqual([]);
  });

  it.each([
    ['refundPayment', 400],
    ['createPayment', 400],
    ['listCustomers', 401],
    ['getPaymentPlan', 404],
    ['createPayment', 409],
  ] as const)('fails an empty body: %s %i', (operationId, status) => {
    const found = check(operationId, status, { ...json, ...(status === 401 ? challenge : {}) }, '{}');
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toMatch(/must (have required property|match a schema in anyOf)/);
  });

  it('fails a validation problem whose errors name nothing', () => {
    const body = { type: 'x', title: 'Invalid.', status: 400, errors: {} };
    expect(check('createPayment', 400, json, JSON.stringify(body)).join('\n')).toMatch(
      /errors must NOT have fewer than 1/,
    );
    const empty = { ...body, errors: { transId: [] } };
    expect(check('createPayment', 400, json, JSON.stringify(empty)).join('\n')).toMatch(/fewer than 1 items/);
  });

  it('fails a response without a header the contract requires', () => {
    expect(check('listCustomers', 401, json, unauthorized)).toEqual([
      'listCustomers 401: the required header www-authenticate is missing',
    ]);
    const token = JSON.stringify({ access_token: 'a.b.c', token_type: 'Bearer', expires_in: 3600 });
    expect(check('createAccessToken', 200, { ...json, 'cache-control': 'no-store' }, token)).toEqual([
      'createAccessToken 200: the required header pragma is missing',
    ]);
    expect(
      check('createAccessToken', 200, { ...json, 'cache-control': 'no-store', pragma: 'no-cache' }, token),
    ).toEqual([]);
  });
});
