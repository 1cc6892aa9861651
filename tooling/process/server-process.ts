// Starts a Node.js server as a child process for tests and benchmarks (Prism, the sandbox, …):
// on 127.0.0.1, on a free port, in a process group of its own, and resolves once it answers.
//
// - stop() kills the whole process group (SIGTERM, then SIGKILL after a grace period), never by name.
// - A child never outlives the process that started it: it exits when its stdin reaches end of
//   file (see WATCHDOG), which happens however the parent ends, even by SIGKILL; and an exit hook
//   kills the groups still running (groups.ts).
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { guardGroup, killGroup, releaseGroup } from './groups.js';

export const LOOPBACK = '127.0.0.1';
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 3_000;

/**
 * Loaded into the child with `--import`: it exits when its stdin reaches end of file, i.e. when the
 * parent is gone, so that no server outlives its test run.
 */
export const WATCHDOG = 'data:text/javascript,process.stdin.on("end",()=>process.exit(1));process.stdin.resume();';

/** A port that was free a moment ago (listen on 0, read it, close). */
export function freePort(host = LOOPBACK): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export interface ServerProcessOptions {
  /** Arguments after `node --import WATCHDOG`, given the port chosen: the script and its options. */
  args: (port: number) => string[];
  /** Resolves true once `baseUrl` answers as this server would (not another process on the port). */
  ready: (baseUrl: string) => Promise<boolean>;
  env?: Record<string, string>;
  /** What to call the server in messages. */
  name: string;
  /** Pass the child's stdout and stderr through (default: kept in memory, shown when start fails). */
  inheritOutput?: boolean;
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  port: number;
  /** The child's pid, which is also its process group id. */
  pid: number;
  /** The tail of the child's output (when not inherited). */
  output(): string;
  /** Resolves when the child has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the child's process group: SIGTERM, then SIGKILL after a grace period. Idempotent. */
  stop(): Promise<void>;
}

export class ServerStartError extends Error {
  constructor(
    message: string,
    readonly portInUse: boolean,
  ) {
    super(message);
    this.name = 'ServerStartError';
  }
}

/** Starts the server on a free port; retries once with another port if the port was taken in between. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options, await freePort());
    } catch (err) {
      if (!(err instanceof ServerStartError && err.portInUse && attempt < 2)) throw err;
    }
  }
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= fn());
}

async function launch(options: ServerProcessOptions, port: number): Promise<ServerProcess> {
  const child = startProcessGroup(process.execPath, ['--import', WATCHDOG, ...options.args(port)], {
    ...(options.env ? { env: options.env } : {}),
    ...(options.inheritOutput ? { inheritOutput: true } : {}),
    name: options.name,
  });
  const baseUrl = `http://${LOOPBACK}:${port}`;
  try {
    await waitUntilReady(options, baseUrl, child);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return {
    baseUrl,
    port,
    pid: child.pid,
    output: () => child.output().slice(-20_000),
    exited: child.exited,
    stop: child.stop,
  };
}

export interface ProcessGroup {
  /** The child's pid, which is also its process group id. */
  pid: number;
  /** Everything it printed so far, stdout and stderr interleaved (empty when inherited). */
  output(): string;
  hasExited(): boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once `test(output)` holds; rejects after `timeoutMs` or when the child exits first. */
  waitFor(what: string, test: (output: string) => boolean, timeoutMs?: number): Promise<void>;
  /** Kills the child's process group: SIGTERM, then SIGKILL after a grace period. Idempotent. */
  stop(): Promise<void>;
}

/**
 * `command args…` as the leader of a process group of its own, never outliving this process (the
 * exit hook above; for Node children also WATCHDOG). Its stdin is a pipe this process never writes
 * nor closes, its output is kept (not when inherited). A forgotten stop() does not keep this process
 * alive, unless `keepAlive` (a command that runs as long as its child does: npm run mock).
 */
export function startProcessGroup(
  command: string,
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    inheritOutput?: boolean;
    name?: string;
    keepAlive?: boolean;
  } = {},
): ProcessGroup {
  const output: 'inherit' | 'pipe' = options.inheritOutput ? 'inherit' : 'pipe';
  // detached: the child leads its own process group, so stop() can kill it and anything it forks.
  const child = spawn(command, args, {
    detached: true,
    stdio: ['pipe', output, output],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...options.env },
  });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`could not spawn ${options.name ?? command}`);
  guardGroup(pgid);
  if (!options.keepAlive) {
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr])
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  // Always drain the output (a full pipe would block the child); a chatty server keeps its last megabyte.
  let all = '';
  const keep = (d: string) => {
    all += d;
    if (all.length > 2_000_000) all = all.slice(-1_000_000);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const text = () => all;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => {
      releaseGroup(pgid);
      done({ code, signal });
    }),
  );
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;

  const stop = once(async () => {
    if (!hasExited()) {
      child.ref(); // keep this process alive until the child has exited
      killGroup(pgid, 'SIGTERM');
      let timeout: NodeJS.Timeout | undefined;
      const timer = new Promise<'timeout'>((done) => (timeout = setTimeout(done, STOP_GRACE_MS, 'timeout')));
      if ((await Promise.race([exited, timer])) === 'timeout') {
        killGroup(pgid, 'SIGKILL');
        await exited;
      }
      clearTimeout(timeout);
    }
    // Anything left in the group (children of the child) goes too.
    killGroup(pgid, 'SIGKILL');
    releaseGroup(pgid);
  });

  const waitFor = async (what: string, test: (output: string) => boolean, timeoutMs = START_TIMEOUT_MS) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (test(text())) return;
      if (hasExited())
        throw new Error(
          `${options.name ?? command} exited (code ${child.exitCode}, signal ${child.signalCode}) before ${what}:\n${text().slice(-5_000)}`,
        );
      if (Date.now() > deadline)
        throw new Error(`${options.name ?? command}: no ${what} within ${timeoutMs} ms:\n${text().slice(-5_000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { pid: pgid, output: text, hasExited, exited, waitFor, stop };
}

async function waitUntilReady(options: ServerProcessOptions, baseUrl: string, child: ProcessGroup): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.hasExited()) {
      const text = child.output();
      const { code, signal } = await child.exited;
      throw new ServerStartError(
        `${options.name} exited (code ${code}, signal ${signal}) before answering:\n${text.slice(-20_000)}`,
        /EADDRINUSE/.test(text),
      );
    }
    try {
      if (await options.ready(baseUrl)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new ServerStartError(
    `${options.name} did not answer on ${baseUrl} within ${START_TIMEOUT_MS} ms:\n${child.output().slice(-20_000)}`,
    false,
  );
}
