// Global setup of the projects whose packages' tests run them on the Node.js lines their users run
// (tooling/node-lines.ts). Vitest runs the global setups one after another before any file starts,
// and a first run's install takes about ten seconds: the setup starts it and gives the lines as the
// lockfile pins them, and the tests wait for the install where they run a line
// (test/support/node-lines.ts), so that the files that need no line start at once and no two files
// install them at once.
import { rm, writeFile } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { installNodeLines, type NodeLine, nodeLinesDir, pinnedNodeLines } from '../../../tooling/node-lines.js';
import { once } from './shared.js';

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

interface Lines {
  lines: NodeLine[];
  install: NodeLinesInstall;
  /** Settles when the install has ended, either way. */
  installed: Promise<void>;
}

/** The lines the lockfile pins, their install started. */
async function startInstall(): Promise<Lines> {
  const dir = await nodeLinesDir();
  const install = { dir, failure: `${dir}.failed` };
  const lines = await pinnedNodeLines(dir);
  if (lines.length === 0) return { lines, install, installed: Promise.resolve() };
  // A failure of an earlier run is not this one's: the workers must not read it.
  await rm(install.failure, { force: true });
  const installed = installNodeLines(dir).then(
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
