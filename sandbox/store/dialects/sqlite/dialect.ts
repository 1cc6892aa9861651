// The SQLite dialect: one process owns the file (see owner-lock.ts), so its transactions run one
// at a time through group commit, its Idempotency-Key claims live in the process, and GET's
// documents are cached in front of the reader.
import type { Kysely, Transaction } from 'kysely';
import type { RepositoriesOf, StoreDialect } from '../../dialect.js';
import type { Database } from '../../schema.js';
import { DuplicateKeyError, type StoreTransaction } from '../../store.js';
import { inProcessClaims } from './claims.js';
import { byPayId, byTransId, DocumentCache, WrittenPayments } from './document-cache.js';
import { GroupCommit } from './group-commit.js';
import { precompiler, type SqliteConnections } from './precompile.js';

/** Unique violations as DuplicateKeyError. */
function duplicateKey(error: unknown): DuplicateKeyError | undefined {
  const e = error as { code?: string; message?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return new DuplicateKeyError(e.message ?? 'unique');
  return undefined;
}

export function sqliteDialect(
  db: Kysely<Database>,
  location: string,
  connections: SqliteConnections,
  close: () => Promise<void>,
): StoreDialect {
  const precompile = precompiler(connections);
  const groupCommit = new GroupCommit(db, connections.prepare.writer);
  const documents = new DocumentCache();
  return {
    name: 'sqlite',
    location,
    db,
    reader: connections.reader,
    precompile,
    // Transactions run one at a time (group commit): nothing to lock, nobody to skip.
    lockForUpdate: (query) => query,
    lockSkippingLocked: (query) => query,
    ensureClockRow: async () => undefined,
    duplicateKey,
    transactions(repositories: RepositoriesOf) {
      /**
       * The repositories of a group-commit batch, made once for all of its transactions (they run
       * one after another), and what the batch wrote, which the cache forgets once it has ended.
       */
      let batch: { tx: Transaction<Database>; written: WrittenPayments; repositories: StoreTransaction } | undefined;
      const batchOf = (tx: Transaction<Database>) => {
        if (batch?.tx !== tx) {
          const written = new WrittenPayments();
          batch = { tx, written, repositories: repositories(tx, written) };
        }
        return batch;
      };
      return (work) => {
        let written: WrittenPayments | undefined;
        return groupCommit
          .submit((tx) => {
            const current = batchOf(tx);
            written = current.written;
            return work(current.repositories);
          })
          .finally(() => written && documents.forget(written));
      };
    },
    runTransaction: (work) => groupCommit.submit(work),
    // The writer's connection is the batch's: a write outside a transaction joins the next batch.
    runWrite: (work) => groupCommit.submit(work),
    documents: (reads) => ({
      paymentDocument: (scope, payId) =>
        documents.read(byPayId(scope, payId), () => reads.paymentDocument(scope, payId)),
      paymentDocumentByTransId: (scope, transId) =>
        documents.read(byTransId(scope, transId), () => reads.paymentDocumentByTransId(scope, transId)),
    }),
    idempotency: inProcessClaims(db, connections.reader, precompile),
    close,
  };
}
