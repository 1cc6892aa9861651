// Webhook delivery from the outbox: due deliveries are taken (held for a lease, so that two sandbox
// processes on one PostgreSQL never send the same attempt), POSTed to the merchant's URL with a
// timeout, the enhanced ones signed with the SDK's own helper under every secret of the merchant;
// each attempt's result is recorded by app/webhooks.ts (delivered, retried, or dead-lettered). A
// delivery is written in the transaction of the state change it reports, so a crash (even kill -9)
// loses none: what was taken and not recorded is taken again when its lease runs out.
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import type { SandboxSecrets } from '../app/secrets.js';
import {
  DEFAULT_WEBHOOK_SCHEDULE,
  type DeliveryAttempt,
  recordAttempt,
  signingSecrets,
  takeDueDeliveries,
  type WebhookSchedule,
} from '../app/webhooks.js';
import type { WebhookDelivery } from '../domain/types.js';
import type { Store } from '../store/store.js';

export interface DelivererOptions {
  store: Store;
  /** Opens the merchants' webhook secrets. */
  secrets: SandboxSecrets;
  schedule?: Partial<WebhookSchedule>;
  /** How often the outbox is polled when nothing kicks it. */
  pollMs?: number;
  now?: () => Date;
  log?: (line: string) => void;
}

export interface Deliverer {
  /** Looks at the outbox now (after a commit that wrote a delivery). */
  kick(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/** Deliveries taken per pass. */
const BATCH = 16;

export function startDeliverer(options: DelivererOptions): Deliverer {
  const schedule = { ...DEFAULT_WEBHOOK_SCHEDULE, ...options.schedule };
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 200;
  const { store } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /** POSTs the delivery once: the receiver's status, or the error that stood in for one. */
  async function attempt(delivery: WebhookDelivery): Promise<DeliveryAttempt> {
    const started = now();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'payment-service-sandbox-webhooks',
    };
    const secrets = await signingSecrets(store, options.secrets, delivery);
    if (secrets.length > 0)
      headers[WEBHOOK_SIGNATURE_HEADER] = await signWebhook(delivery.body, secrets, {
        timestamp: Math.floor(started.getTime() / 1000),
      });
    let statusCode: number | undefined;
    let error: string | undefined;
    const t0 = performance.now();
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(schedule.timeoutMs),
      });
      statusCode = response.status;
      await response.body?.cancel().catch(() => undefined);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      error = e.name === 'TimeoutError' ? `no answer within ${schedule.timeoutMs} ms` : (e.cause?.code ?? e.message);
    }
    return {
      at: started.toISOString(),
      ...(statusCode !== undefined ? { statusCode } : {}),
      ...(error !== undefined ? { error } : {}),
      durationMs: Math.round(performance.now() - t0),
    };
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const at = now();
      const due = await takeDueDeliveries(store, at, new Date(at.getTime() + schedule.timeoutMs + 5_000), BATCH);
      await Promise.all(
        due.map(async (delivery) => {
          const done = await recordAttempt(store, delivery, await attempt(delivery), now(), schedule);
          const last = done.attempts.at(-1)!;
          options.log?.(
            `webhook ${done.id} → ${done.url}: ${last.statusCode ?? last.error} (${done.status}, attempt ${done.attempts.length})`,
          );
        }),
      );
      if (due.length === BATCH) again = true;
    } while (again && !stopped);
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err: unknown) => options.log?.(`webhook delivery: ${(err as Error).message}`))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(run, pollMs);
      });
  }
  timer = setTimeout(run, 0);

  return {
    kick() {
      if (timer) clearTimeout(timer);
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
