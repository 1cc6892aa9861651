// Merchants, read by API key on every request (on the reader connection).
import type { Merchant } from '../../domain/types.js';
import type { StoreDialect } from '../dialect.js';
import { merchantRow, parse } from '../rows.js';
import type { Store } from '../store.js';

export function merchantsRepository({ db, reader }: StoreDialect): Store['merchants'] {
  return {
    async upsert(merchant) {
      const row = merchantRow(merchant);
      await db
        .insertInto('merchants')
        .values(row)
        .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ api_key_hash: row.api_key_hash, data: row.data }))
        .execute();
    },
    async insert(merchant) {
      const inserted = await db
        .insertInto('merchants')
        .values(merchantRow(merchant))
        .onConflict((oc) => oc.column('merchant_id').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async get(merchantId) {
      const row = await reader
        .selectFrom('merchants')
        .select('data')
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst();
      return row ? parse<Merchant>(row) : undefined;
    },
    async getByApiKeyHash(hash) {
      const row = await reader
        .selectFrom('merchants')
        .select('data')
        .where('api_key_hash', '=', hash)
        .executeTakeFirst();
      return row ? parse<Merchant>(row) : undefined;
    },
    async list() {
      return (await db.selectFrom('merchants').select('data').orderBy('merchant_id').execute()).map((r) =>
        parse<Merchant>(r),
      );
    },
  };
}
