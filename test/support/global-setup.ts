// The root's global setup: bundles the contract once for every test file (services/bundle.ts).
// The servers some projects share (PostgreSQL, Chromium, Prism) are the global setups those
// projects list in vitest.config.ts (services/).
import type { TestProject } from 'vitest/node';
import { sharedBundle } from './services/bundle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The contract bundled from openapi/ (not the committed generated/ copy). */
    bundle: Record<string, unknown>;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('bundle', await sharedBundle());
}
