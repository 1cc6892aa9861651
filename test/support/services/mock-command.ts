// Global setup of the projects that call `npm run mock` as a team runs it, with its default options
// (its front, CORS closed, Prism behind it): one such process per run (see shared.ts), shared by the
// files that only send it requests. It keeps no state. It starts in the background;
// test/support/prism.ts gives it to tests once it answers; a
// file that needs other options, its output or its end starts its own (startMockCommand).
import type { TestProject } from 'vitest/node';
import { startMockCommand } from '../prism.js';
import { type BackgroundService, provideInBackground } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's `npm run mock`, started in the background: `http://127.0.0.1:<port>` once it answers, paths without `/api/v2`. */
    mockCommand: BackgroundService;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  return provideInBackground(
    project,
    'mockCommand',
    { start: () => startMockCommand(), stop: (mock) => mock.stop() },
    (mock) => mock.baseUrl,
  );
}
