// Global setup of the projects that drive a browser: one headless Chromium per run (see shared.ts),
// a playwright-core browser server that test files connect to (test/support/browser.ts); each file
// opens contexts of its own, so nothing is shared between them but the process. It starts in the
// background (a first run unpacks the browser); connectBrowser() waits for it.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumLaunchOptions } from '../browser.js';
import { type BackgroundService, provideInBackground } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Chromium, started in the background: the WebSocket endpoint `chromium.connect()` takes. */
    chromium: BackgroundService;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  return provideInBackground(
    project,
    'chromium',
    { start: async () => chromium.launchServer(await chromiumLaunchOptions()), stop: (server) => server.close() },
    (server) => server.wsEndpoint(),
  );
}
