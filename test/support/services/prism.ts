// Global setup of the projects that call a plain Prism mock of the contract (examples, request
// validation): one Prism per run (see shared.ts), serving the bundle the run tests. Prism keeps no
// state, so test files share it. It starts in the background; test/support/prism.ts gives it to tests once it
// answers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPrism } from '../../../mock/prism.js';
import { sharedBundle } from './bundle.js';
import { type BackgroundService, provideInBackground } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Prism, started in the background: `http://127.0.0.1:<port>` once it answers, paths without `/api/v2`. */
    prism: BackgroundService;
  }
}

/** Prism on the run's bundle, written to a folder of its own. */
async function startOnBundle() {
  const dir = mkdtempSync(join(tmpdir(), 'prism-contract-'));
  const specPath = join(dir, 'openapi.json');
  writeFileSync(specPath, JSON.stringify(await sharedBundle()));
  try {
    return { prism: await startPrism({ specPath }), dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  return provideInBackground(
    project,
    'prism',
    {
      start: startOnBundle,
      stop: async ({ prism, dir }) => {
        await prism.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    },
    ({ prism }) => prism.baseUrl,
  );
}
