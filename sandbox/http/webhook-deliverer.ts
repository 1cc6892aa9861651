// Webhook delivery from the outbox: due deliveries are claimed (held for a lease, so that two
// sandbox processes on one PostgreSQL never send the same attempt), POSTed to the merchant's URL
// with a timeout, the enhanced ones signed with the SDK's own helper under every secret of the
// merchant, and retried with exponential back-off until a 2xx; after `maxAttempts` a delivery is
// dead-lettered (DEAD) and can be resent. A delivery is written in the transaction of the state
// change it reports, so a crash (even kill -9) loses none: what was claimed and not saved is taken
// again when its lease runs out.
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import { retryDelayMs } from '../domain/hosted.js';
import type { Scope, WebhookDelivery } from '../domain/types.js';
import type { Store } from '../store/store.js';

export interface WebhookSchedule {
  /** Attempts before a delivery is dead-lettered. */
  maxAttempts: number;
  /** The wait after the first failed attempt; it doubles after each (compressed for a sandbox). */
  retryBaseMs: number;
  retryCapMs: number;
  /** Each attempt's time limit. */
  timeoutMs: number;
}

/** Sandbox defaults: 6 attempts, retried after 1, 2, 4, 8, 16 s (a real service spreads them over days). */
export const DEFAULT_WEBHOOK_SCHEDULE: WebhookSchedule = { maxAttempts: 6, retryBaseMs: 1_000, retryCapMs: 60_000, timeoutMs: 5_000 };

export interface DelivererOptions {
  store: Store;
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

/** Attempts counted against the schedule: those since the last resend. */
const countedAttempts = (d: WebhookDelivery) => d.attempts.length - (d.resentAfterAttempts ?? 0);

export function startDeliverer(options: DelivererOptions): Deliverer {
  const schedule = { ...DEFAULT_WEBHOOK_SCHEDULE, ...options.schedule };
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 200;
  const { store } = options;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  async function attempt(delivery: WebhookDelivery): Promise<WebhookDelivery> {
    const started = now();
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'payment-service-sandbox-webhooks' };
    if (delivery.kind === 'enhanced') {
      const merchant = await store.merchants.get(delivery.scope.merchantId);
      const secrets = merchant ? (merchant.webhookSecrets ?? [merchant.webhookSecret]) : [];
      if (secrets.length > 0) headers[WEBHOOK_SIGNATURE_HEADER] = await signWebhook(delivery.body, secrets, { timestamp: Math.floor(started.getTime() / 1000) });
    }
    let statusCode: number | undefined;
    let error: string | undefined;
    const t0 = performance.now();
    try {
      const response = await fetch(delivery.url, { method: 'POST', headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(schedule.timeoutMs) });
      statusCode = response.status;
      await response.body?.cancel().catch(() => undefined);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      error = e.name === 'TimeoutError' ? `no answer within ${schedule.timeoutMs} ms` : (e.cause?.code ?? e.message);
    }
    const at = now();
    const attempts = [...delivery.attempts, { at: started.toISOString(), ...(statusCode !== undefined ? { statusCode } : {}), ...(error !== undefined ? { error } : {}), durationMs: Math.round(performance.now() - t0) }];
    const next: WebhookDelivery = { ...delivery, attempts };
    if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) return { ...next, status: 'DELIVERED', deliveredAt: at.toISOString() };
    const counted = countedAttempts(next);
    if (counted >= schedule.maxAttempts) return { ...next, status: 'DEAD' };
    return { ...next, nextAttemptAt: new Date(at.getTime() + retryDelayMs(counted, schedule.retryBaseMs, schedule.retryCapMs)).toISOString() };
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const at = now();
      const lease = new Date(at.getTime() + schedule.timeoutMs + 5_000).toISOString();
      const due = await store.webhooks.claimDue(at.toISOString(), lease, 16);
      await Promise.all(
        due.map(async (delivery) => {
          const done = await attempt(delivery);
          await store.webhooks.save(done);
          const last = done.attempts.at(-1)!;
          options.log?.(`webhook ${done.id} → ${done.url}: ${last.statusCode ?? last.error} (${done.status}, attempt ${done.attempts.length})`);
        }),
      );
      if (due.length === 16) again = true;
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

/** The delivery made PENDING again, due at `at`, with a fresh set of attempts (a dead letter, or a delivered one to send again). */
export function resentDelivery(delivery: WebhookDelivery, at: Date): WebhookDelivery {
  const resent: WebhookDelivery = { ...delivery, status: 'PENDING', nextAttemptAt: at.toISOString(), resentAfterAttempts: delivery.attempts.length };
  delete resent.deliveredAt;
  return resent;
}

/** Resends a delivery of `scope` (see resentDelivery); undefined when there is none. */
export async function resendDelivery(store: Store, scope: Scope, id: string, at: Date): Promise<WebhookDelivery | undefined> {
  const delivery = await store.webhooks.get(scope, id);
  if (!delivery) return undefined;
  const resent = resentDelivery(delivery, at);
  await store.webhooks.save(resent);
  return resent;
}
