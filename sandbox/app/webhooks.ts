// Webhook deliveries as use cases: the due ones taken from the outbox, an attempt's result recorded
// (delivered, retried with exponential back-off, or dead-lettered after the schedule's attempts),
// and a delivery sent again. The deliverer (jobs/webhook-deliverer.ts) makes the attempts.
import { retryDelayMs } from '../domain/hosted.js';
import type { Scope, WebhookDelivery } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { webhookSecretsOf } from './merchants.js';
import { csprngBytes } from './random.js';
import type { SandboxSecrets } from './secrets.js';

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
export const DEFAULT_WEBHOOK_SCHEDULE: WebhookSchedule = {
  maxAttempts: 6,
  retryBaseMs: 1_000,
  retryCapMs: 60_000,
  timeoutMs: 5_000,
};

/** One attempt as the deliverer saw it: the receiver's status, or the error that stood in for one. */
export type DeliveryAttempt = WebhookDelivery['attempts'][number];

/** Attempts counted against the schedule: those since the last resend. */
const countedAttempts = (d: WebhookDelivery) => d.attempts.length - (d.resentAfterAttempts ?? 0);

/**
 * Takes up to `limit` deliveries due at `now`, fairly across merchants (at most `perMerchant` held
 * per merchant), and holds them until `lockedUntil`: two processes on one database never take the
 * same one. Scopes with a connected listener (app/listeners.ts) are left to it.
 */
export async function takeDueDeliveries(
  store: Store,
  claim: { now: Date; lockedUntil: Date; limit: number; perMerchant: number },
): Promise<{ token: string; deliveries: WebhookDelivery[] }> {
  const token = `deliverer.${csprngBytes(8).toString('hex')}`;
  const deliveries = await store.webhooks.claimDue({
    token,
    now: claim.now.toISOString(),
    lockedUntil: claim.lockedUntil.toISOString(),
    limit: claim.limit,
    perMerchant: claim.perMerchant,
  });
  return { token, deliveries };
}

/** The secrets an enhanced delivery is signed with (every secret of the merchant while one is rotated); none for a basic one. */
export async function signingSecrets(
  store: Store,
  secrets: SandboxSecrets,
  delivery: WebhookDelivery,
): Promise<string[]> {
  if (delivery.kind !== 'enhanced') return [];
  const merchant = await store.merchants.get(delivery.scope.merchantId);
  return merchant ? webhookSecretsOf(merchant, secrets) : [];
}

/** The SDK's signing (src/webhooks/: signWebhook and its header's name), handed to the use cases that sign by the composition root. */
export interface WebhookSigner {
  header: string;
  sign(body: string, secrets: string[], options: { timestamp: number }): Promise<string>;
}

/** The headers of an attempt made at `at`: the enhanced ones signed under every secret of the merchant. */
export async function deliveryHeaders(
  store: Store,
  secrets: SandboxSecrets,
  delivery: WebhookDelivery,
  at: Date,
  signer: WebhookSigner,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'payment-service-sandbox-webhooks',
  };
  const signWith = await signingSecrets(store, secrets, delivery);
  if (signWith.length > 0)
    headers[signer.header] = await signer.sign(delivery.body, signWith, { timestamp: Math.floor(at.getTime() / 1000) });
  return headers;
}

/**
 * The delivery after `attempt`, ended at `at`: delivered on a 2xx, else retried or dead-lettered
 * (at once when `final`: the destination policy refused the address, which no retry changes).
 */
export function afterAttempt(
  delivery: WebhookDelivery,
  attempt: DeliveryAttempt,
  at: Date,
  schedule: WebhookSchedule,
  final = false,
): WebhookDelivery {
  const next: WebhookDelivery = { ...delivery, attempts: [...delivery.attempts, attempt] };
  const status = attempt.statusCode;
  if (status !== undefined && status >= 200 && status < 300)
    return { ...next, status: 'DELIVERED', deliveredAt: at.toISOString() };
  const counted = countedAttempts(next);
  if (final || counted >= schedule.maxAttempts) return { ...next, status: 'DEAD' };
  return {
    ...next,
    nextAttemptAt: new Date(
      at.getTime() + retryDelayMs(counted, schedule.retryBaseMs, schedule.retryCapMs),
    ).toISOString(),
  };
}

/**
 * Records the result of an attempt made under the claim `token` and releases the delivery's hold
 * (`final`: dead-lettered at once, see afterAttempt): the delivery after it, or 'stale' when the
 * claim no longer held it (its hold ran out and another claim took it: that one's result stands).
 */
export async function recordAttempt(
  store: Store,
  claimed: { delivery: WebhookDelivery; token: string },
  attempt: DeliveryAttempt,
  at: Date,
  schedule: WebhookSchedule,
  final = false,
): Promise<WebhookDelivery | 'stale'> {
  const done = afterAttempt(claimed.delivery, attempt, at, schedule, final);
  return (await store.webhooks.record(done, claimed.token)) ? done : 'stale';
}

/** The delivery made PENDING again, due at `at`, with a fresh set of attempts (a dead letter, or a delivered one to send again). */
export function resentDelivery(delivery: WebhookDelivery, at: Date): WebhookDelivery {
  const resent: WebhookDelivery = {
    ...delivery,
    status: 'PENDING',
    nextAttemptAt: at.toISOString(),
    resentAfterAttempts: delivery.attempts.length,
  };
  delete resent.deliveredAt;
  return resent;
}

/**
 * Resends the delivery `id` (of `scope` when given, else whatever its scope): read, checked and
 * written in one transaction, so that a delivery the deliverer is sending stays PENDING (`pending`:
 * it is refused) and one housekeeping is deleting is either resent first or gone (`missing`).
 */
export function resendDeliveryById(
  store: Store,
  id: string,
  at: Date,
  scope?: Scope,
): Promise<WebhookDelivery | 'missing' | 'pending'> {
  return store.transaction(async (tx) => {
    const delivery = await tx.webhooks.find(id, { lock: true });
    if (!delivery || (scope && !sameScope(delivery.scope, scope))) return 'missing' as const;
    if (delivery.status === 'PENDING') return 'pending' as const;
    const resent = resentDelivery(delivery, at);
    await tx.webhooks.update(resent);
    return resent;
  });
}

const sameScope = (a: Scope, b: Scope) => a.merchantId === b.merchantId && a.environment === b.environment;

/** Resends a delivery of `scope` (see resendDeliveryById); undefined when there is none, or it is pending. */
export async function resendDelivery(
  store: Store,
  scope: Scope,
  id: string,
  at: Date,
): Promise<WebhookDelivery | undefined> {
  const outcome = await resendDeliveryById(store, id, at, scope);
  return typeof outcome === 'string' ? undefined : outcome;
}
