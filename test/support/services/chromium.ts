// Global setup of the projects that drive a browser: one headless Chromium per run (see shared.ts),
// a playwright-core browser server that test files connect to (test/support/browser.ts); each file
// opens contexts of its own, so nothing is shared between them but the process.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumLaunchOptions } from '../browser.js';
import { provideShared } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Chromium: the WebSocket endpoint `chromium.connect()` takes. */
    chromium: string;
  }
}

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return provideShared(
    project,
    'chromium',
    { start: async () => chromium.launchServer(await chromiumLaunchOptions()), stop: (server) => server.close() },
    (server) => server.wsEndpoint(),
  );
}
