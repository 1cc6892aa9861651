// The PostgreSQL dialect: several sandbox processes share the database, so transactions run
// concurrently (READ COMMITTED) on a pool, claims are leases in the database, and locking reads
// serialize the writers of one record across processes. Transactions are pipelined, the hot
// statements prepared (transactions.ts, connection.ts), and concurrent ones share a commit
// (group-commit.ts).
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { StoreDialect } from '../../dialect.js';
import type { Database } from '../../schema.js';
import { DuplicateKeyError } from '../../store.js';
import { leasedClaims } from './claims.js';
import { PreparedStatements } from './connection.js';
import { GroupCommit } from './group-commit.js';
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

/**
 * Group commit's shape: two batches under way (one fills while PostgreSQL works on the other), of
 * up to 32 transactions (a batch's locks and writes are held until its commit).
 */
const BATCHES = { batches: 2, size: 32 };

export function postgresDialect(pool: pg.Pool, db: Kysely<Database>, location: string): StoreDialect {
  const transactions = new PostgresTransactions(pool, db, new PreparedStatements());
  const groupCommit = new GroupCommit(transactions, BATCHES);
  const statistics = keepStatistics(db, (message) =>
    process.stderr.write(`sandbox: cannot analyze the tables of ${location} (autovacuum will): ${message}\n`),
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
    async ensureClockRow(db, scope) {
      await transactions.statementsOf(db)?.beforeLock();
      await ensureClockRow(db, scope);
    },
    duplicateKey,
    transactions: (repositories) => (work) => groupCommit.submit((tx) => work(repositories(tx))).catch(mapped),
    runTransaction: (work) => transactions.run(work).catch(mapped),
    runWrite: (work) => work(db),
    // Several processes write: a cache in one would not see the others' writes.
    documents: (reads) => reads,
    idempotency: leasedClaims(
      db,
      transactions,
      new GroupCommit(transactions, { ...BATCHES, asynchronousCommit: true }),
    ),
    async close() {
      await statistics.stop();
      await db.destroy();
    },
  };
}
