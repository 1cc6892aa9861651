// Values that every process on the database shares (Store.setting): the first creates, the others read.
import type { StoreDialect } from '../dialect.js';
import type { Store } from '../store.js';

export const setting =
  ({ db }: StoreDialect): Store['setting'] =>
  async (name, create) => {
    await db
      .insertInto('settings')
      .values({ name, value: create() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    return (await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()).value;
  };
