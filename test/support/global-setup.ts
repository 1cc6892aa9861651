import type { TestProject } from 'vitest/node';
import { bundleContract } from '../../generator/bundle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The contract bundled from openapi/ (not the committed generated/ copy). */
    bundle: Record<string, unknown>;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const { document } = await bundleContract();
  project.provide('bundle', document);
}
