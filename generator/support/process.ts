import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { environmentWith } from '../../tooling/process/environment.js';
import { guardGroup, killGroup, releaseGroup } from '../../tooling/process/groups.js';

/** A child's environment: this process's, colours off (its output is parsed), and `extra`. */
const childEnvironment = (extra: Record<string, string> = {}) =>
  environmentWith({ NO_COLOR: '1', FORCE_COLOR: '0', ...extra });

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
      env: childEnvironment(options.env),
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

/**
 * A Node.js process that runs commands one after another (startCommandHost): it prepares (loads
 * its modules), prints `ready` on a line of its own, then answers each line of input it is sent
 * with one line of JSON, `{ code, stdout, stderr }`; the end of its input ends it.
 */
export interface CommandHost {
  /** true once it has prepared and waits; false if it ended first. */
  readonly ready: Promise<boolean>;
  /** false once it has ended or been ended. */
  readonly alive: boolean;
  /**
   * Sends `input` (one line) and waits for its answer: one command at a time. An abort kills the
   * host's process group and rejects with the signal's reason; a host that ends first rejects.
   */
  run(input: string, signal?: AbortSignal): Promise<ProcessResult>;
  /** Between commands: it no longer keeps this process alive. */
  idle(): void;
  /** Ends it once its command, if any, is answered. */
  close(): void;
  /** Ends it at once. */
  kill(): void;
}

/**
 * Starts a command host (CommandHost): the time it takes to start is paid once for all the commands
 * it runs, and may be paid ahead of the first. It runs in a process group of its own, killed if
 * this process exits first.
 */
export function startCommandHost(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; nodeOptions?: readonly string[] } = {},
): CommandHost {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...args], {
    env: childEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pgid = child.pid;
  if (pgid !== undefined) guardGroup(pgid);
  let alive = true;
  let stderr = '';
  let answer: ((line: string) => void) | undefined;
  let ended: ((reason: Error) => void) | undefined;
  let markReady: (ready: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((done) => (markReady = done));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') markReady(true);
    else answer?.(line);
  });
  const handles = [child, child.stdin, child.stdout, child.stderr] as Array<{ ref(): void; unref(): void }>;
  const end = () => {
    alive = false;
    if (pgid !== undefined) releaseGroup(pgid);
    markReady(false);
    ended?.(new Error(`the command host ${script} ended before it answered: ${stderr.trim() || 'no output'}`));
  };
  child.on('error', end);
  child.on('close', end);
  // A write to a host that has just ended fails on its pipe: `end` answers for it.
  child.stdin.on('error', () => undefined);
  const kill = () => {
    if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
  };
  return {
    ready,
    get alive() {
      return alive;
    },
    async run(input, signal) {
      signal?.throwIfAborted();
      for (const handle of handles) handle.ref();
      const abort = () => kill();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        const line = await new Promise<string>((done, fail) => {
          answer = done;
          ended = fail;
          if (!alive) return fail(new Error(`the command host ${script} has ended`));
          child.stdin.write(`${input}\n`);
        });
        return JSON.parse(line) as ProcessResult;
      } catch (err) {
        signal?.throwIfAborted();
        throw err;
      } finally {
        answer = undefined;
        ended = undefined;
        signal?.removeEventListener('abort', abort);
      }
    },
    idle() {
      for (const handle of handles) handle.unref();
    },
    close() {
      child.stdin.end();
    },
    kill,
  };
}
