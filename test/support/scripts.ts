// A command of scripts/ run as its package script runs it (`tsx scripts/<name>.ts`), by this Node.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { type ProcessResult, runNode } from '../../generator/support/process.js';
import { SHORT_RUN_NODE_FLAGS } from '../../tooling/tiering.mjs';

/** tsx's loader: `tsx <file>` is Node with it, started by a Node process of tsx's own, which this spares. */
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** `scripts/<name>.ts` with `args`, under tsx's loader as `npm run` runs it, with the flags of a short run. */
export function runScript(
  name: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<ProcessResult> {
  return runNode(join(REPO_ROOT, 'scripts', `${name}.ts`), args, {
    ...options,
    nodeOptions: [...SHORT_RUN_NODE_FLAGS, '--import', TSX_LOADER],
  });
}
