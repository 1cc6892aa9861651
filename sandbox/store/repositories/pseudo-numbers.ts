// Pseudo numbers: one per card fingerprint in a scope.
import type { PseudoNumberRecord } from '../../domain/types.js';
import { scoped } from '../query.js';
import { parse, pseudoNumberRow } from '../rows.js';
import type { StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function pseudoNumbersRepository({ db }: Context): StoreTransaction['pseudoNumbers'] {
  return {
    async getOrInsert(record) {
      await db
        .insertInto('pseudo_numbers')
        .values(pseudoNumberRow(record))
        .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'fingerprint']).doNothing())
        .execute();
      const row = await scoped(db.selectFrom('pseudo_numbers').select('data'), record.scope)
        .where('fingerprint', '=', record.fingerprint)
        .executeTakeFirstOrThrow();
      return parse<PseudoNumberRecord>(row);
    },
    async getByPseudoNumber(scope, pseudoNumber) {
      const row = await scoped(db.selectFrom('pseudo_numbers').select('data'), scope)
        .where('pseudo_number', '=', pseudoNumber)
        .executeTakeFirst();
      return row ? parse<PseudoNumberRecord>(row) : undefined;
    },
  };
}
