// The budget of request bodies in flight (sandbox/http/body-budget.ts): bytes taken before a body
// is read and given back when its response has ended; past the budget, requests wait in order.
import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../../sandbox/http/body-budget.js';

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('BodyBudget', () => {
  it('grants what fits at once, and the rest in order as bytes come back', async () => {
    const budget = new BodyBudget(100);
    const a = budget.take(60);
    const b = budget.take(50);
    const c = budget.take(10);
    expect(await settled(a.ready)).toBe(true);
    expect(await settled(b.ready)).toBe(false);
    expect(await settled(c.ready)).toBe(false); // first come, first served: c waits behind b
    expect(budget.waiting).toBe(2);
    budget.release(a);
    expect(await settled(b.ready)).toBe(true);
    expect(await settled(c.ready)).toBe(true);
    expect(budget.free).toBe(40);
    budget.release(b);
    budget.release(c);
    budget.release(c); // idempotent
    expect(budget.free).toBe(100);
  });

  it('withdraws a waiting request whose connection closed', async () => {
    const budget = new BodyBudget(100);
    const a = budget.take(100);
    const gone = budget.take(100);
    const next = budget.take(50);
    budget.release(gone);
    expect(budget.waiting).toBe(1);
    budget.release(a);
    expect(await settled(next.ready)).toBe(true);
    expect(budget.free).toBe(50);
  });

  it('never asks for more than the whole budget', async () => {
    const budget = new BodyBudget(100);
    const huge = budget.take(1_000);
    expect(await settled(huge.ready)).toBe(true);
    expect(budget.free).toBe(0);
  });
});
