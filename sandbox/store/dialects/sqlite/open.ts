// Opening a SQLite file (or `:memory:`): its owner lock, the connections' settings, the migrations,
// the reader connection and the WAL checkpointer.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { StoreDialect } from '../../dialect.js';
import { migrate, StoreOpenError } from '../../opening.js';
import type { Database as Tables } from '../../schema.js';
import { startCheckpointer } from './checkpointer.js';
import { sqliteDialect } from './dialect.js';
import { type OwnerLock, takeOwnerLock } from './owner-lock.js';

/**
 * The database file readable by its owner alone (0600), created so when it is new: SQLite gives its
 * WAL and shared-memory files the database file's mode.
 */
function ownerOnly(location: string): void {
  if (!existsSync(location)) closeSync(openSync(location, 'a', 0o600));
  for (const file of [location, `${location}-wal`, `${location}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

export async function openSqlite(path: string): Promise<StoreDialect> {
  const memory = path === ':memory:';
  const location = memory ? ':memory:' : resolve(path);
  let database: Database.Database;
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
