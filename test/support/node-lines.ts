// The Node.js lines the shipped packages' users run, besides the suite's own (services/node-lines.ts
// installs them once per run): a command run as it runs on one of them.
import { inject } from 'vitest';
import { type Run, run } from './packed.js';
import type { NodeLine } from './services/node-lines.js';

export type { NodeLine } from './services/node-lines.js';

/** The lines installed for this run (none on a machine the registry has no binary for). */
export const nodeLines = (): NodeLine[] => inject('nodeLines');

/** `command args…` in `cwd` with `line`'s node first on PATH: `node`, `npx` and every `#!/usr/bin/env node` script run on it. */
export function runOn(
  line: NodeLine,
  command: string,
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Run> {
  // What npm told the suite when it started it (npm_*, NODE: its node, its command) is npm's of this
  // suite's Node, not the line's: a user on that line has none of it.
  const fromNpm = Object.keys(process.env).filter((name) => name.startsWith('npm_') || name === 'NODE');
  const env: Record<string, string | undefined> = {
    ...Object.fromEntries(fromNpm.map((name) => [name, undefined])),
    ...options.env,
    PATH: `${line.binDir}:${process.env.PATH ?? ''}`,
  };
  return run(command, args, cwd, { timeoutMs: options.timeoutMs, env });
}
