// A command of scripts/ run as its package script runs it (`tsx scripts/<name>.ts`), by this Node.
import { join } from 'node:path';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { type ProcessResult, runNode, SHORT_RUN_NODE_FLAGS } from '../../generator/support/process.js';

const TSX = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** `scripts/<name>.ts` with `args`, under tsx as `npm run` runs it, with the flags of a short run (tsx hands them to the Node it starts). */
export function runScript(
  name: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<ProcessResult> {
  return runNode(TSX, [...SHORT_RUN_NODE_FLAGS, join(REPO_ROOT, 'scripts', `${name}.ts`), ...args], options);
}
