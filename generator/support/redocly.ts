import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHORT_RUN_NODE_FLAGS } from '../../tooling/tiering.mjs';
import { REPO_ROOT } from './paths.js';
import { type CommandHost, type ProcessResult, startCommandHost } from './process.js';

// Why the CLI and not `@redocly/openapi-core`'s API: @redocly/cli 2.77 ships as one
// self-contained bundle (no importable core), and the registry's newest @redocly/openapi-core
// is 2.64.0, so an in-process core would be a different Redocly than `redocly check-config`
// and `redocly lint` use.
const CLI_MODULE = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'lib', 'index.js');
const HOST = fileURLToPath(new URL('redocly-host.mjs', import.meta.url));
/** The environment of every Redocly command. */
export const REDOCLY_ENV = {
  REDOCLY_TELEMETRY: 'off', // no network here, and none wanted from a lint
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
};
/** The commands a host runs before it is ended: what a command leaves behind in it stays bounded. */
const COMMANDS_PER_HOST = 24;

export type CliResult = ProcessResult;

/**
 * How many Redocly hosts run at once: the cores the pipeline's own threads (its main thread and
 * lint's worker) leave, at least one. On two cores the four commands of a forced generate run one
 * after another in one host, the bundle first, beside the pipeline's threads, rather than four
 * processes each loading the CLI on the same cores.
 */
const HOSTS = Math.max(1, availableParallelism() - 2);

interface Host {
  process: CommandHost;
  commands: number;
}

interface Waiter {
  take(host: Host): void;
  fail(reason: unknown): void;
}

/** The Redocly hosts (redocly-host.mjs): those between commands, and the commands waiting for one. */
const pool = { started: [] as Host[], idle: [] as Host[], waiting: [] as Waiter[] };

/** A Redocly host (redocly-host.mjs) with the chunks of `handlers` (such as handleBundle) loaded ahead; outside the pool. */
export const startRedoclyHost = (handlers: string[] = []): CommandHost =>
  startCommandHost(HOST, [CLI_MODULE, ...handlers], { env: REDOCLY_ENV, nodeOptions: SHORT_RUN_NODE_FLAGS });

function startHost(handlers: string[] = []): Host {
  const host = { process: startRedoclyHost(handlers), commands: 0 };
  pool.started.push(host);
  return host;
}

/** A new host for the commands waiting: once loaded it takes the first of them (a bundle, if one waits). */
function startHostForWaiting(): void {
  const host = startHost();
  void host.process.ready.then((ready) => {
    if (ready) {
      free(host);
      return;
    }
    // The CLI does not load: every command waiting would fail the same way.
    pool.started = pool.started.filter((h) => h !== host);
    const error = new Error('the Redocly host ended while it loaded the CLI');
    for (const waiter of pool.waiting.splice(0)) waiter.fail(error);
  });
}

/** A host free for a command: it goes to the first command waiting, else waits itself. */
function free(host: Host): void {
  const next = pool.waiting.shift();
  if (next) next.take(host);
  else {
    host.process.idle();
    pool.idle.push(host);
  }
}

/**
 * The host a command runs in: an idle one, else the first to come free, a new one being started
 * while there are fewer than HOSTS. A command that waits does not own the host started for it: a
 * bundle that asks later still goes first.
 */
function acquire(first: boolean, signal?: AbortSignal): Promise<Host> {
  pool.started = pool.started.filter((h) => h.process.alive);
  pool.idle = pool.idle.filter((h) => h.process.alive);
  const idle = pool.idle.shift();
  if (idle) return Promise.resolve(idle);
  const waiting = new Promise<Host>((take, fail) => {
    const waiter: Waiter = { take, fail };
    if (first) pool.waiting.unshift(waiter);
    else pool.waiting.push(waiter);
    signal?.addEventListener(
      'abort',
      () => {
        pool.waiting = pool.waiting.filter((w) => w !== waiter);
        fail(signal.reason);
      },
      { once: true },
    );
  });
  if (pool.started.length < HOSTS) startHostForWaiting();
  return waiting;
}

/** A command ended in `host`: the host is free again; a worn or broken one is ended, and replaced if commands wait. */
function release(host: Host, usable: boolean): void {
  if (usable && host.commands < COMMANDS_PER_HOST && host.process.alive) {
    free(host);
    return;
  }
  if (usable) host.process.close();
  else host.process.kill();
  pool.started = pool.started.filter((h) => h !== host);
  if (pool.waiting.length > 0) startHostForWaiting();
}

/**
 * `redocly <args>` in `cwd`, as the CLI's own process would run it, in a Redocly host: Node's
 * start and the loading of the CLI are paid once per host, not once per command (a forced generate
 * runs four commands, the tests hundreds). A bundle goes ahead of the commands waiting for a host:
 * most of a pipeline waits for it. An idle host prepared ahead (prepareBundler) is taken even while
 * it still loads: it is further on than a new one would be. `signal`: an abort kills the host's
 * process group (watch mode abandons a superseded build) and rejects with the signal's reason.
 */
export async function runRedocly(args: string[], cwd = process.cwd(), signal?: AbortSignal): Promise<CliResult> {
  if (!existsSync(CLI_MODULE)) throw new Error(`Redocly CLI not found at ${CLI_MODULE}; run npm ci`);
  signal?.throwIfAborted();
  const host = await acquire(args[0] === 'bundle', signal);
  host.commands++;
  let usable = false;
  try {
    const result = await host.process.run(JSON.stringify({ args, cwd }), signal);
    usable = true;
    return result;
  } finally {
    release(host, usable);
  }
}

/**
 * Watch mode: a Redocly host with the bundle command's modules loaded, ahead of the next save, so
 * that the bundle on the way to types.ts does not wait for Node and the CLI to start, about a third
 * of its time. It is started even when the hosts already number HOSTS (they are busy with the
 * rebuild's lint and docs, which a save abandons): a save is answered before CPU is saved.
 * `discard` ends the idle hosts.
 */
export function prepareBundler(action: 'start' | 'discard' = 'start'): void {
  if (action === 'discard') {
    const discarded = pool.idle.splice(0);
    for (const host of discarded) host.process.close();
    // no longer counted against HOSTS: a command that comes next starts a host of its own
    pool.started = pool.started.filter((h) => !discarded.includes(h));
    return;
  }
  if (pool.idle.some((h) => h.process.alive) || !existsSync(CLI_MODULE)) return;
  const host = startHost(['handleBundle']);
  host.process.idle();
  pool.idle.unshift(host);
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
