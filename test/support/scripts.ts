// A command of scripts/ run as its package script runs it (`tsx scripts/<name>.ts`), by this Node.
import { join } from 'node:path';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { type ProcessResult, runNode } from '../../generator/support/process.js';

const TSX = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/**
 * `scripts/<name>.ts` with `args`, under tsx as `npm run` runs it. Without V8's optimizing compiler
 * (`--no-opt`, which tsx hands to the Node it starts): a run lasts a second or two, and TurboFan's
 * compiles cost more CPU than they save in a suite that keeps both cores busy.
 */
export function runScript(
  name: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<ProcessResult> {
  return runNode(TSX, ['--no-opt', join(REPO_ROOT, 'scripts', `${name}.ts`), ...args], options);
}
