// startSandbox(): `payment-sandbox` as a child process in a process group of its own, on loopback and a
// free port, with its data in memory, as Testcontainers starts a throwaway service per test run. The
// child writes its address, admin key and merchants to a CLI config file in a private temporary folder
// once it listens: that file, not its banner, is how this process learns them.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectSandbox } from './admin.js';
import { type MerchantCredentials, type RunningSandbox, SandboxAdminError, type StartOptions } from './types.js';

const CLI = fileURLToPath(new URL('./cli.js', import.meta.url));
const POLL_MS = 25;
const STOP_GRACE_MS = 5_000;

interface CliConfig {
  url: string;
  adminKey: string;
  merchants?: Array<{ merchantId: string; apiKey: string; webhookSecret?: string | string[] }>;
}

/** The last few kilobytes a stream wrote: what a failed start shows. */
function tail(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-4096);
  });
  return () => text.trim();
}

/** Signals the child's whole group (its own children too); nothing when it is gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has ended.
  }
}

function commandLine(options: StartOptions, folder: string, adminKey: string): string[] {
  const args = [CLI, '--port', String(options.port ?? 0), '--host', '127.0.0.1', '--db', ':memory:', '--quiet'];
  args.push('--cli-config', join(folder, 'cli.json'), '--admin-key', adminKey);
  if (options.merchants?.length) {
    const file = join(folder, 'merchants.json');
    writeFileSync(file, JSON.stringify(options.merchants), { mode: 0o600 });
    args.push('--merchants', file);
  }
  for (const origin of options.corsOrigins ?? []) args.push('--cors-origin', origin);
  if (options.seed !== undefined) args.push('--seed', String(options.seed));
  if (options.now !== undefined) args.push('--now', options.now);
  return [...args, ...(options.args ?? [])];
}

/** Resolves with the CLI config once the child wrote it; rejects when the child exits first or time runs out. */
function readiness(child: ChildProcess, file: string, timeoutMs: number, output: () => string): Promise<CliConfig> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const onExit = (code: number | null, signal: string | null) => {
      clearInterval(timer);
      reject(
        new SandboxAdminError(`payment-sandbox exited (${signal ?? code}) before it served: ${output()}`, undefined),
      );
    };
    const timer = setInterval(() => {
      if (existsSync(file)) {
        clearInterval(timer);
        child.off('exit', onExit);
        resolve(JSON.parse(readFileSync(file, 'utf8')) as CliConfig);
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        child.off('exit', onExit);
        reject(new SandboxAdminError(`payment-sandbox did not serve within ${timeoutMs} ms: ${output()}`, undefined));
      }
    }, POLL_MS);
    child.once('exit', onExit);
  });
}

const credentialsOf = (m: NonNullable<CliConfig['merchants']>[number]): MerchantCredentials => ({
  merchantId: m.merchantId,
  apiKey: m.apiKey,
  webhookSecret: Array.isArray(m.webhookSecret) ? m.webhookSecret[0]! : (m.webhookSecret ?? ''),
});

/**
 * Starts a sandbox in a child process on 127.0.0.1 (a free port unless `port`), its data in memory,
 * with the demo merchant (and the contract's examples) unless `merchants` are given. `stop()` ends
 * the process group; it also ends when this process exits.
 */
export async function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const folder = mkdtempSync(join(tmpdir(), 'payment-sandbox-'));
  const adminKey = options.adminKey ?? `sbx_admin_${randomBytes(24).toString('base64url')}`;
  const child = spawn(process.execPath, commandLine(options, folder, adminKey), {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SANDBOX_PROGRAM: 'payment-sandbox' },
  });
  tail(child.stdout);
  const errors = tail(child.stderr);
  const killOnExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    // A child of the sandbox that outlived it goes with its group.
    signalGroup(child, 'SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  };
  let config: CliConfig;
  try {
    config = await readiness(child, join(folder, 'cli.json'), options.startTimeoutMs ?? 30_000, errors);
  } catch (err) {
    await stop();
    throw err;
  }
  const origin = new URL(config.url).origin;
  return {
    ...connectSandbox({ origin, adminKey }),
    origin,
    baseUrl: `${origin}/api/v2`,
    liveBaseUrl: `${origin}/live/api/v2`,
    adminKey,
    merchants: options.merchants ?? (config.merchants ?? []).map(credentialsOf),
    stop,
  };
}
