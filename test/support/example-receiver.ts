// The project's example webhook receiver (examples/webhook-server.ts), run as a merchant would run
// it: a child process in a process group of its own (killed by group in stop()), configured through
// its environment, on 127.0.0.1 and a free port. What it accepted is read from its stdout: it prints
// `<kind> <payId>` for each notification whose signature the SDK verified, and `webhook rejected: …`
// on stderr for the others.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { killGroup } from '../../tooling/process/groups.js';
import { freePort, LOOPBACK, WATCHDOG } from '../../tooling/process/server-process.js';
import { eventually } from './receiver.js';

const ROOT = join(import.meta.dirname, '..', '..');
const STOP_GRACE_MS = 3_000;

export interface ExampleReceiverOptions {
  /** WEBHOOK_SECRET: the merchant's webhook secret. */
  secret: string;
  /** PAYMENT_API_BASE_URL, PAYMENT_MERCHANT_ID, PAYMENT_API_KEY: the SDK client it uses for basic notifications. */
  api?: { baseUrl: string; merchantId: string; apiKey: string };
  /** HOST (default 127.0.0.1; another loopback address such as 127.0.0.2 shows that it binds HOST). */
  host?: string;
}

export interface ExampleReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The enhanced endpoint: `${url}/webhooks/enhanced`. */
  enhancedUrl: string;
  pid: number;
  /** Every line it printed, stdout and stderr apart. */
  stdout: string[];
  stderr: string[];
  /** The payIds of the notifications it verified and accepted, in order (one per delivery). */
  accepted(kind?: 'enhanced' | 'basic'): string[];
  /** Waits until it has accepted `count` notifications for `payId`. */
  waitForAccepted(payId: string, count?: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startExampleReceiver(options: ExampleReceiverOptions): Promise<ExampleReceiver> {
  const port = await freePort(options.host ?? LOOPBACK);
  const child = spawn(
    process.execPath,
    ['--import', WATCHDOG, '--import', 'tsx', join(ROOT, 'examples/webhook-server.ts')],
    {
      cwd: ROOT,
      detached: true, // its own process group: stop() kills the group
      stdio: ['pipe', 'pipe', 'pipe'], // stdin never closed by us: the watchdog ends the child when this process is gone
      env: {
        ...process.env,
        HOST: options.host ?? LOOPBACK,
        PORT: String(port),
        WEBHOOK_SECRET: options.secret,
        ...(options.api
          ? {
              PAYMENT_API_BASE_URL: options.api.baseUrl,
              PAYMENT_MERCHANT_ID: options.api.merchantId,
              PAYMENT_API_KEY: options.api.apiKey,
            }
          : {}),
      },
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn examples/webhook-server.ts');
  const exitHook = () => killGroup(pid, 'SIGKILL');
  process.once('exit', exitHook);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (into: string[]) => {
    let partial = '';
    return (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!;
      into.push(...lines);
    };
  };
  child.stdout!.on('data', collect(stdout));
  child.stderr!.on('data', collect(stderr));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (!hasExited()) {
        killGroup(pid, 'SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([
          exited.then(() => false),
          new Promise<boolean>((r) => (timer = setTimeout(r, STOP_GRACE_MS, true))),
        ]);
        clearTimeout(timer);
        if (late) killGroup(pid, 'SIGKILL');
        await exited;
      }
      killGroup(pid, 'SIGKILL'); // anything left in its group
      process.off('exit', exitHook);
    })());

  const url = `http://${options.host ?? LOOPBACK}:${port}`;
  try {
    // Ready when this port answers as the example does: 405 to a GET of its endpoint.
    await eventually(
      `examples/webhook-server.ts to listen on ${url}`,
      async () => {
        if (hasExited())
          throw new Error(`examples/webhook-server.ts exited before listening:\n${[...stdout, ...stderr].join('\n')}`);
        const answer = await fetch(`${url}/webhooks/enhanced`, { signal: AbortSignal.timeout(1_000) }).catch(
          () => undefined,
        );
        return answer?.status === 405 ? true : undefined;
      },
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  const accepted = (kind?: 'enhanced' | 'basic') =>
    stdout.flatMap((line) => {
      const match = /^(enhanced|basic) (\S+)$/.exec(line.trim());
      return match && (!kind || match[1] === kind) ? [match[2]!] : [];
    });
  return {
    url,
    enhancedUrl: `${url}/webhooks/enhanced`,
    pid,
    stdout,
    stderr,
    accepted,
    async waitForAccepted(payId, count = 1, timeoutMs = 15_000) {
      try {
        await eventually(
          `${count} accepted notification(s) for ${payId}`,
          () => (accepted().filter((p) => p === payId).length >= count ? true : undefined),
          timeoutMs,
        );
      } catch (err) {
        throw new Error(
          `${(err as Error).message} from examples/webhook-server.ts; its stdout: ${JSON.stringify(stdout.slice(-5))}, stderr: ${JSON.stringify(stderr.slice(-5))}`,
        );
      }
    },
    stop,
  };
}
