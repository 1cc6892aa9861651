// The request shapes both adapters share (sandbox/http/exchange.ts): the query as a server reads it,
// and the path matcher that the core's routes and the failure answers both route by.
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_PARAMETERS, parseQuery, pathMatcher } from '../../sandbox/http/exchange.js';

describe('parseQuery', () => {
  it('decodes as a server does: + a space, a repeated name an array, no prototype', () => {
    const query = parseQuery('/api/v2/customers?name=Lena+Schmidt&tag=a&tag=b&tag=c&__proto__=x');
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(Object.entries(query)).toEqual([
      ['name', 'Lena Schmidt'],
      ['tag', ['a', 'b', 'c']],
      ['__proto__', 'x'],
    ]);
    expect({ ...parseQuery('/api/v2/customers') }).toEqual({});
  });

  it(`reads the first ${MAX_QUERY_PARAMETERS} parameters of a URL and leaves the rest unread`, () => {
    const url = `/x?${Array.from({ length: MAX_QUERY_PARAMETERS + 500 }, (_, i) => `p${i}=1`).join('&')}`;
    const query = parseQuery(url);
    expect(Object.keys(query)).toHaveLength(MAX_QUERY_PARAMETERS);
    expect(query[`p${MAX_QUERY_PARAMETERS - 1}`]).toBe('1');
    expect(query[`p${MAX_QUERY_PARAMETERS}`]).toBeUndefined();
  });
});

describe('pathMatcher', () => {
  const match = pathMatcher([
    { method: 'post', path: '/api/v2/payments/{id}/refunds', value: 'refundPayment' },
    { method: 'POST', path: '/api/v2/payments/refunds', value: 'createUnreferencedRefund' },
    { method: 'GET', path: '/api/v2/payments/getByPayId/{id}', value: 'getPaymentByPayId' },
  ]);

  it('prefers static segments to a parameter, whatever the order given, and methods in either case', () => {
    expect(match('POST', '/api/v2/payments/refunds')?.value).toBe('createUnreferencedRefund');
    expect(match('post', '/api/v2/payments/pay_1/refunds')).toEqual({ value: 'refundPayment', raw: { id: 'pay_1' } });
  });

  it('gives parameters as they stand in the path, one segment each; anything else matches nothing', () => {
    expect(match('GET', '/api/v2/payments/getByPayId/a%2Fb')?.raw).toEqual({ id: 'a%2Fb' });
    expect(match('GET', '/api/v2/payments/getByPayId/a/b')).toBeUndefined();
    expect(match('GET', '/api/v2/payments/getByPayId/')).toBeUndefined();
    expect(match('DELETE', '/api/v2/payments/refunds')).toBeUndefined();
  });
});
