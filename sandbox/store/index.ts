// openStore(): the store on embedded SQLite (a file, or `:memory:`) or on PostgreSQL (a URL),
// migrated, ready. An unreachable database or an unusable path rejects with one line that says so.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { startCheckpointer } from './dialects/sqlite/checkpointer.js';
import { kyselyStore } from './kysely-store.js';
import { MIGRATIONS } from './migrations.js';
import { takeOwnerLock, type OwnerLock } from './dialects/sqlite/owner-lock.js';
import type { Database as Tables } from './schema.js';
import type { OpenStoreOptions, Store } from './store.js';

export * from './store.js';

/** The database could not be opened or reached (the CLI prints the message and exits 1). */
export class StoreOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

async function migrate(db: Kysely<Tables>, location: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw new StoreOpenError(`cannot migrate the database at ${location}: ${(error as Error).message}`);
}

export const isPostgresUrl = (database: string) => /^postgres(ql)?:\/\//.test(database);

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  return isPostgresUrl(options.database) ? openPostgres(options.database) : openSqlite(options.database);
}

/**
 * Kysely prepares a statement for every query; better-sqlite3's statements are reusable, so they are
 * prepared once per SQL text.
 */
function withStatementCache(database: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = database.prepare(sql)));
      return statement;
    },
  };
}

async function openSqlite(path: string): Promise<Store> {
  const memory = path === ':memory:';
  const location = memory ? ':memory:' : resolve(path);
  let database: Database.Database;
  let owner: OwnerLock | undefined;
  try {
    if (!memory) {
      mkdirSync(dirname(location), { recursive: true });
      owner = takeOwnerLock(location);
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
    throw err instanceof StoreOpenError ? err : new StoreOpenError(`cannot open the SQLite database at ${location}: ${(err as Error).message}`);
  }
  const cached = withStatementCache(database);
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cached }) });
  try {
    await migrate(db, location);
  } catch (err) {
    await db.destroy();
    owner?.release();
    throw err;
  }
  if (memory) return kyselyStore(db, location, () => db.destroy(), { reader: db, prepare: { writer: cached.prepare, reader: cached.prepare } });
  // A second connection for reads: in WAL mode they run beside the writer's transactions.
  const cachedReader = withStatementCache(new Database(location, { readonly: true }));
  const reader = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cachedReader }) });
  // Checkpoints run in a worker (see checkpointer.ts); the writer's own starts the WAL over, at
  // sixteen times SQLite's threshold (a WAL file of up to 64 MB) so that it blocks a commit rarely.
  database.pragma('wal_autocheckpoint = 16000');
  const checkpointer = startCheckpointer(location, (message) => process.stderr.write(`sandbox: a checkpoint of ${location} failed: ${message}\n`));
  return kyselyStore(db, location, async () => {
    await checkpointer.stop();
    await reader.destroy();
    await db.destroy();
    owner?.release();
  }, { reader, prepare: { writer: cached.prepare, reader: cachedReader.prepare } });
}

async function openPostgres(url: string): Promise<Store> {
  const location = redact(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    // bigint columns (money) as JS numbers: values stay below 10^12, far under 2^53.
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
  });
  pool.on('error', () => undefined); // an idle client's error (server restart) must not crash the sandbox
  try {
    await pool.query('select 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StoreOpenError(`cannot connect to PostgreSQL at ${location}: ${(err as Error).message || (err as { code?: string }).code}`);
  }
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db, location);
  return kyselyStore(db, location, () => db.destroy());
}
