// Global setup of the projects whose packages' tests run them on the Node.js lines their users run
// (tooling/node-lines.ts): the lines as the lockfile pins them, and their install, started in the
// background (a first run's takes about ten seconds, downloaded once) so that the files that run no
// line need not wait; the tests wait for it where they run a line (test/support/node-lines.ts).
import type { TestProject } from 'vitest/node';
import { installNodeLines, type NodeLine, nodeLinesDir, pinnedNodeLines } from '../../../tooling/node-lines.js';
import { type BackgroundService, once, provideInBackground } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The other Node.js lines; empty where the registry has no binary for this machine (not linux-x64). */
    nodeLines: NodeLine[];
    /** Their install, started in the background: its folder once installed. */
    nodeLinesInstall: BackgroundService;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { dir, lines } = await once('node-lines', async () => {
    const dir = await nodeLinesDir();
    return { dir, lines: await pinnedNodeLines(dir) };
  });
  project.provide('nodeLines', lines);
  // A run shorter than the install leaves it whole for the next: the teardown waits for it.
  return provideInBackground(
    project,
    'nodeLinesInstall',
    { start: () => (lines.length > 0 ? installNodeLines(dir) : Promise.resolve(dir)), stop: async () => undefined },
    (installed) => installed,
  );
}
