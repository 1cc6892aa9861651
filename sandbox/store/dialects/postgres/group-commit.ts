// Group commit (PostgreSQL): the transactions that arrive while others run share one database
// transaction on one connection, their statements interleaved on its pipeline (connection.ts): the
// begin and the first reads of a batch go out in one write, its writes with one commit, and every
// caller hears back after that commit. A create then costs a share of a round trip and of a commit
// instead of two of each.
//
// Isolation. A failure anywhere in a batch (a statement, or a work that throws) aborts the whole
// database transaction: the batch rolls back and each of its transactions runs again alone, where
// a failing one fails alone and the others commit, as if they had come a moment later (the works
// are database work only, which the pipeline already runs again after a unique-key race). Only if
// the connection broke once the commit was sent (it may have committed) do they all fail instead.
// A transaction that takes a row lock (FOR UPDATE, SKIP LOCKED) runs alone too: in a shared
// database transaction a lock would not keep two of the batch's transactions apart. Refused at its
// first locking read (or at the row it prepares for one, a test clock's) before it sent anything,
// it leaves the batch intact (a payment's change locks the payment first); else the batch runs
// again alone. Savepoints, as SQLite's group commit uses, would isolate a failure without that
// second run, but a savepoint covers every statement sent after it: the batch's transactions would
// have to run one after the other, each read a round trip of its own.
import type { CompiledQuery, QueryResult } from 'kysely';
import type pg from 'pg';
import {
  CommitOutcomeUnknown,
  type ErrorOf,
  kyselyResult,
  type PipelinedConnection,
  type Statements,
} from './connection.js';
import type { PostgresTransactions, TransactionOptions, Work } from './transactions.js';

interface Pending {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions extends TransactionOptions {
  /** Batches under way at once, each on a connection of its own. */
  batches: number;
  /** Transactions in one batch at most. */
  size: number;
}

/** A locking read in a batch: the transaction is to run alone. */
class RunAlone extends Error {}
/** A batch that cannot commit: one of its transactions, or a statement, failed. */
class BatchFailed extends Error {}

/** One transaction's share of a batch's connection: what it sent, and its locking reads refused. */
class Share implements Statements {
  sent = 0;
  constructor(private readonly connection: PipelinedConnection) {}

  /** A write (never a locking read). */
  send(text: string, values?: readonly unknown[], errorOf?: ErrorOf): Promise<pg.QueryResult | undefined> {
    this.sent++;
    return this.connection.send(text, values, errorOf);
  }

  query<R = unknown>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    if (this.connection.statements.locks(text)) return Promise.reject(new RunAlone());
    this.sent++;
    return this.connection.query<R>(text, values);
  }

  beforeLock(): Promise<void> {
    return Promise.reject(new RunAlone());
  }

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return kyselyResult(this.query<R>(compiled.sql, compiled.parameters));
  }

  // biome-ignore lint/correctness/useYield: no statement of the sandbox streams its rows
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on a pipelined connection');
  }
}

export class GroupCommit {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly transactions: PostgresTransactions,
    private readonly options: GroupCommitOptions,
  ) {}

  submit<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** A batch starts after the requests that this turn of the event loop read have queued their work. */
  private schedule(): void {
    if (this.scheduled || this.running >= this.options.batches || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.running < this.options.batches && this.queue.length > 0) {
        this.running++;
        void this.run(this.queue.splice(0, this.options.size)).finally(() => {
          this.running--;
          this.schedule();
        });
      }
    });
  }

  private async run(batch: Pending[]): Promise<void> {
    let alone = batch;
    if (batch.length > 1) {
      try {
        const outcomes = await this.transactions.connected(async (connection) => {
          const shares = batch.map(() => new Share(connection));
          const settled = await Promise.allSettled(batch.map((item, i) => this.transactions.on(shares[i]!, item.work)));
          for (const [i, outcome] of settled.entries())
            if (outcome.status === 'rejected' && !(outcome.reason instanceof RunAlone && shares[i]!.sent === 0))
              throw new BatchFailed();
          return settled;
        }, this.options);
        alone = [];
        for (const [i, outcome] of outcomes.entries()) {
          if (outcome.status === 'fulfilled') batch[i]!.resolve(outcome.value);
          else alone.push(batch[i]!);
        }
      } catch (error) {
        // Run again only what surely did not commit.
        if (error instanceof CommitOutcomeUnknown) {
          for (const item of batch) item.reject(error);
          return;
        }
        alone = batch;
      }
    }
    await Promise.all(
      alone.map((item) => this.transactions.run(item.work, this.options).then(item.resolve, item.reject)),
    );
  }
}
