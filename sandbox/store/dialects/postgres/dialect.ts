// The PostgreSQL dialect: several sandbox processes share the database, so transactions run
// concurrently (READ COMMITTED) on a pool, claims are leases in the database, and locking reads
// serialize the writers of one record across processes. Transactions are pipelined and the hot
// statements prepared (transactions.ts, connection.ts).
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { StoreDialect } from '../../dialect.js';
import type { Database } from '../../schema.js';
import { DuplicateKeyError } from '../../store.js';
import { leasedClaims } from './claims.js';
import { PreparedStatements } from './connection.js';
import { ensureClockRow, lockForUpdate, lockSkippingLocked } from './row-locks.js';
import { keepStatistics } from './statistics.js';
import { PostgresTransactions } from './transactions.js';

/** Unique violations (SQLSTATE 23505) as DuplicateKeyError. */
function duplicateKey(error: unknown): DuplicateKeyError | undefined {
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' ? new DuplicateKeyError(e.constraint ?? 'unique') : undefined;
}

/** A unique violation as DuplicateKeyError (a write sent with the commit fails there). */
const mapped = (error: unknown): never => {
  throw duplicateKey(error) ?? error;
};

export function postgresDialect(pool: pg.Pool, db: Kysely<Database>, location: string): StoreDialect {
  const transactions = new PostgresTransactions(pool, db, new PreparedStatements());
  const statistics = keepStatistics(db, (message) =>
    process.stderr.write(`sandbox: cannot analyze the tables of ${location}: ${message}\n`),
  );
  return {
    name: 'postgres',
    location,
    db,
    reader: db,
    // Prepared statements on the pool, or on the transaction's connection. A write there is sent
    // with the writes after it and the commit (no caller reads a precompiled write's answer).
    precompile(query) {
      const compiled = query.compile();
      const { sql } = compiled;
      const expected = compiled.parameters.length;
      const write = compiled.query.kind !== 'SelectQueryNode';
      transactions.statements.add(sql);
      return (executor, parameters) => {
        if (parameters.length !== expected)
          throw new Error(`precompiled query: ${parameters.length} values for ${expected} parameters: ${sql}`);
        const statements = transactions.statementsOf(executor);
        if (!statements) return transactions.query(sql, parameters);
        if (!write) return statements.query(sql, parameters);
        void statements.send(sql, parameters);
        return Promise.resolve({ rows: [] });
      };
    },
    lockForUpdate,
    lockSkippingLocked,
    ensureClockRow,
    duplicateKey,
    transactions: (repositories) => (work) => transactions.run((tx) => work(repositories(tx))).catch(mapped),
    runTransaction: (work) => transactions.run(work).catch(mapped),
    runWrite: (work) => work(db),
    // Several processes write: a cache in one would not see the others' writes.
    documents: (reads) => reads,
    idempotency: leasedClaims(db, transactions),
    async close() {
      await statistics.stop();
      await db.destroy();
    },
  };
}
