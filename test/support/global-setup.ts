// The root's global setup: bundles the contract once for every test file (services/bundle.ts), and
// makes the run's folder of packed packages (support/packed.ts packs each there once per run).
// The servers some projects share (PostgreSQL, Chromium, Prism) are the global setups those
// projects list in vitest.config.ts (services/).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { sharedBundle } from './services/bundle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The contract bundled from openapi/ (not the committed generated/ copy). */
    bundle: Record<string, unknown>;
    /** The run's folder of packed packages: `npm run pack:<name>` once per run, whatever asks for it. */
    packedDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const packedDir = await mkdtemp(join(tmpdir(), 'packed-'));
  project.provide('bundle', await sharedBundle());
  project.provide('packedDir', packedDir);
  return () => rm(packedDir, { recursive: true, force: true });
}
