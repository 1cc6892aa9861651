// A server started once per test run and shared by every project that lists its global setup
// (vitest runs a project's global setups only when one of its files is queued, so a run that needs
// none starts none). Each project's setup loads this module through its own module graph, so the one
// instance lives on globalThis of vitest's main process; the last project to tear down stops it.
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
 * A project's global setup of the service `key`: the run's one instance (started by the first
 * project that needs it), `provided` of it given to the project's files as `inject(key)`, and the
 * teardown of this project's use of it.
 */
export async function provideShared<K extends keyof ProvidedContext & string, T>(
  project: TestProject,
  key: K,
  service: { start: () => Promise<T>; stop: (value: T) => Promise<void> },
  provided: (value: T) => ProvidedContext[K],
): Promise<() => Promise<void>> {
  const { value, release } = await useShared(key, service.start, service.stop);
  project.provide(key, provided(value));
  return release;
}
