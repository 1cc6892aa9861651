// The sandbox as a process, the way `npm run sandbox` runs it (tooling/process/sandbox-command.ts), as a
// server or as a command, and a merchant's webhook endpoint that holds requests open, for the tests
// that kill a sandbox mid-delivery.
// Processes run in process groups of their own and are stopped by the test (tooling/process/server-process.ts).
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../../sandbox/cli/index.js';
import { killGroup } from '../../tooling/process/groups.js';
import { ISOLATED_ENV, SANDBOX_ENTRY, sandboxNodeOptions } from '../../tooling/process/sandbox-command.js';
import { DeliveryChecks, type SecretsOf } from './webhook-check.js';

export { startSandboxProcess } from '../../tooling/process/sandbox-command.js';

/**
 * Runs a subcommand of `npm run sandbox --` (seed, reset, clock, deliveries, trigger, env…) in this
 * process, as sandbox/main.ts dispatches it (sandbox/cli/index.ts): its output as a spawned
 * command's would be, at a fraction of the cost. `env` adds to ISOLATED_ENV; nothing else of this
 * process's environment reaches it. (The command as a process: runSandboxCommand.)
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(args, {
    out: (line) => stdout.push(`${line}\n`),
    err: (line) => stderr.push(`${line}\n`),
    env: { ...ISOLATED_ENV, ...env },
  });
  return { code, signal: null, stdout: stdout.join(''), stderr: stderr.join('') };
}

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Runs `npm run sandbox -- <args…>` as its script does (sandbox/launch.mjs with its Node options) to its
 * end: a command, not a server. `env` adds to (and overrides) ISOLATED_ENV.
 */
export function runSandboxCommand(
  args: string[],
  timeoutMs = 20_000,
  env: Record<string, string> = {},
): Promise<CommandResult> {
  return runCommand(process.execPath, [...sandboxNodeOptions(), SANDBOX_ENTRY, ...args], {
    env: { ...ISOLATED_ENV, ...env },
    timeoutMs,
  });
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args…` to its end in a process group of its own (working directory: the
 * repository), killed after `timeoutMs` whatever happens: a hung child must not outlive the test.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), options.timeoutMs ?? 20_000);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(child.pid!, 'SIGKILL');
      done({ code, signal, stdout, stderr });
    });
  });
}

export interface HoldingReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  /** Every request, as it arrived (held or not); each is held to the contract's webhooks, a violation thrown at the next look once its check has ended. */
  readonly received: ReadonlyArray<{ payId: string; at: number; headers: IncomingHttpHeaders; body: string }>;
  /** Closes it; throws WebhookConformanceError if a delivery broke the contract and was not reported yet. */
  close(): Promise<void>;
}

/**
 * A merchant's webhook endpoint: holds the first `hold` requests open (never answers them); the rest
 * it acknowledges with 200, or, with `forward`, passes on to that URL (headers and body as received)
 * and answers what it answered. Every delivery is checked (webhook-check.ts): a violation is thrown at
 * the next look at `received`, or by close().
 */
export async function holdingReceiver(options: {
  hold: number;
  forward?: string;
  secrets?: SecretsOf;
}): Promise<HoldingReceiver> {
  const received: Array<HoldingReceiver['received'][number]> = [];
  const checks = new DeliveryChecks(options.secrets);
  const checking = new Set<Promise<void>>();
  let held = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      // Recorded as it arrives: a check that takes long (its validators compiled on first use) must
      // not let a later attempt be seen first, or two together.
      received.push({
        payId: (JSON.parse(body.toString('utf8')) as { payId: string }).payId,
        at: Date.now(),
        headers: request.headers,
        body: body.toString('utf8'),
      });
      const check = checks.check(request.url ?? '/', {
        method: request.method ?? '',
        headers: request.headers,
        body: body.toString('utf8'),
      });
      checking.add(check);
      await check;
      checking.delete(check);
      if (held < options.hold) {
        held++;
        return;
      }
      if (!options.forward) return void response.writeHead(200).end();
      const { host: _host, ...headers } = request.headers;
      const onward = httpRequest(options.forward, { method: 'POST', headers }, (answer) => {
        answer.resume();
        answer.on('end', () => response.writeHead(answer.statusCode ?? 502).end());
      });
      onward.on('error', () => response.writeHead(502).end());
      onward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    get received() {
      checks.assertConforming();
      return received;
    },
    close: async () => {
      server.closeAllConnections(); // the held requests too
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all(checking);
      checks.assertConforming();
    },
  };
}
