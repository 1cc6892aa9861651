// The test clock of each scope: its offset from the wall clock (0, and no row, when never advanced).
import type { StoreDialect } from '../dialect.js';
import { locked, scoped } from '../query.js';
import { scopeOf, scopeOfRow } from '../rows.js';
import type { Store, StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function clocksRepository({ db, dialect }: Context): StoreTransaction['clocks'] {
  return {
    async get(scope, options) {
      if (options?.lock) await dialect.ensureClockRow(db, scope);
      const row = await locked(
        dialect,
        scoped(db.selectFrom('clocks').select('offset_ms'), scope),
        options,
      ).executeTakeFirst();
      return row ? Number(row.offset_ms) : 0;
    },
    async set(scope, offsetMs) {
      await db
        .insertInto('clocks')
        .values({ offset_ms: offsetMs, ...scopeOf(scope) })
        .onConflict((oc) => oc.columns(['merchant_id', 'environment']).doUpdateSet({ offset_ms: offsetMs }))
        .execute();
    },
  };
}

/** The clocks that were advanced (Store.clocks). */
export const advancedClocks =
  ({ reader }: StoreDialect): Store['clocks'] =>
  async () => {
    const rows = await reader.selectFrom('clocks').selectAll().where('offset_ms', '!=', 0).execute();
    return rows.map((r) => ({ scope: scopeOfRow(r), offsetMs: Number(r.offset_ms) }));
  };
