// The PostgreSQL dialect: several sandbox processes share the database, so transactions run
// concurrently (READ COMMITTED) on a pool, claims are leases in the database, and locking reads
// serialize the writers of one record across processes.
import type { Kysely } from 'kysely';
import type { StoreDialect } from '../../dialect.js';
import type { Database } from '../../schema.js';
import { DuplicateKeyError } from '../../store.js';
import { leasedClaims } from './claims.js';
import { ensureClockRow, lockForUpdate, lockSkippingLocked } from './row-locks.js';
import { keepStatistics } from './statistics.js';

/** Unique violations (SQLSTATE 23505) as DuplicateKeyError. */
function duplicateKey(error: unknown): DuplicateKeyError | undefined {
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' ? new DuplicateKeyError(e.constraint ?? 'unique') : undefined;
}

export function postgresDialect(db: Kysely<Database>, location: string): StoreDialect {
  const statistics = keepStatistics(db, (message) =>
    process.stderr.write(`sandbox: cannot analyze the tables of ${location}: ${message}\n`),
  );
  return {
    name: 'postgres',
    location,
    db,
    reader: db,
    // Through Kysely's executor, with each call's values.
    precompile(query) {
      const compiled = query.compile();
      const expected = compiled.parameters.length;
      return (executor, parameters) => {
        if (parameters.length !== expected)
          throw new Error(`precompiled query: ${parameters.length} values for ${expected} parameters: ${compiled.sql}`);
        return executor.executeQuery({ ...compiled, parameters });
      };
    },
    lockForUpdate,
    lockSkippingLocked,
    ensureClockRow,
    duplicateKey,
    transactions: (repositories) => (work) => db.transaction().execute((tx) => work(repositories(tx))),
    runTransaction: (work) => db.transaction().execute(work),
    runWrite: (work) => work(db),
    // Several processes write: a cache in one would not see the others' writes.
    documents: (reads) => reads,
    idempotency: leasedClaims(db),
    async close() {
      await statistics.stop();
      await db.destroy();
    },
  };
}
