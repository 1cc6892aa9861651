// Starts a Prism mock server (https://github.com/stoplightio/prism) for tests, on a free port.
//
//   const prism = await startPrism();            // the current contract, bundled by globalSetup
//   const res = await fetch(`${prism.baseUrl}/payments/sessions`, { ... });
//   await prism.stop();                          // always, e.g. in afterAll
//
// - Without `specPath`, the contract is the one vitest's globalSetup bundled from openapi/
//   (`inject('bundle')`), never the committed generated/ copy, written to a temporary JSON file.
//   Outside vitest (scripts), pass `specPath`.
// - Paths are served WITHOUT the servers' `/api/v2` prefix: `${baseUrl}/payments`, not
//   `${baseUrl}/api/v2/payments` (Prism ignores the path of `servers[].url`).
// - Request validation is on; an invalid request is answered with the operation's documented 422
//   (if it has one), else its 400 example, and the real violations are in the `sl-violations`
//   response header (JSON array of {location, severity, code, message}). Missing credentials get
//   401; only the scheme is checked, any secret is accepted.
// - Requests can pick a response with `Prefer: code=422, example=declined` or `Prefer: dynamic=true`.
// - Prism never outlives the process that started it: stop() kills its process group, and if the
//   process dies first (Ctrl-C, a killed vitest worker) Prism exits on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface StartPrismOptions {
  /** OpenAPI document to mock (JSON or YAML). Default: the bundle of the current contract (vitest only). */
  specPath?: string;
  /** Generate response bodies from the schemas (`prism mock -d`) instead of returning examples. */
  dynamic?: boolean;
  /** Prism's `--verboseLevel` (default `warn`: invalid requests and errors only). Output is kept
   * in memory and shown when Prism fails to start. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

export interface PrismServer {
  /** e.g. `http://127.0.0.1:41234` — no trailing slash, no `/api/v2`. */
  baseUrl: string;
  /** Kills Prism's whole process group and removes its temporary files. Idempotent. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 3_000;
/** Prism's CLI entry point (run it with `node`; no npx). */
export const PRISM_CLI = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

/**
 * Arguments every mock of this contract needs (scripts/mock.ts and scripts/bench-mock.ts use them too).
 * Without fillProperties=false, dynamic generation (`-d`, `Prefer: dynamic=true`) pads free-form
 * maps such as `metadata` (additionalProperties, maxProperties 50) with random members past their
 * maxProperties: about half of the generated payments and customers were invalid.
 */
export const PRISM_MOCK_ARGS = ['--json-schema-faker-fillProperties=false'];

/**
 * Loaded into Prism's process: Prism exits when its stdin reaches end of file, i.e. when this
 * process is gone however it ended (even SIGKILL, when no exit hook runs), so no Prism outlives
 * its test run.
 */
const WATCHDOG = 'data:text/javascript,process.stdin.on("end",()=>process.exit(1));process.stdin.resume();';

/** Process groups and temporary directories still in use; cleaned up on exit if stop() was not called. */
const running = new Set<number>();
const tempDirs = new Set<string>();
process.once('exit', () => {
  for (const pgid of running) killGroup(pgid, 'SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** A port that was free a moment ago (listen on 0, read it, close). */
export function freePort(host = HOST): Promise<number> {
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

class StartError extends Error {
  constructor(
    message: string,
    readonly portInUse: boolean,
  ) {
    super(message);
  }
}

/**
 * Starts `prism mock` on 127.0.0.1 on a free port and resolves once it answers HTTP.
 * Retries once with another port if the port was taken in between (EADDRINUSE).
 */
export async function startPrism(options: StartPrismOptions = {}): Promise<PrismServer> {
  let tempDir: string | undefined;
  let specPath: string;
  if (options.specPath) {
    specPath = resolve(options.specPath);
  } else {
    // Imported lazily: it needs vitest's inject(), which only works inside a test run.
    const { loadBundle } = await import('./openapi.js');
    tempDir = mkdtempSync(join(tmpdir(), 'prism-contract-'));
    tempDirs.add(tempDir);
    specPath = join(tempDir, 'openapi.json');
    writeFileSync(specPath, JSON.stringify(loadBundle()));
  }
  const removeTemp = () => {
    if (!tempDir) return;
    rmSync(tempDir, { recursive: true, force: true });
    tempDirs.delete(tempDir);
  };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const server = await launch(specPath, options);
        return { baseUrl: server.baseUrl, stop: once(async () => { await server.stop(); removeTemp(); }) };
      } catch (err) {
        if (!(err instanceof StartError && err.portInUse && attempt < 2)) throw err;
      }
    }
  } catch (err) {
    removeTemp();
    throw err;
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let promise: Promise<void> | undefined;
  return () => (promise ??= fn());
}

async function launch(specPath: string, options: StartPrismOptions): Promise<PrismServer> {
  const port = await freePort();
  const args = ['--import', WATCHDOG, PRISM_CLI, 'mock', specPath, '--host', HOST, '--port', String(port), '--verboseLevel', options.logLevel ?? 'warn', ...PRISM_MOCK_ARGS];
  if (options.dynamic) args.push('--dynamic');
  // detached: Prism leads its own process group, so stop() can kill it and anything it forks.
  // Its stdin is a pipe that this process never writes nor closes (see WATCHDOG).
  const child = spawn(process.execPath, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error('could not spawn Prism');
  running.add(pgid);
  // A forgotten stop() must not keep this process alive (Prism then dies with it).
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();

  // Always drain Prism's output (a full pipe would block it); keep the tail for error messages.
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(chunk.toString());
    if (tail.length > 200) tail.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;

  const stop = once(async () => {
    if (!hasExited()) {
      child.ref(); // keep this process alive until Prism has exited
      killGroup(pgid, 'SIGTERM');
      let timeout: NodeJS.Timeout | undefined;
      const timer = new Promise<'timeout'>((done) => (timeout = setTimeout(done, STOP_GRACE_MS, 'timeout')));
      if ((await Promise.race([exited, timer])) === 'timeout') {
        killGroup(pgid, 'SIGKILL');
        await exited;
      }
      clearTimeout(timeout);
    }
    // Anything left in the group (children of Prism) goes too.
    killGroup(pgid, 'SIGKILL');
    running.delete(pgid);
  });

  const baseUrl = `http://${HOST}:${port}`;
  try {
    await waitUntilAnswering(baseUrl, child, hasExited, () => tail.join(''));
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, stop };
}

async function waitUntilAnswering(baseUrl: string, child: ChildProcess, hasExited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited()) {
      const text = output();
      throw new StartError(`Prism exited (code ${child.exitCode}, signal ${child.signalCode}) before answering:\n${text}`, /EADDRINUSE/.test(text));
    }
    try {
      // Prism answers an unknown path with a 404 problem+json of its own; checking for it makes
      // sure that the answer does not come from another process that took the port meanwhile.
      const res = await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(1_000) });
      const body = await res.text();
      if (body.includes('stoplight.io/prism/errors')) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new StartError(`Prism did not answer on ${baseUrl} within ${START_TIMEOUT_MS} ms:\n${output()}`, false);
}
