// A store in memory on SQLite compiled to WebAssembly (sql.js): what the in-process sandbox holds
// where no native module loads, in Node (open.ts) and in a browser page. No Node API.
import { Kysely, SqliteDialect } from 'kysely';
import type { StoreDialect } from '../../dialect.js';
import { kyselyStore } from '../../kysely-store.js';
import { migrate } from '../../opening.js';
import type { Database as Tables } from '../../schema.js';
import type { Store } from '../../store.js';
import { sqliteDialect } from './dialect.js';
import { type SqliteLike, wasmDatabase } from './wasm-driver.js';

/** The dialect of an empty sql.js database, migrated. */
export async function wasmMemoryDialect(database: SqliteLike): Promise<StoreDialect> {
  // sql.js keeps the database in a file of Emscripten's memory file system, which this connection
  // alone opens: holding its lock spares each transaction a read of the file's change counter
  // through JavaScript to check the page cache (statements ran three to four times faster).
  // Nothing there is durable, so the journal stays in memory and nothing is synced.
  database.pragma('locking_mode = EXCLUSIVE');
  database.pragma('journal_mode = MEMORY');
  database.pragma('synchronous = OFF');
  database.pragma('foreign_keys = ON');
  database.pragma('temp_store = MEMORY');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  try {
    await migrate(db, ':memory:');
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const prepare = (sql: string) => database.prepare(sql);
  return sqliteDialect(db, ':memory:', { reader: db, prepare: { writer: prepare, reader: prepare } }, () =>
    db.destroy(),
  );
}

/** A store in memory on sql.js, its WebAssembly module fetched from `wasmUrl` (a browser page's). */
export async function openWasmMemoryStore(wasmUrl: string): Promise<Store> {
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs({ locateFile: () => wasmUrl });
  return kyselyStore(await wasmMemoryDialect(wasmDatabase(SQL)));
}
