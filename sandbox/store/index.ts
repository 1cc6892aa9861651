// openStore(): the store on embedded SQLite (a file, or `:memory:`) or on PostgreSQL (a URL),
// migrated, ready. An unreachable database or an unusable path rejects with one line that says so.
// The database's dialect is chosen here, once (see dialect.ts).
import type { StoreDialect } from './dialect.js';
import { openSqlite } from './dialects/sqlite/open.js';
import { kyselyStore } from './kysely-store.js';
import { StoreOpenError } from './opening.js';
import type { OpenStoreOptions, Store } from './store.js';

export { StoreOpenError } from './opening.js';
export * from './store.js';

export const isPostgresUrl = (database: string) => /^postgres(ql)?:\/\//.test(database);

/**
 * PostgreSQL's dialect, loaded only for a postgres:// URL: where the sandbox is a package, `pg` is an
 * optional dependency that only a team sharing a database installs.
 */
async function openPostgres(url: string): Promise<StoreDialect> {
  let dialect: typeof import('./dialects/postgres/open.js');
  try {
    dialect = await import('./dialects/postgres/open.js');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new StoreOpenError(
      `a postgres:// database needs the package pg, which is not installed (npm install pg): ${(err as Error).message}`,
    );
  }
  return dialect.openPostgres(url);
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  return kyselyStore(
    await (isPostgresUrl(options.database)
      ? openPostgres(options.database)
      : openSqlite(options.database, { driver: options.sqliteDriver })),
  );
}
