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

describe('DocumentCache, bounded in bytes', () => {
  const doc = (chars: number, fill = 'x') => `{"pad":"${fill.repeat(chars - 10)}"}`;

  it('counts two bytes a character, keys included, and starts over past its byte bound', async () => {
    const cache = new DocumentCache(4_096, 40_000);
    const key = byPayId(scope, 'a');
    await cache.read(key, async () => doc(1_000));
    expect(cache.bytes).toBe(2 * (key.length + 1_000));
    for (let i = 0; i < 24; i++) await cache.read(byPayId(scope, `p${i}`), async () => doc(1_000));
    expect(cache.bytes).toBeLessThanOrEqual(40_000);
    expect(cache.size).toBeLessThan(25);
    const reset = new WrittenPayments();
    reset.all = true;
    cache.forget(reset);
    expect(cache.bytes).toBe(0);
  });

  it('answers a document larger than a sixteenth of the bound without keeping it', async () => {
    const cache = new DocumentCache(4_096, 16_000);
    const small = loader({ current: doc(100) });
    await cache.read(byPayId(scope, 'small'), small.load);
    const large = loader({ current: doc(600) });
    expect(await cache.read(byPayId(scope, 'large'), large.load)).toBe(doc(600));
    expect(await cache.read(byPayId(scope, 'large'), large.load)).toBe(doc(600));
    expect(large.calls.count).toBe(2);
    expect(cache.size).toBe(1); // the small one was not flushed
  });

  it('gives back the bytes of the documents a write drops', async () => {
    const cache = new DocumentCache();
    await cache.read(byPayId(scope, payment.payId), async () => doc(1_000));
    await cache.read(byTransId(scope, payment.transId), async () => doc(1_000));
    await cache.read(byPayId(scope, 'other'), async () => doc(10));
    const written = new WrittenPayments();
    written.payment(payment);
    cache.forget(written);
    expect(cache.bytes).toBe(2 * (byPayId(scope, 'other').length + 10));
  });

  it('holds a flood of 200 documents of 400 000 characters to its bound (the default: 16 MiB)', async () => {
    const cache = new DocumentCache();
    const large = 'd'.repeat(400_000);
    for (let i = 0; i < 200; i++) await cache.read(byPayId(scope, `p${i}`), async () => `${large}${i}`);
    expect(cache.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(cache.size).toBeLessThanOrEqual(20);
  });
});
