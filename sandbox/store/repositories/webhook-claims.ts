// Taking due deliveries from the outbox: the deliverer's claim, fair across merchants, and a
// listener's claim of its own scope's. Both pick candidates, then take those no other transaction
// holds (PostgreSQL: SKIP LOCKED), re-checking that they are still due and free, and hold them.
import { type ExpressionBuilder, sql } from 'kysely';
import type { WebhookDelivery } from '../../domain/types.js';
import type { Db, StoreDialect } from '../dialect.js';
import { scoped } from '../query.js';
import { parse, scopeOfRow } from '../rows.js';
import type { Database } from '../schema.js';
import type { DueClaim, ListenerClaim } from '../webhooks.js';

type Deliveries = ExpressionBuilder<Database, 'webhook_deliveries'>;

/** PENDING, due at `now`, held by no process or listener (or its hold has run out). */
const dueAndFree = (now: string) => (eb: Deliveries) =>
  eb.and([
    eb('webhook_deliveries.status', '=', 'PENDING'),
    eb('webhook_deliveries.next_attempt_at', '<=', now),
    eb.or([eb('webhook_deliveries.locked_until', 'is', null), eb('webhook_deliveries.locked_until', '<=', now)]),
  ]);

/** Takes the candidates (by id) that are still due and free, skipping those another transaction holds, and holds them. */
async function take(
  dialect: StoreDialect,
  tx: Db,
  ids: string[],
  now: string,
  hold: { lockedUntil: string; token: string },
): Promise<WebhookDelivery[]> {
  if (ids.length === 0) return [];
  const rows = await dialect
    .lockSkippingLocked(
      tx
        .selectFrom('webhook_deliveries')
        .select(['merchant_id', 'environment', 'id', 'data', 'next_attempt_at'])
        .where('id', 'in', ids)
        .where(dueAndFree(now)),
    )
    .execute();
  for (const r of rows) {
    await scoped(
      tx.updateTable('webhook_deliveries').set({ locked_until: hold.lockedUntil, claim_token: hold.token }),
      scopeOfRow(r),
    )
      .where('id', '=', r.id)
      .execute();
  }
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map((r) => parse<WebhookDelivery>(r));
}

/**
 * The deliverer's claim (WebhookOutbox.claimDue). Candidates: each merchant's due deliveries ranked
 * oldest first, a merchant's rank counted on from what it already holds (in every process); those
 * within `perMerchant`, lowest rank first, so that each merchant's next delivery comes before any
 * merchant's one after it. Scopes with a connected listener are left to the listener.
 */
export function claimDue(dialect: StoreDialect, claim: DueClaim): Promise<WebhookDelivery[]> {
  const { now, lockedUntil, limit, perMerchant, token } = claim;
  return dialect.runTransaction(async (tx) => {
    const candidates = await tx
      .with('held', (db) =>
        db
          .selectFrom('webhook_deliveries')
          .select((eb) => ['merchant_id', eb.fn.countAll<number>().as('n')])
          .where('status', '=', 'PENDING')
          .where('locked_until', '>', now)
          .groupBy('merchant_id'),
      )
      .with('due', (db) =>
        db
          .selectFrom('webhook_deliveries')
          .select((eb) => [
            'webhook_deliveries.id',
            'webhook_deliveries.merchant_id',
            'webhook_deliveries.next_attempt_at',
            eb.fn
              .agg<number>('row_number')
              .over((ob) =>
                ob
                  .partitionBy('webhook_deliveries.merchant_id')
                  .orderBy('webhook_deliveries.next_attempt_at')
                  .orderBy('webhook_deliveries.id'),
              )
              .as('rank'),
          ])
          .where(dueAndFree(now))
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('webhook_listeners')
                  .select('webhook_listeners.id')
                  .whereRef('webhook_listeners.merchant_id', '=', 'webhook_deliveries.merchant_id')
                  .whereRef('webhook_listeners.environment', '=', 'webhook_deliveries.environment')
                  .where('webhook_listeners.expires_at', '>', now),
              ),
            ),
          ),
      )
      .selectFrom('due')
      .leftJoin('held', 'held.merchant_id', 'due.merchant_id')
      .select(['due.id', sql<number>`due.rank + coalesce(held.n, 0)`.as('place')])
      .where(sql<boolean>`due.rank + coalesce(held.n, 0) <= ${perMerchant}`)
      .orderBy('place')
      .orderBy('due.next_attempt_at')
      .orderBy('due.id')
      .limit(limit)
      .execute();
    return take(
      dialect,
      tx,
      candidates.map((c) => c.id),
      now,
      { lockedUntil, token },
    );
  });
}

/**
 * A listener's claim (WebhookListeners.claim): its scope's due deliveries, oldest first, up to what
 * it may hold; undefined when the listener is gone (removed, or expired at `now`).
 */
export function claimForListener(dialect: StoreDialect, claim: ListenerClaim): Promise<WebhookDelivery[] | undefined> {
  const { scope, listenerId, token, now, lockedUntil } = claim;
  return dialect.runTransaction(async (tx) => {
    // Locked: a removal (or housekeeping's delete) under way is waited for, and then the listener is
    // gone; one that comes later finds what this claim took, and releases it.
    const alive = await dialect
      .lockForUpdate(
        scoped(tx.selectFrom('webhook_listeners').select('id'), scope)
          .where('id', '=', listenerId)
          .where('expires_at', '>', now),
      )
      .executeTakeFirst();
    if (!alive) return undefined;
    const held = await scoped(
      tx.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')),
      scope,
    )
      .where('status', '=', 'PENDING')
      .where(heldBy(listenerId))
      .where('locked_until', '>', now)
      .executeTakeFirstOrThrow();
    const room = Math.min(claim.limit, claim.maxHeld - Number(held.n));
    if (room <= 0) return [];
    const candidates = await scoped(tx.selectFrom('webhook_deliveries').select('id'), scope)
      .where(dueAndFree(now))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(room)
      .execute();
    return take(
      dialect,
      tx,
      candidates.map((c) => c.id),
      now,
      { lockedUntil, token },
    );
  });
}

/** Deliveries held under a claim of the listener: their tokens are `<listenerId>.<random>` ('/' follows '.'). */
export const heldBy = (listenerId: string) => (eb: Deliveries) =>
  eb.and([
    eb('webhook_deliveries.claim_token', '>=', `${listenerId}.`),
    eb('webhook_deliveries.claim_token', '<', `${listenerId}/`),
  ]);
