// Global setup of the projects that drive a browser: one headless Chromium per run (see shared.ts),
// a playwright-core browser server that test files connect to (test/support/browser.ts); each file
// opens contexts of its own, so nothing is shared between them but the process.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumLaunchOptions } from '../browser.js';
import { useShared } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Chromium: the WebSocket endpoint `chromium.connect()` takes. */
    chromium: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value, release } = await useShared(
    'chromium',
    async () => chromium.launchServer(await chromiumLaunchOptions()),
    (server) => server.close(),
  );
  project.provide('chromium', value.wsEndpoint());
  return release;
}
