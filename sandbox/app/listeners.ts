// Webhooks to a laptop (`npm run sandbox -- listen --forward-to <url>`, in the manner of `stripe
// listen`): a merchant's client registers a listener and long-polls for the deliveries of its scope
// over a connection it opens itself; the sandbox hands each one over with its headers signed as for
// the URL, and the client posts it to its local endpoint and reports that endpoint's answer, which is
// recorded as the attempt (delivered on a 2xx, else retried, then dead-lettered, as for the URL).
//
// While a listener of a scope is alive (it polled within the last `wait + 20 s`), the deliverer
// leaves the scope's deliveries to it (store: claimDue); with several, each delivery goes to one of
// them, whichever polls first; when none is alive, deliveries go to the URL again. Bounds: 4
// listeners per merchant, one open poll per listener, a poll's wait at most 25 s, at most 8
// deliveries held (handed over, not yet answered) per listener, each held for the attempt timeout
// plus 5 s (then it is due again). Listeners live in the store, so that a client may poll any
// process on one PostgreSQL database.
import type { Scope, WebhookDelivery } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { randomBytes } from './random.js';
import type { SandboxSecrets } from './secrets.js';
import {
  afterAttempt,
  DEFAULT_WEBHOOK_SCHEDULE,
  type DeliveryAttempt,
  deliveryHeaders,
  type WebhookSchedule,
  type WebhookSigner,
} from './webhooks.js';

export const LISTENER_LIMITS = {
  /** Listeners alive at once per merchant (both environments). */
  perMerchant: 4,
  /** Deliveries a listener holds at once: handed over and not yet answered. */
  held: 8,
  /** The longest a poll waits for a delivery. */
  maxWaitSeconds: 25,
  /** How long a listener stays alive after its poll's wait ends (the client polls again meanwhile). */
  graceMs: 20_000,
} as const;

/** A delivery handed to a listener: the client posts `body` with `headers` and reports the answer with `claim`. */
export interface HandedDelivery {
  delivery: WebhookDelivery;
  claim: string;
  headers: Record<string, string>;
  /** The local endpoint's time limit (the attempt timeout). */
  timeoutMs: number;
}

/** The local endpoint's answer, as the client reports it. */
export type ListenerAnswer = ({ statusCode: number } | { error: string }) & { durationMs: number };

export interface Listeners {
  /** Registers a listener of the merchant's scope; 'full' when it has LISTENER_LIMITS.perMerchant alive. */
  register(scope: Scope): Promise<{ id: string; scope: Scope; expiresAt: Date } | 'full'>;
  /**
   * Waits up to `waitMs` for deliveries of the listener's scope and hands over up to `max`: none
   * after the wait (or when `signal` aborts: the client went away). 'missing': no such listener of
   * the merchant (removed, or expired); 'busy': a poll of it is open already (in this process).
   */
  poll(
    merchantId: string,
    id: string,
    options: { waitMs: number; max: number; signal: AbortSignal },
  ): Promise<HandedDelivery[] | 'missing' | 'busy'>;
  /**
   * Records the local endpoint's answer to a delivery the listener holds under `claim`: the
   * delivery after the attempt. 'missing': no such delivery of the merchant; 'stale': the claim no
   * longer holds it (its hold ran out and it was taken again, or it was released).
   */
  answer(
    merchantId: string,
    id: string,
    deliveryId: string,
    claim: string,
    answer: ListenerAnswer,
  ): Promise<WebhookDelivery | 'missing' | 'stale'>;
  /** Removes the merchant's listener; what it held is due again at once. False when there was none. */
  remove(merchantId: string, id: string): Promise<boolean>;
  /** A delivery was queued (or released): open polls look at once. */
  wake(): void;
  /** The sandbox stops: open polls answer at once (with nothing), and new ones too. */
  stop(): void;
}

export interface ListenerDeps {
  store: Store;
  /** Opens the merchants' webhook secrets. */
  secrets: SandboxSecrets;
  signer: WebhookSigner;
  schedule?: Partial<WebhookSchedule>;
  /** How often an open poll looks at the store when nothing wakes it (another process may have queued). */
  pollMs?: number;
  /** After a listener is removed: what it held is due (the deliverer may take it). */
  onReleased?: () => void;
}

/** A held delivery is due again after the attempt timeout plus this (a client that died holding it). */
const HOLD_MARGIN_MS = 5_000;

/** Open polls waiting for a delivery: each pauses until its time is up, or it is woken or aborted. */
class Waiters {
  #wakers = new Set<() => void>();

  /** Resolves after `ms`, or sooner when woken or aborted. */
  pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Every poll waiting looks again at once. */
  wake(): void {
    const woken = this.#wakers;
    this.#wakers = new Set();
    for (const w of woken) w();
  }
}

/**
 * One look for the listener's deliveries: those taken under a fresh claim, handed over with their
 * headers; none; or 'missing' when the listener is gone. Taken ones are released (due again at
 * once) when the client went away meanwhile.
 */
async function takeForListener(
  deps: ListenerDeps,
  schedule: WebhookSchedule,
  listener: { scope: Scope; id: string },
  max: number,
  signal: AbortSignal,
): Promise<HandedDelivery[] | 'missing'> {
  const { store } = deps;
  const now = new Date();
  const claim = `${listener.id}.${randomBytes(6).toString('hex')}`;
  const taken = await store.listeners.claim({
    scope: listener.scope,
    listenerId: listener.id,
    token: claim,
    now: now.toISOString(),
    lockedUntil: new Date(now.getTime() + schedule.timeoutMs + HOLD_MARGIN_MS).toISOString(),
    limit: Math.max(1, Math.min(max, LISTENER_LIMITS.held)),
    maxHeld: LISTENER_LIMITS.held,
  });
  if (!taken) return 'missing';
  if (taken.length > 0 && signal.aborted) {
    // The client went away meanwhile: they are due again at once rather than when their hold ends.
    await store.listeners.release(listener.scope.merchantId, claim);
    return [];
  }
  return Promise.all(
    taken.map(async (delivery) => ({
      delivery,
      claim,
      headers: await deliveryHeaders(store, deps.secrets, delivery, now, deps.signer),
      timeoutMs: schedule.timeoutMs,
    })),
  );
}

/** Listeners.answer: the attempt recorded on the delivery the claim holds, in one transaction that holds it. */
function recordAnswer(
  store: Store,
  schedule: WebhookSchedule,
  held: { merchantId: string; listenerId: string; deliveryId: string; claim: string },
  answer: ListenerAnswer,
): Promise<WebhookDelivery | 'missing' | 'stale'> {
  return store.transaction(async (tx) => {
    const delivery = await tx.webhooks.findClaimed(held.merchantId, held.deliveryId, held.claim);
    if (!delivery) {
      const known = await tx.webhooks.find(held.deliveryId);
      return known?.scope.merchantId === held.merchantId ? ('stale' as const) : ('missing' as const);
    }
    const at = new Date();
    const attempt: DeliveryAttempt = {
      at: new Date(at.getTime() - answer.durationMs).toISOString(),
      ...('statusCode' in answer ? { statusCode: answer.statusCode } : { error: answer.error }),
      durationMs: answer.durationMs,
      listenerId: held.listenerId,
    };
    const done = afterAttempt(delivery, attempt, at, schedule);
    await tx.webhooks.update(done);
    return done;
  });
}

export function createListeners(deps: ListenerDeps): Listeners {
  const { store } = deps;
  const schedule = { ...DEFAULT_WEBHOOK_SCHEDULE, ...deps.schedule };
  const pollMs = deps.pollMs ?? 200;
  const open = new Set<string>();
  const waiters = new Waiters();
  let stopped = false;

  /** Looks for deliveries until some are taken, the deadline passes, the client goes or the sandbox stops. */
  async function waitForDeliveries(
    listener: { scope: Scope; id: string },
    deadline: number,
    options: { max: number; signal: AbortSignal },
  ): Promise<HandedDelivery[] | 'missing'> {
    while (!stopped) {
      const handed = await takeForListener(deps, schedule, listener, options.max, options.signal);
      if (handed === 'missing' || handed.length > 0) return handed;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal.aborted || stopped) return [];
      await waiters.pause(Math.min(pollMs, left), options.signal);
    }
    return [];
  }

  return {
    async register(scope) {
      const id = `lst_${randomBytes(8).toString('hex')}`;
      const now = new Date();
      const expiresAt = new Date(now.getTime() + LISTENER_LIMITS.graceMs);
      const outcome = await store.listeners.register(
        { scope, id, now: now.toISOString(), expiresAt: expiresAt.toISOString() },
        LISTENER_LIMITS.perMerchant,
      );
      return outcome === 'full' ? 'full' : { id, scope, expiresAt };
    },

    async poll(merchantId, id, options) {
      const key = `${merchantId}\u0000${id}`;
      if (open.has(key)) return 'busy';
      open.add(key);
      try {
        const deadline = Date.now() + Math.min(options.waitMs, LISTENER_LIMITS.maxWaitSeconds * 1000);
        const scope = await store.listeners.touch(
          merchantId,
          id,
          new Date().toISOString(),
          new Date(deadline + LISTENER_LIMITS.graceMs).toISOString(),
        );
        if (!scope) return 'missing';
        return await waitForDeliveries({ scope, id }, deadline, options);
      } finally {
        open.delete(key);
      }
    },

    async answer(merchantId, id, deliveryId, claim, answer) {
      if (!claim.startsWith(`${id}.`)) return 'stale';
      const outcome = await recordAnswer(store, schedule, { merchantId, listenerId: id, deliveryId, claim }, answer);
      waiters.wake(); // the listener holds one fewer
      return outcome;
    },

    async remove(merchantId, id) {
      const removed = await store.listeners.remove(merchantId, id);
      if (removed) deps.onReleased?.();
      return removed;
    },

    wake: () => waiters.wake(),

    stop() {
      stopped = true;
      waiters.wake();
    },
  };
}
