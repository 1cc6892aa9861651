// What differs between the store's two databases, chosen once where the store opens (index.ts):
// dialects/sqlite/, where one process owns the file (group commit, idempotency claims held in the
// process, the payment-document cache, statements run on better-sqlite3 directly), and
// dialects/postgres/, which several processes share (claims with leases, row locks). The
// repositories and the store built on them see only this interface, and never ask which database
// they run on.
import type { CompiledQuery, Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Payment, Scope } from '../domain/types.js';
import type { Database } from './schema.js';
import type { Dialect, DuplicateKeyError, IdempotencyStore, Store, StoreTransaction } from './store.js';

/** Where a query runs: a connection, or a transaction. */
export type Db = Kysely<Database> | Transaction<Database>;

/**
 * A query compiled once, run with each call's values in the same positions: the hot paths (GET a
 * payment, create one) build no query per call.
 */
export type Precompiled<Row> = (executor: Db, parameters: readonly unknown[]) => Promise<{ rows: Row[] }>;

/** What a transaction's repositories report of the payments they write (SQLite's document cache forgets them once it has ended). */
export interface PaymentWrites {
  payment(payment: Pick<Payment, 'scope' | 'payId' | 'transId'>): void;
  /** Set by a reset: any payment may have changed. */
  all: boolean;
}

/** The repositories of one transaction; `written` hears of the payments they write. */
export type RepositoriesOf = (tx: Transaction<Database>, written?: PaymentWrites) => StoreTransaction;

/** GET's reads of a payment document. */
export type DocumentReads = Pick<Store, 'paymentDocument' | 'paymentDocumentByTransId'>;

/** Where an Idempotency-Key's claim lives until the work it answers has committed. */
export interface DialectIdempotency {
  claim: IdempotencyStore['claim'];
  release: IdempotencyStore['release'];
  /** Records the response of a claimed key on `db`, the work's transaction. */
  complete(db: Db, ref: Parameters<StoreTransaction['idempotency']['complete']>[0]): Promise<void>;
}

export interface StoreDialect {
  readonly name: Dialect;
  /** Where the data lives, for messages (Store.location). */
  readonly location: string;
  /** The connection of every transaction and write. */
  readonly db: Kysely<Database>;
  /** The connection of reads outside transactions (on a SQLite file a second one, which WAL lets read beside the writer's transactions). */
  readonly reader: Kysely<Database>;
  /** Compiles `query` once (its values placeholders); the result runs it on the executor it is given. */
  precompile<Row>(query: { compile(): CompiledQuery<Row> }): Precompiled<Row>;
  /** `query` holding the rows it reads until the transaction ends, so that writers of one record serialize. */
  lockForUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** `query` taking only rows that no other transaction holds, and holding them: two processes never take the same row. */
  lockSkippingLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Before a locking read of a scope's clock: gives the lock a row to hold, even for a clock never advanced. */
  ensureClockRow(db: Db, scope: Scope): Promise<void>;
  /** A unique violation of this database as DuplicateKeyError; undefined for any other error. */
  duplicateKey(error: unknown): DuplicateKeyError | undefined;
  /** Store.transaction, given how to make a transaction's repositories (called once, at open). */
  transactions(repositories: RepositoriesOf): Store['transaction'];
  /** Runs `work` in a transaction of its own. */
  runTransaction<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** Runs a write that belongs to no caller's transaction. */
  runWrite<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** GET's document reads as the store serves them, given the reads from the database (called once, at open). */
  documents(reads: DocumentReads): DocumentReads;
  readonly idempotency: DialectIdempotency;
  close(): Promise<void>;
}
