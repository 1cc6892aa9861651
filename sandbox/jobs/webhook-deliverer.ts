// Webhook delivery from the outbox: due deliveries are taken (held for a lease, so that two sandbox
// processes on one PostgreSQL never send the same attempt), POSTed to the merchant's URL under the
// destination policy (jobs/webhook-post.ts) with a timeout, the enhanced ones signed with the SDK's
// own helper under every secret of the merchant; each attempt's result is recorded by
// app/webhooks.ts (delivered, retried, or dead-lettered; at once when the policy refused it). A
// delivery is written in the transaction of the state change it reports, so a crash (even kill -9)
// loses none: what was taken and not recorded is taken again when its lease runs out.
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import { type DestinationPolicy, destinationPolicy } from '../app/destinations.js';
import {
  DEFAULT_WEBHOOK_SCHEDULE,
  type DeliveryAttempt,
  deliveryHeaders,
  recordAttempt,
  takeDueDeliveries,
  type WebhookSchedule,
  type WebhookSigner,
} from '../app/webhooks.js';
import type { WebhookDelivery } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { type Resolve, webhookPoster } from './webhook-post.js';

/** The SDK's signing, for the deliverer and the listeners. */
export const SDK_SIGNER: WebhookSigner = { header: WEBHOOK_SIGNATURE_HEADER, sign: signWebhook };

export interface DelivererOptions {
  store: Store;
  schedule?: Partial<WebhookSchedule>;
  /** How often the outbox is polled when nothing kicks it. */
  pollMs?: number;
  /** Where webhooks may go (default: the policy's defaults). */
  destinations?: DestinationPolicy;
  /** Host name resolution (default: DNS, see webhook-post.ts; tests give their own). */
  resolve?: Resolve;
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

  const post = webhookPoster({
    policy: options.destinations ?? destinationPolicy({}),
    timeoutMs: schedule.timeoutMs,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });

  /** POSTs the delivery once: the receiver's status, or the error that stood in for one (`final`: refused by the policy). */
  async function attempt(delivery: WebhookDelivery): Promise<{ attempt: DeliveryAttempt; final: boolean }> {
    const started = now();
    const t0 = performance.now();
    const result = await post(delivery.url, () => deliveryHeaders(store, delivery, started, SDK_SIGNER), delivery.body);
    return {
      attempt: {
        at: started.toISOString(),
        ...('statusCode' in result ? { statusCode: result.statusCode } : { error: result.error }),
        durationMs: Math.round(performance.now() - t0),
      },
      final: 'refused' in result && result.refused === true,
    };
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const at = now();
      const due = await takeDueDeliveries(store, at, new Date(at.getTime() + schedule.timeoutMs + 5_000), BATCH);
      await Promise.all(
        due.map(async (delivery) => {
          const made = await attempt(delivery);
          const done = await recordAttempt(store, delivery, made.attempt, now(), schedule, made.final);
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
