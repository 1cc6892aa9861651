// The scopes that were given the contract's examples (the admin API's seeding, the demo merchant at
// start): a reset of one deletes its data but not the mark, and makes the examples again.
import { filtered } from '../query.js';
import { scopeOf, scopeOfRow } from '../rows.js';
import type { StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function examplesRepository({ db }: Context): StoreTransaction['examples'] {
  return {
    async mark(scope) {
      await db
        .insertInto('example_scopes')
        .values(scopeOf(scope))
        .onConflict((oc) => oc.columns(['merchant_id', 'environment']).doNothing())
        .execute();
    },
    async scopes(filter) {
      const rows = await filtered(db.selectFrom('example_scopes').selectAll(), filter)
        .orderBy('merchant_id')
        .orderBy('environment')
        .execute();
      return rows.map(scopeOfRow);
    },
  };
}
