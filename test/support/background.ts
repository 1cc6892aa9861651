// What a test file waits for of a service its project's global setup started in the background
// (provideInBackground() in services/shared.ts): the value the setup gives once the service has
// started, or the setup's reason why it did not.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import type { BackgroundKey, BackgroundService } from './services/shared.js';

/** How long a service may take to start: a first run unpacks Chromium or downloads the Node.js lines. */
const START_TIMEOUT_MS = 10 * 60_000;

const started = new Map<string, Promise<unknown>>();

/**
 * The value `key`'s setup gives once its service has started (`T`: what the setup's `provided`
 * returns); rejects with the setup's reason when it did not start. The project lists the setup in
 * its globalSetup (vitest.config.ts).
 */
export function backgroundService<T>(key: BackgroundKey): Promise<T> {
  let value = started.get(key);
  if (!value) {
    value = Promise.resolve().then(() => waitFor(key));
    started.set(key, value);
  }
  return value as Promise<T>;
}

function waitFor(key: BackgroundKey): Promise<unknown> {
  const files = inject(key);
  if (!files)
    throw new Error(
      `this test's project has no ${key}: list its setup (test/support/services/) in the project's globalSetup in vitest.config.ts`,
    );
  return serviceStarted(key, files);
}

/** What `files` come to hold: the service's value (parsed), or a rejection with why it did not start. */
export async function serviceStarted(
  key: string,
  files: BackgroundService,
  timeoutMs = START_TIMEOUT_MS,
): Promise<unknown> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(50)) {
    if (existsSync(files.ready)) return JSON.parse(await readFile(files.ready, 'utf8'));
    if (existsSync(files.failure)) throw new Error(await readFile(files.failure, 'utf8'));
    if (Date.now() > deadline) throw new Error(`${key} did not start within ${timeoutMs} ms`);
  }
}
