// Opening a PostgreSQL database: a pool, checked with one query, and the migrations.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { StoreDialect } from '../../dialect.js';
import { migrate, StoreOpenError } from '../../opening.js';
import type { Database as Tables } from '../../schema.js';
import { postgresDialect } from './dialect.js';

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

export async function openPostgres(url: string): Promise<StoreDialect> {
  const location = redact(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    // A statement is written before the answers of those ahead of it arrive (see connection.ts).
    pipeline: true,
    // bigint columns (money) as JS numbers: values stay below 10^12, far under 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => undefined); // an idle client's error (server restart) must not crash the sandbox
  try {
    await pool.query('select 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StoreOpenError(
      `cannot connect to PostgreSQL at ${location}: ${(err as Error).message || (err as { code?: string }).code}`,
    );
  }
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db, location);
  return postgresDialect(pool, db, location);
}
