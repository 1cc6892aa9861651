import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../schema.js';
import type { SqliteStatement } from './precompile.js';

/**
 * Group commit (SQLite): the transactions that arrive while one commit is being written run one
 * after another in the next database transaction, each in a savepoint of its own (a failing one
 * rolls back alone), and commit together. A commit costs about as much for ten as for one (its
 * pages go to the WAL file), so concurrent writers share it; every caller still hears back only
 * after its work is committed, so no acknowledged write can be lost. The savepoints are statements
 * of the batch's connection, run directly: Kysely's savepoint() makes a transaction object each time.
 */
/** The next turn of the event loop, after its I/O (setImmediate); a browser page has none: a zero timeout. */
const nextTurn: (work: () => void) => void =
  typeof setImmediate === 'function' ? (work) => setImmediate(work) : (work) => setTimeout(work, 0);

export class GroupCommit {
  private queue: Array<{
    work: (tx: Transaction<Database>) => Promise<unknown>;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }> = [];
  private running = false;
  private readonly savepoint: { open: SqliteStatement; release: SqliteStatement; rollback: SqliteStatement };
  constructor(
    private readonly db: Kysely<Database>,
    prepare: (sql: string) => SqliteStatement,
  ) {
    this.savepoint = {
      open: prepare('savepoint work'),
      release: prepare('release savepoint work'),
      rollback: prepare('rollback to savepoint work'),
    };
  }

  submit<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      // The batch starts after the requests that this turn of the event loop read have queued
      // their work (the writes themselves are synchronous: nothing would join a running batch).
      if (!this.running) {
        this.running = true;
        nextTurn(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 256);
        const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
        try {
          const trx = await this.db.startTransaction().execute();
          try {
            for (const item of batch) {
              this.savepoint.open.run([]);
              try {
                const value = await item.work(trx);
                this.savepoint.release.run([]);
                outcomes.push({ ok: true, value });
              } catch (error) {
                this.savepoint.rollback.run([]);
                this.savepoint.release.run([]);
                outcomes.push({ ok: false, error });
              }
            }
            await trx.commit().execute();
          } catch (error) {
            await trx
              .rollback()
              .execute()
              .catch(() => undefined);
            throw error;
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
          continue;
        }
        batch.forEach((item, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      }
    } finally {
      this.running = false;
    }
  }
}
