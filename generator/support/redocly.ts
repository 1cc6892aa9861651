import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './paths.js';
import { type PreparedProcess, type ProcessResult, runNode, SHORT_RUN_NODE_FLAGS, startNodeAhead } from './process.js';

// Why the CLI and not `@redocly/openapi-core`'s API: @redocly/cli 2.77 ships as one
// self-contained bundle (no importable core), and the registry's newest @redocly/openapi-core
// is 2.64.0, so an in-process core would be a different Redocly than `redocly check-config`
// and `redocly lint` use. Measured: a CLI run costs ~0.3 s here; importing core alone ~0.25 s.
const CLI = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const CLI_MODULE = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'lib', 'index.js');
const AHEAD = fileURLToPath(new URL('redocly-ahead.mjs', import.meta.url));
const ENV = {
  REDOCLY_TELEMETRY: 'off', // no network here, and none wanted from a lint
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
};

export type CliResult = ProcessResult;

/** Watch mode's `redocly bundle`, started ahead (prepareBundler). */
let preparedBundler: PreparedProcess | undefined;

/**
 * `signal`: an abort kills the CLI's process group (watch mode abandons a superseded build). A
 * bundle uses the prepared process when there is one, even one still loading: it is further on
 * than a new one would be.
 */
export async function runRedocly(args: string[], cwd = process.cwd(), signal?: AbortSignal): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`Redocly CLI not found at ${CLI}; run npm ci`);
  const prepared = args[0] === 'bundle' ? preparedBundler : undefined;
  if (prepared) {
    preparedBundler = undefined;
    if (await prepared.ready) return prepared.run(JSON.stringify({ args, cwd }), signal);
  }
  return runNode(CLI, args, { cwd, signal, env: ENV, nodeOptions: SHORT_RUN_NODE_FLAGS });
}

/**
 * Watch mode: starts a `redocly bundle` process ahead of the next save, its modules loaded
 * (redocly-ahead.mjs), so that the bundle on the way to types.ts does not wait for Node and the
 * CLI to start, about a third of its time. One at a time; `discard` ends it.
 */
export function prepareBundler(action: 'start' | 'discard' = 'start'): void {
  if (action === 'discard') {
    preparedBundler?.discard();
    preparedBundler = undefined;
    return;
  }
  if (preparedBundler || !existsSync(CLI_MODULE)) return;
  const prepared = startNodeAhead(AHEAD, [CLI_MODULE, 'handleBundle'], {
    env: ENV,
    nodeOptions: SHORT_RUN_NODE_FLAGS,
  });
  preparedBundler = prepared;
  void prepared.ready.then((ready) => {
    if (!ready && preparedBundler === prepared) preparedBundler = undefined;
  });
}

/** CLI stderr without the boxed "Node.js 20 support is ending" banner and blank noise. */
export function cleanStderr(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^\s*[╔╚║]/.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export interface SourceProblem {
  file: string; // relative to the working directory
  line: number;
  col: number;
  message: string;
}

/**
 * File/line problems from the CLI's human output (the bundle command has no JSON format):
 *  - codeframe entries: `[1] path/file.yaml:7:5 at #/pointer`, a blank line, the message;
 *  - a root that does not parse: `Failed to parse API description at <file>:` then
 *    `  - <message> in "<file>" (line:col)`.
 */
export function parseCliProblems(text: string): SourceProblem[] {
  const problems: SourceProblem[] = [];
  for (const m of text.matchAll(/^\[\d+\] (.+?):(\d+):(\d+)(?: at \S+)?[ \t]*\n\n(.+)$/gm)) {
    problems.push({ file: m[1]!, line: Number(m[2]), col: Number(m[3]), message: m[4]!.trim() });
  }
  for (const m of text.matchAll(/^\s*- (.+) in "(.+)" \((\d+):(\d+)\)\s*$/gm)) {
    const file = relative(process.cwd(), resolve(m[2]!));
    problems.push({ file, line: Number(m[3]), col: Number(m[4]), message: `Failed to parse: ${m[1]}` });
  }
  return problems;
}
