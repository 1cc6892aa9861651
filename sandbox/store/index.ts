// openStore(): the store on embedded SQLite (a file, or `:memory:`) or on PostgreSQL (a URL),
// migrated, ready. An unreachable database or an unusable path rejects with one line that says so.
// The database's dialect is chosen here, once (see dialect.ts).
import { openPostgres } from './dialects/postgres/open.js';
import { openSqlite } from './dialects/sqlite/open.js';
import { kyselyStore } from './kysely-store.js';
import type { OpenStoreOptions, Store } from './store.js';

export { redact } from './dialects/postgres/open.js';
export { StoreOpenError } from './opening.js';
export * from './store.js';

export const isPostgresUrl = (database: string) => /^postgres(ql)?:\/\//.test(database);

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  return kyselyStore(
    await (isPostgresUrl(options.database)
      ? openPostgres(options.database)
      : openSqlite(options.database, { driver: options.sqliteDriver })),
  );
}
