// The SQLite store's cache of payment documents (sandbox/store/dialects/sqlite/document-cache.ts): read through,
// dropped by the writes of a transaction once it has ended, never filled by a read that overlapped
// such a write, bounded. The sandbox suites hold it end to end (a GET after every kind of write).
import { describe, expect, it } from 'vitest';
import {
  byPayId,
  byTransId,
  DocumentCache,
  WrittenPayments,
} from '../../sandbox/store/dialects/sqlite/document-cache.js';

const scope = { merchantId: 'm_1', environment: 'test' as const };
const payment = { scope, payId: '0193a2f0c5a84b7d4e1f9a3c6b2d8e0f', transId: 'MYSHOP-42' };

/** A loader that counts its calls and answers what `value` holds when it is called. */
function loader(value: { current: string | undefined }) {
  const calls = { count: 0 };
  return {
    calls,
    load: async () => {
      calls.count++;
      return value.current;
    },
  };
}

describe('DocumentCache', () => {
  it('reads through once, then answers from memory; a miss is not remembered', async () => {
    const cache = new DocumentCache();
    const value = { current: '{"state":"AUTHORIZED"}' as string | undefined };
    const { calls, load } = loader(value);
    expect(await cache.read(byPayId(scope, payment.payId), load)).toBe('{"state":"AUTHORIZED"}');
    expect(await cache.read(byPayId(scope, payment.payId), load)).toBe('{"state":"AUTHORIZED"}');
    expect(calls.count).toBe(1);
    const missing = loader({ current: undefined });
    await cache.read(byPayId(scope, 'unknown'), missing.load);
    await cache.read(byPayId(scope, 'unknown'), missing.load);
    expect(missing.calls.count).toBe(2);
  });

  it('forgets the payments a transaction wrote, by payId and by transId, and nothing else', async () => {
    const cache = new DocumentCache();
    const value = { current: '{"state":"AUTHORIZED"}' as string | undefined };
    const { calls, load } = loader(value);
    await cache.read(byPayId(scope, payment.payId), load);
    await cache.read(byTransId(scope, payment.transId), load);
    await cache.read(byPayId(scope, 'other'), load);
    const written = new WrittenPayments();
    written.payment(payment);
    value.current = '{"state":"CAPTURED"}';
    cache.forget(written);
    expect(await cache.read(byPayId(scope, payment.payId), load)).toBe('{"state":"CAPTURED"}');
    expect(await cache.read(byTransId(scope, payment.transId), load)).toBe('{"state":"CAPTURED"}');
    expect(await cache.read(byPayId(scope, 'other'), load)).toBe('{"state":"AUTHORIZED"}');
    expect(calls.count).toBe(5);
  });

  it('keeps scopes apart: the same payId in another environment is another entry', async () => {
    const cache = new DocumentCache();
    await cache.read(byPayId(scope, payment.payId), async () => 'test');
    expect(await cache.read(byPayId({ ...scope, environment: 'live' }, payment.payId), async () => 'live')).toBe(
      'live',
    );
  });

  it('is not filled by a read that a write overlapped (it may have read the state before the commit)', async () => {
    const cache = new DocumentCache();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stale = cache.read(byPayId(scope, payment.payId), async () => {
      await gate;
      return '{"state":"AUTHORIZED"}';
    });
    const written = new WrittenPayments();
    written.payment(payment);
    cache.forget(written);
    release();
    expect(await stale).toBe('{"state":"AUTHORIZED"}');
    expect(cache.size).toBe(0);
    expect(await cache.read(byPayId(scope, payment.payId), async () => '{"state":"CAPTURED"}')).toBe(
      '{"state":"CAPTURED"}',
    );
  });

  it('forgets everything after a reset, and starts over past its limit', async () => {
    const cache = new DocumentCache(3);
    for (const id of ['a', 'b', 'c']) await cache.read(byPayId(scope, id), async () => id);
    expect(cache.size).toBe(3);
    await cache.read(byPayId(scope, 'd'), async () => 'd');
    expect(cache.size).toBe(1);
    const reset = new WrittenPayments();
    reset.all = true;
    cache.forget(reset);
    expect(cache.size).toBe(0);
  });
});
