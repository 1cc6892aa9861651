// A server started once per test run and shared by every project that lists its global setup
// (vitest runs a project's global setups only when one of its files is queued, so a run that needs
// none starts none). Each project's setup loads this module through its own module graph, so the one
// instance lives on globalThis of vitest's main process; the last project to tear down stops it.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';

interface Shared<T> {
  value: Promise<T>;
  users: number;
  stop: (value: T) => Promise<void>;
}

const holder = globalThis as { __sharedTestServices?: Map<string, Shared<unknown>> };
holder.__sharedTestServices ??= new Map();
const registry = holder.__sharedTestServices;

/** What `compute` gives, computed once per run however many projects ask (plain data, nothing to stop). */
export function once<T>(name: string, compute: () => Promise<T>): Promise<T> {
  return useShared(name, compute, async () => undefined).then(({ value }) => value);
}

/** The running service `name` (started by the first caller), and the teardown of this caller's use of it. */
export async function useShared<T>(
  name: string,
  start: () => Promise<T>,
  stop: (value: T) => Promise<void>,
): Promise<{ value: T; release: () => Promise<void> }> {
  let shared = registry.get(name) as Shared<T> | undefined;
  if (!shared) {
    shared = { value: start(), users: 0, stop };
    registry.set(name, shared as Shared<unknown>);
  }
  shared.users++;
  const entry = shared;
  try {
    const value = await entry.value;
    return {
      value,
      release: async () => {
        if (--entry.users > 0) return;
        registry.delete(name);
        await entry.stop(value);
      },
    };
  } catch (err) {
    registry.delete(name);
    throw err;
  }
}

/**
 * Where a service started in the background tells the test files about itself (test/support/background.ts
 * reads it): `ready`, once it has started, holds what the files are given, as JSON; `failure`, if
 * it could not start, why.
 */
export interface BackgroundService {
  ready: string;
  failure: string;
}

/** The services the files are given as a BackgroundService. */
export type BackgroundKey = {
  [P in keyof ProvidedContext & string]: ProvidedContext[P] extends BackgroundService ? P : never;
}[keyof ProvidedContext & string];

/**
 * A project's global setup of the service `key`: the run's one instance (started by the first
 * project that needs it), started in the background so that Vitest's next global setup and the
 * files that do not use it need not wait (Vitest runs every project's global setups one after
 * another before the first file). The project is given the files where the service's `provided`
 * value, or why it did not start, will be (test/support/background.ts waits for them); the
 * teardown waits for the start to end, then ends this project's use of the service.
 */
export function provideInBackground<K extends BackgroundKey, T>(
  project: TestProject,
  key: K,
  service: { start: () => Promise<T>; stop: (value: T) => Promise<void> },
  provided: (value: T) => unknown,
): () => Promise<void> {
  const files = backgroundFiles(key);
  const start = async () => {
    try {
      const value = await service.start();
      await writeAtomically(files.ready, JSON.stringify(provided(value)));
      return value;
    } catch (err) {
      await writeAtomically(files.failure, `${key} did not start: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  };
  const use = useShared(key, start, async (value: T) => {
    await Promise.all([rm(files.ready, { force: true }), rm(files.failure, { force: true })]);
    await service.stop(value);
  });
  // A failure is the files' to report, and the teardown's to clean up after: not an unhandled rejection.
  use.catch(() => undefined);
  project.provide(key, files as ProvidedContext[K]);
  return async () => {
    const started = await use.catch(() => undefined);
    if (started) await started.release();
    else await rm(files.failure, { force: true });
  };
}

/** The files of `key`'s background service in this run: the same for every project that asks. */
function backgroundFiles(key: string): BackgroundService {
  const runs = globalThis as { __backgroundRun?: string };
  runs.__backgroundRun ??= `${process.pid}-${randomBytes(4).toString('hex')}`;
  const base = join(tmpdir(), `test-service-${runs.__backgroundRun}-${key}`);
  return { ready: `${base}.json`, failure: `${base}.failed` };
}

/** A reader never sees half a file: it is written beside and renamed into place. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}
