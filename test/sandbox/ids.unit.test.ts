// The sandbox's identifiers (sandbox/app/ids.ts): the shapes of the contract's examples, and distinct
// across many draws from the pooled random bytes (the pool is refilled every 4 kB).
import { describe, expect, it } from 'vitest';
import { newId } from '../../sandbox/app/ids.js';

describe('newId', () => {
  it('has the shape of the contract examples for each kind', () => {
    const at = new Date('2026-11-24T10:00:00Z');
    expect(newId('payment', at)).toMatch(/^[0-9a-f]{32}$/);
    expect(newId('payment', at).slice(0, 12)).toBe(at.getTime().toString(16).padStart(12, '0'));
    expect(newId('plan', at)).toMatch(/^pp_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('trace')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(newId('customer')).toMatch(/^cus_[0-9a-f]{16}$/);
    expect(newId('pseudoNumber')).toMatch(/^pn_[0-9a-f]{24}$/);
  });

  it('never repeats within one millisecond, across many refills of the random pool', () => {
    const at = new Date('2026-11-24T10:00:00Z');
    const ids = new Set<string>();
    for (let i = 0; i < 20_000; i++) ids.add(newId(i % 3 === 0 ? 'plan' : 'payment', at));
    expect(ids.size).toBe(20_000);
  });
});
