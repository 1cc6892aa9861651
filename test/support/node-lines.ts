// The Node.js lines the shipped packages' users run, besides the suite's own (services/node-lines.ts
// installs them once per run, while the files start): a command run as it runs on one of them.
import { inject } from 'vitest';
import { envOnLine, type NodeLine } from '../../tooling/node-lines.js';
import { backgroundService } from './background.js';
import { type Run, run } from './packed.js';

export type { NodeLine } from '../../tooling/node-lines.js';

/** The lines of this run (none on a machine the registry has no binary for). */
export const nodeLines = (): NodeLine[] => inject('nodeLines');

/** `command args…` in `cwd` with `line`'s node first on PATH: `node`, `npx` and every `#!/usr/bin/env node` script run on it. */
export async function runOn(
  line: NodeLine,
  command: string,
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Run> {
  await backgroundService<string>('nodeLinesInstall');
  return run(command, args, cwd, { timeoutMs: options.timeoutMs, env: { ...options.env, ...envOnLine(line) } });
}
