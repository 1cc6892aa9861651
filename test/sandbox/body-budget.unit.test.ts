// The budget of request bodies in flight (sandbox/http/body-budget.ts): bytes taken before a body
// is read and given back when its response has ended; past the budget, requests wait in order; and
// the floor of a body's rate, which an injected request (no connection) is never held to.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BodyBudget, BodyFloor } from '../../sandbox/http/body-budget.js';

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

describe('BodyFloor', () => {
  const server = () => Object.assign(new EventEmitter(), { emitted: [] as unknown[] }) as unknown as Server;
  const request = (socket: object) => ({ complete: false, socket }) as unknown as IncomingMessage;

  it('holds a body read from a connection to the floor, and cuts it off once it falls below', () => {
    const on = server();
    const cut: unknown[] = [];
    on.on('clientError', (error: Error) => cut.push(error));
    const floor = new BodyFloor(on, { minBytesPerSecond: 1_000, graceMs: 100 });
    floor.track(request({ bytesRead: 0, destroyed: false }));
    expect(floor.reading).toBe(1);
    floor.sweep(Date.now() + 1_000);
    expect(floor.reading).toBe(0);
    expect(cut).toHaveLength(1);
    on.emit('close');
  });

  it('leaves alone an injected request (app.inject, the in-process sandbox): no connection to count or cut', () => {
    const on = server();
    const floor = new BodyFloor(on, { minBytesPerSecond: 1_000, graceMs: 100 });
    // light-my-request's socket: no bytesRead, no destroy.
    floor.track(request({ remoteAddress: '127.0.0.1' }));
    expect(floor.reading).toBe(0);
    expect(() => floor.sweep(Date.now() + 1_000)).not.toThrow();
    on.emit('close');
  });
});
