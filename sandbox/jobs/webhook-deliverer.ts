// Webhook delivery from the outbox: due deliveries are taken (held for a lease, so that two sandbox
// processes on one PostgreSQL never send the same attempt), POSTed to the merchant's URL under the
// destination policy (jobs/webhook-post.ts) with a timeout, the enhanced ones signed with the SDK's
// own helper under every secret of the merchant; each attempt's result is recorded by
// app/webhooks.ts (delivered, retried, or dead-lettered). A delivery is written in the transaction
// of the state change it reports, so a crash (even kill -9) loses none: what was taken and not
// recorded is taken again when its lease runs out, and the first holder's late result is then not
// recorded (the claim's token no longer holds the delivery).
//
// Fair across merchants: every attempt runs on its own (nothing waits for the slowest of a batch),
// at most `concurrency` at once in this process and at most `perMerchant` held per merchant (in
// every process: the claim counts the merchant's leases in the database); each claim takes every
// merchant's next delivery before any merchant's one after it, merchants holding fewer first. A
// merchant whose endpoint never answers holds `perMerchant` attempts until their timeout; the
// others' deliveries are taken beside them, on the next claim (a commit that queues one kicks it;
// else the poll, every `pollMs`). The scopes of a connected listener (`npm run sandbox -- listen`)
// are left to it (app/listeners.ts).
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import type { SandboxSecrets } from '../app/secrets.js';
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
import type { WebhookPost } from './webhook-post.js';

/** The SDK's signing (src/webhooks/), for the deliverer and the listeners (app/listeners.ts). */
export const SDK_SIGNER: WebhookSigner = { header: WEBHOOK_SIGNATURE_HEADER, sign: signWebhook };

/** Attempts in flight at once in one process. */
export const DEFAULT_CONCURRENCY = 64;
/** Deliveries held at once per merchant (in every process). */
export const DEFAULT_PER_MERCHANT = 4;
/** A delivery being sent is held for its timeout plus this. */
export const LEASE_MARGIN_MS = 5_000;

export interface DelivererOptions {
  store: Store;
  /** Opens the merchants' webhook secrets. */
  secrets: SandboxSecrets;
  schedule?: Partial<WebhookSchedule>;
  /** How often the outbox is polled when nothing kicks it. */
  pollMs?: number;
  /** Attempts in flight at once (default 64). */
  concurrency?: number;
  /** Deliveries held at once per merchant, counted in every process (default 4). */
  perMerchant?: number;
  /** How an attempt is sent: on the wire under the destination policy (webhook-post.ts), or to in-process listeners. */
  post: WebhookPost;
  now?: () => Date;
  log?: (line: string) => void;
}

export interface Deliverer {
  /** Looks at the outbox now (after a commit that wrote a delivery). */
  kick(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/** At most this many deliveries per claim (the claim runs again while it comes back full). */
const MAX_CLAIM = 32;

export function startDeliverer(options: DelivererOptions): Deliverer {
  const schedule = { ...DEFAULT_WEBHOOK_SCHEDULE, ...options.schedule };
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 200;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const perMerchant = options.perMerchant ?? DEFAULT_PER_MERCHANT;
  const { store } = options;
  const { post } = options;
  let stopped = false;
  let claiming: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  /** POSTs the delivery once: the receiver's status, or the error that stood in for one (`final`: refused by the policy). */
  async function attempt(delivery: WebhookDelivery): Promise<{ attempt: DeliveryAttempt; final: boolean }> {
    const started = now();
    const t0 = performance.now();
    const result = await post(
      delivery.url,
      () => deliveryHeaders(store, options.secrets, delivery, started, SDK_SIGNER),
      delivery.body,
    );
    return {
      attempt: {
        at: started.toISOString(),
        ...('statusCode' in result ? { statusCode: result.statusCode } : { error: result.error }),
        durationMs: Math.round(performance.now() - t0),
      },
      final: 'refused' in result && result.refused === true,
    };
  }

  async function deliver(delivery: WebhookDelivery, token: string): Promise<void> {
    const made = await attempt(delivery);
    const done = await recordAttempt(store, { delivery, token }, made.attempt, now(), schedule, made.final);
    if (done === 'stale') {
      options.log?.(
        `webhook ${delivery.id}: its hold ran out during the attempt and another claim took it; this attempt's result is not recorded`,
      );
      return;
    }
    const last = done.attempts.at(-1)!;
    options.log?.(
      `webhook ${done.id} → ${done.url}: ${last.statusCode ?? last.error} (${done.status}, attempt ${done.attempts.length})`,
    );
  }

  /** Claims what the free slots allow and starts each attempt on its own; again while claims come back full. */
  async function claim(): Promise<void> {
    do {
      again = false;
      const free = Math.min(concurrency - inFlight.size, MAX_CLAIM);
      if (free <= 0) return;
      const at = now();
      const { token, deliveries: due } = await takeDueDeliveries(store, {
        now: at,
        lockedUntil: new Date(at.getTime() + schedule.timeoutMs + LEASE_MARGIN_MS),
        limit: free,
        perMerchant,
      });
      for (const delivery of due) {
        const running: Promise<void> = deliver(delivery, token)
          .catch((err: unknown) => options.log?.(`webhook delivery ${delivery.id}: ${(err as Error).message}`))
          .finally(() => {
            inFlight.delete(running);
            run(); // a slot is free, and the merchant holds one fewer
          });
        inFlight.add(running);
      }
      if (due.length === free) again = true;
    } while (again && !stopped);
  }

  function run(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    claiming = claim()
      .catch((err: unknown) => options.log?.(`webhook delivery: ${(err as Error).message}`))
      .finally(() => {
        claiming = undefined;
        if (stopped) return;
        if (again) run();
        else timer = setTimeout(run, pollMs);
      });
  }
  timer = setTimeout(run, 0);

  return {
    kick: run,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await claiming;
      await Promise.all(inFlight);
    },
  };
}
