// Opening a SQLite file (or `:memory:`): its owner lock, the connections' settings, the migrations,
// the reader connection and the WAL checkpointer. better-sqlite3 is an optional dependency, loaded
// when a database is opened: a file needs it; `:memory:` runs on it when it loads, else on SQLite
// compiled to WebAssembly (wasm-driver.ts), so the sandbox also runs where no native module builds.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { StoreDialect } from '../../dialect.js';
import { migrate, StoreOpenError } from '../../opening.js';
import type { Database as Tables } from '../../schema.js';
import { startCheckpointer } from './checkpointer.js';
import { sqliteDialect } from './dialect.js';
import { type OwnerLock, takeOwnerLock } from './owner-lock.js';
import type { SqliteLike } from './wasm-driver.js';
import { wasmMemoryDialect } from './wasm-memory.js';
import { openWasmDatabase } from './wasm-node.js';

/** Which build of SQLite holds the database: better-sqlite3's native module, or sql.js's WebAssembly. */
export type SqliteDriver = 'native' | 'wasm';

type NativeSqlite = typeof BetterSqlite3;
let native: { driver: NativeSqlite } | { error: string } | undefined;

/**
 * better-sqlite3 once it has opened a database in this process, or why it cannot: the package may be
 * missing, or be there without its compiled module (an install with --ignore-scripts, another
 * platform's build), which only opening a database finds out.
 */
function nativeSqlite(): { driver: NativeSqlite } | { error: string } {
  if (!native) {
    try {
      const driver = createRequire(import.meta.url)('better-sqlite3') as NativeSqlite;
      new driver(':memory:').close();
      native = { driver };
    } catch (error) {
      native = { error: (error as Error).message };
    }
  }
  return native;
}

/** The driver of `:memory:` when none is asked for: the native one when it loads. */
const defaultMemoryDriver = (): SqliteDriver => ('driver' in nativeSqlite() ? 'native' : 'wasm');

/** better-sqlite3, or the StoreOpenError that says what to do without it. */
function requireNative(location: string): NativeSqlite {
  const loaded = nativeSqlite();
  if ('driver' in loaded) return loaded.driver;
  throw new StoreOpenError(
    location === ':memory:'
      ? `the native SQLite driver cannot be loaded (${loaded.error}); leave the driver to its default or choose wasm`
      : 'a SQLite file needs the optional package better-sqlite3 (npm install better-sqlite3); without it use --db :memory: or a postgres:// URL',
  );
}

/**
 * The database file readable by its owner alone (0600), created so when it is new: SQLite gives its
 * WAL and shared-memory files the database file's mode.
 */
function ownerOnly(location: string): void {
  if (!existsSync(location)) closeSync(openSync(location, 'a', 0o600));
  for (const file of [location, `${location}-wal`, `${location}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

export interface OpenSqliteOptions {
  /** The driver of `:memory:` (default: native when better-sqlite3 loads, else wasm); a file's is native. */
  driver?: SqliteDriver;
}

/** A `:memory:` database on sql.js; a failure to load or compile it is the store's to report. */
async function openWasmMemory(): Promise<StoreDialect> {
  try {
    return await wasmMemoryDialect(await openWasmDatabase());
  } catch (err) {
    throw err instanceof StoreOpenError
      ? err
      : new StoreOpenError(`cannot open the SQLite database at :memory: on WebAssembly: ${(err as Error).message}`);
  }
}

export async function openSqlite(path: string, options: OpenSqliteOptions = {}): Promise<StoreDialect> {
  const memory = path === ':memory:';
  const location = memory ? ':memory:' : resolve(path);
  const driver = options.driver ?? (memory ? defaultMemoryDriver() : 'native');
  // A file's owner lock, WAL, reader connection and checkpointer are better-sqlite3's.
  if (!memory && driver === 'wasm')
    throw new StoreOpenError(
      `the WebAssembly SQLite driver holds :memory: alone: a SQLite file (${location}) needs better-sqlite3`,
    );
  if (driver === 'wasm') return openWasmMemory();
  const Database = requireNative(location);
  let database: SqliteLike;
  let owner: OwnerLock | undefined;
  try {
    if (!memory) {
      mkdirSync(dirname(location), { recursive: true });
      ownerOnly(location);
      // By its real path: a symbolic link to the file is the same file, with the same owner.
      owner = takeOwnerLock(realpathSync(location));
      if (!owner) {
        throw new StoreOpenError(
          `the SQLite database at ${location} is in use by another sandbox: a SQLite file has one owner, which keeps its in-flight idempotency keys and caches. Stop the other process, or give several processes one PostgreSQL database (--db postgres://…).`,
        );
      }
    }
    database = new Database(location);
    // WAL with synchronous=NORMAL: a commit is in the WAL file before the call returns, so a killed
    // sandbox process loses nothing it answered; only a power loss could cost the last commits.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // Group commit runs each write in a savepoint: their statement journals stay in memory, not in a temp file per batch.
    database.pragma('temp_store = MEMORY');
  } catch (err) {
    owner?.release();
    throw err instanceof StoreOpenError
      ? err
      : new StoreOpenError(`cannot open the SQLite database at ${location}: ${(err as Error).message}`);
  }
  const writer = database;
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: writer }) });
  const prepareOnWriter = (sql: string) => writer.prepare(sql);
  try {
    await migrate(db, location);
  } catch (err) {
    await db.destroy();
    owner?.release();
    throw err;
  }
  if (memory)
    return sqliteDialect(
      db,
      location,
      { reader: db, prepare: { writer: prepareOnWriter, reader: prepareOnWriter } },
      () => db.destroy(),
    );
  // A second connection for reads: in WAL mode they run beside the writer's transactions.
  const readerDatabase = new Database(location, { readonly: true });
  const reader = new Kysely<Tables>({ dialect: new SqliteDialect({ database: readerDatabase }) });
  // Checkpoints run in a worker (see checkpointer.ts); the writer's own starts the WAL over, at
  // sixteen times SQLite's threshold (a WAL file of up to 64 MB) so that it blocks a commit rarely.
  database.pragma('wal_autocheckpoint = 16000');
  const checkpointer = startCheckpointer(location, (message) =>
    process.stderr.write(`sandbox: a checkpoint of ${location} failed: ${message}\n`),
  );
  return sqliteDialect(
    db,
    location,
    { reader, prepare: { writer: prepareOnWriter, reader: (sql) => readerDatabase.prepare(sql) } },
    async () => {
      await checkpointer.stop();
      await reader.destroy();
      await db.destroy();
      owner?.release();
    },
  );
}
