// The Node.js lines the shipped packages' users run, besides the suite's own (services/node-lines.ts
// installs them once per run, while the files start): a command run as it runs on one of them.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { envOnLine, type NodeLine } from '../../tooling/node-lines.js';
import { type Run, run } from './packed.js';

export type { NodeLine } from '../../tooling/node-lines.js';

/** The lines of this run (none on a machine the registry has no binary for). */
export const nodeLines = (): NodeLine[] => inject('nodeLines');

/** How long a first run's download and unpacking of the lines may take. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

let installed: Promise<void> | undefined;

/** Resolves once the run's install of the lines is in place; rejects with npm's reason if it failed. */
function linesInstalled(): Promise<void> {
  installed ??= (async () => {
    const { dir, failure } = inject('nodeLinesInstall');
    for (const deadline = Date.now() + INSTALL_TIMEOUT_MS; !existsSync(dir); await sleep(200)) {
      if (existsSync(failure)) throw new Error(await readFile(failure, 'utf8'));
      if (Date.now() > deadline) throw new Error(`the Node.js lines were not installed into ${dir} in time`);
    }
  })();
  return installed;
}

/** `command args…` in `cwd` with `line`'s node first on PATH: `node`, `npx` and every `#!/usr/bin/env node` script run on it. */
export async function runOn(
  line: NodeLine,
  command: string,
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Run> {
  await linesInstalled();
  return run(command, args, cwd, { timeoutMs: options.timeoutMs, env: { ...options.env, ...envOnLine(line) } });
}
