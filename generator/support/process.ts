import { spawn } from 'node:child_process';
import { guardGroup, killGroup, releaseGroup } from '../../tooling/process/groups.js';

/**
 * Node's flags for a process that lasts a second or two, most of it loading code (a Redocly run, a
 * tsc compile, a command of scripts/): V8's optimizing compiler (TurboFan) spends more CPU compiling
 * hot functions than such a run then saves, on cores that other work needs (docs/benchmarks.md
 * measures a forced generate and the suite with and without).
 */
export const SHORT_RUN_NODE_FLAGS: readonly string[] = ['--no-opt'];

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a Node.js script in a child process with this Node (no npx, no shell) and collects its
 * output. Colours are off so that output can be parsed. With a `signal`, the child runs in a
 * process group of its own, which an abort kills (whatever the script spawned too); the promise
 * then rejects with the signal's reason.
 */
export function runNode(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; signal?: AbortSignal; nodeOptions?: readonly string[] } = {},
): Promise<ProcessResult> {
  const { signal } = options;
  return new Promise((done, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: signal !== undefined,
    });
    const pgid = signal ? child.pid : undefined;
    if (pgid !== undefined) guardGroup(pgid);
    const abort = () => {
      if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
      fail(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => {
      signal?.removeEventListener('abort', abort);
      if (pgid !== undefined) releaseGroup(pgid);
    };
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      settle();
      fail(err);
    });
    child.on('close', (code) => {
      settle();
      done({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** A Node.js process started ahead of need (startNodeAhead), waiting for its input. */
export interface PreparedProcess {
  /** true once it has prepared and waits; false if it ended first. */
  readonly ready: Promise<boolean>;
  /** Sends `input` (one line) and collects the output after the `ready` line; an abort kills its process group. */
  run(input: string, signal?: AbortSignal): Promise<ProcessResult>;
  /** Ends it unused. */
  discard(): void;
}

/**
 * Starts a Node.js script that prepares (loads its modules), prints `ready` on a line of its own,
 * then waits for one line on stdin: the time it took to start is no longer on the path of the run
 * that uses it. It runs in a process group of its own, killed if this process exits first.
 */
export function startNodeAhead(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; nodeOptions?: readonly string[] } = {},
): PreparedProcess {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...args], {
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pgid = child.pid;
  if (pgid !== undefined) guardGroup(pgid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number>((done) => {
    child.on('error', () => done(1));
    child.on('close', (code) => {
      if (pgid !== undefined) releaseGroup(pgid);
      done(code ?? 1);
    });
  });
  const ready = new Promise<boolean>((done) => {
    const check = () => {
      if (stdout.startsWith('ready\n')) {
        child.stdout.off('data', check);
        done(true);
      }
    };
    child.stdout.on('data', check);
    void closed.then(() => done(false));
  });
  const kill = () => pgid !== undefined && killGroup(pgid, 'SIGKILL');
  return {
    ready,
    async run(input, signal) {
      signal?.throwIfAborted();
      const abort = () => kill();
      signal?.addEventListener('abort', abort, { once: true });
      child.stdin.end(`${input}\n`);
      const code = await closed;
      signal?.removeEventListener('abort', abort);
      signal?.throwIfAborted();
      return { code, stdout: stdout.replace(/^ready\n/, ''), stderr };
    },
    discard: kill,
  };
}
