// PostgreSQL's row locks: transactions run concurrently (READ COMMITTED), in several processes, and
// a locking read serializes the writers of one record.
import type { SelectQueryBuilder } from 'kysely';
import type { Scope } from '../../../domain/types.js';
import type { Db } from '../../dialect.js';
import { scopeOf } from '../../rows.js';

/** Holds the rows read until the transaction ends. */
export const lockForUpdate = <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) => query.forUpdate();

/** Takes only the rows no other transaction holds, and holds them: two deliverers never take the same delivery. */
export const lockSkippingLocked = <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) =>
  query.forUpdate().skipLocked();

/** A row to lock, even for a clock never advanced: FOR UPDATE holds rows, not their absence. */
export async function ensureClockRow(db: Db, scope: Scope): Promise<void> {
  await db
    .insertInto('clocks')
    .values({ offset_ms: 0, ...scopeOf(scope) })
    .onConflict((oc) => oc.columns(['merchant_id', 'environment']).doNothing())
    .execute();
}
