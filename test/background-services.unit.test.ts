// The servers a run's global setups start in the background (provideInBackground() in
// test/support/services/shared.ts) and what the test files wait for (test/support/background.ts):
// the setup returns before the service has started; its value reaches the files once it has, or
// the reason it did not; projects share one start, and the last teardown stops it once.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import { serviceStarted } from './support/background.js';
import { type BackgroundKey, type BackgroundService, provideInBackground } from './support/services/shared.js';

/** A project as a global setup sees it: what it is given. */
function fakeProject(): TestProject & { given: Map<string, unknown> } {
  const given = new Map<string, unknown>();
  return { given, provide: (key: string, value: unknown) => given.set(key, value) } as never;
}

/** A key of this test alone (the services are shared by key within a process). */
const keyOf = (name: string) => `${name}-${Math.random().toString(36).slice(2)}` as BackgroundKey;

/** A start that ends when `finish` is called. */
function deferredStart<T>() {
  let finish!: (value: T | Error) => void;
  const started = new Promise<T>((done, fail) => {
    finish = (value) => (value instanceof Error ? fail(value) : done(value));
  });
  return { start: () => started, finish };
}

describe('a service started in the background', () => {
  it('is set up at once, and its value reaches the files once it has started', async () => {
    const key = keyOf('server');
    const project = fakeProject();
    const { start, finish } = deferredStart<{ port: number }>();
    const stopped: number[] = [];
    const teardown = provideInBackground(
      project,
      key,
      { start, stop: async (s) => void stopped.push(s.port) },
      (s) => `http://127.0.0.1:${s.port}`,
    );
    const files = project.given.get(key) as BackgroundService;
    expect(existsSync(files.ready)).toBe(false);
    const value = serviceStarted(key, files, 5_000);
    finish({ port: 4321 });
    await expect(value).resolves.toBe('http://127.0.0.1:4321');
    await teardown();
    expect(stopped).toEqual([4321]);
    expect(existsSync(files.ready)).toBe(false);
  });

  it('tells the files why it did not start, and its teardown leaves nothing', async () => {
    const key = keyOf('broken');
    const project = fakeProject();
    const { start, finish } = deferredStart<number>();
    const teardown = provideInBackground(project, key, { start, stop: async () => undefined }, (n) => n);
    const files = project.given.get(key) as BackgroundService;
    finish(new Error('port 5432 is taken'));
    await expect(serviceStarted(key, files, 5_000)).rejects.toThrow(`${key} did not start: port 5432 is taken`);
    await teardown();
    expect(existsSync(files.failure)).toBe(false);
  });

  it('is started once for every project that lists it, and stopped once by the last teardown', async () => {
    const key = keyOf('shared');
    const [a, b] = [fakeProject(), fakeProject()];
    let starts = 0;
    const stops: string[] = [];
    const service = { start: async () => `instance ${++starts}`, stop: async (s: string) => void stops.push(s) };
    const teardowns = [provideInBackground(a, key, service, (s) => s), provideInBackground(b, key, service, (s) => s)];
    expect(a.given.get(key)).toEqual(b.given.get(key));
    await expect(serviceStarted(key, a.given.get(key) as BackgroundService, 5_000)).resolves.toBe('instance 1');
    await teardowns[0]!();
    expect(stops).toEqual([]);
    await teardowns[1]!();
    expect([starts, stops]).toEqual([1, ['instance 1']]);
  });
});
