// Housekeeping: what the sandbox keeps only for a while is deleted when its time is up, by the
// housekeeping job (jobs/housekeeper.ts), in every process (deleting twice deletes nothing more).
//
// - Idempotency keys past their retention (24 hours, on the clock of their scope): every scope's on
//   the wall clock, and each advanced scope's on its own clock, which runs ahead of the wall clock;
//   a key whose request is still in flight, its lease holding on the wall clock, stays.
// - Delivered webhook deliveries, `deliveredMs` after their delivery (default 7 days).
// - Dead-lettered ones, resendable until then, `deadMs` after their last attempt (default 30 days).
// - Listeners whose client stopped polling without saying goodbye.
// Delivery times are on the wall clock (attempts run on it, whatever a scope's test clock says).
// PENDING deliveries are never deleted: they end as DELIVERED or DEAD.
import type { Store } from '../store/store.js';

const DAY = 86_400_000;

export interface Retention {
  /** How long a delivered webhook delivery is kept after its delivery. */
  deliveredMs: number;
  /** How long a dead-lettered one is kept (and can be resent) after its last attempt. */
  deadMs: number;
}

export const DEFAULT_RETENTION: Retention = { deliveredMs: 7 * DAY, deadMs: 30 * DAY };

/** What one run deleted. */
export interface HousekeepingResult {
  idempotencyKeys: number;
  deliveredWebhooks: number;
  deadWebhooks: number;
  listeners: number;
}

/** Deletes what is past its retention at `wallNow`; returns how many of each. */
export async function runHousekeeping(
  store: Store,
  retention: Retention,
  wallNow: Date = new Date(),
): Promise<HousekeepingResult> {
  const at = (ms: number) => new Date(wallNow.getTime() - ms).toISOString();
  const wall = wallNow.toISOString();
  let idempotencyKeys = await store.idempotency.purgeExpired(wall);
  for (const { scope, offsetMs } of await store.clocks())
    if (offsetMs > 0)
      idempotencyKeys += await store.idempotency.purgeExpired(
        new Date(wallNow.getTime() + offsetMs).toISOString(),
        scope,
        wall,
      );
  return {
    idempotencyKeys,
    deliveredWebhooks: await store.housekeeping.purgeDeliveries('DELIVERED', at(retention.deliveredMs)),
    deadWebhooks: await store.housekeeping.purgeDeliveries('DEAD', at(retention.deadMs)),
    listeners: await store.housekeeping.purgeListeners(wallNow.toISOString()),
  };
}
