// A pg client in pipeline mode (open.ts) as a transaction's connection: a statement is written
// behind those still unanswered instead of waiting for them, and the statements of one turn of the
// event loop go out in one write, so that a transaction's begin and its first read, or its writes
// and its commit, cost one round trip and one system call. Writes whose answer nobody reads are
// sent without waiting (send); their error is thrown by the next statement awaited, or the commit.
// The hot statements run as named prepared statements: parsed and planned once per connection,
// not per call.
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type pg from 'pg';

/** A locking read (FOR UPDATE, FOR SHARE, … SKIP LOCKED). */
const LOCKING = /\bfor\s+(no\s+key\s+update|update|key\s+share|share)\b/i;

/** The SQL texts run as named prepared statements, and their names. */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  add(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `sandbox_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }
  /** `text` with its values, by name when it is one of them. */
  config(text: string, values: readonly unknown[] | undefined): pg.QueryConfig {
    const name = this.names.get(text);
    return { text, values: values as unknown[], name };
  }
  /** Whether `text` holds the rows it reads (compiled by the dialect's lockForUpdate or lockSkippingLocked). */
  locks(text: string): boolean {
    return LOCKING.test(text);
  }
}

/** The error a statement's failure stands for (its own, unless given). */
export type ErrorOf = (error: unknown) => unknown;

/** Where a transaction's statements go: its connection, or one transaction's share of a batch's (group-commit.ts). */
export interface Statements extends DatabaseConnection {
  /**
   * Sends a statement without waiting for its answer. Its error (as `errorOf` gives it) aborts the
   * transaction in PostgreSQL, so that the commit sent after it only rolls back, and is thrown by
   * the next statement awaited or the commit. Resolves to the answer, or undefined after an error.
   */
  send(text: string, values?: readonly unknown[], errorOf?: ErrorOf): Promise<pg.QueryResult | undefined>;
  /** Runs a statement and waits for its answer; the first failure of the statements sent before it is thrown instead. */
  query<R = unknown>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>>;
  /** Before the writes that prepare a locking read (a row for it to hold): refused where a lock is (group-commit.ts). */
  beforeLock(): Promise<void>;
}

/** The connection broke once the commit was sent: the transaction may have committed, or not. */
export class CommitOutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super(`the connection to PostgreSQL broke during a commit: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = 'CommitOutcomeUnknown';
  }
}

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** A statement's answer as Kysely takes it. */
export async function kyselyResult<R>(answer: Promise<pg.QueryResult<R & pg.QueryResultRow>>): Promise<QueryResult<R>> {
  const { command, rowCount, rows } = await answer;
  return { rows: rows ?? [], numAffectedRows: WRITES.has(command) ? BigInt(rowCount ?? 0) : undefined };
}

export class PipelinedConnection implements Statements {
  /** Statements sent and not answered yet. */
  private readonly unanswered = new Set<Promise<unknown>>();
  private failure: unknown;
  private corked = false;
  /** The commit (or rollback) was sent: the transaction has ended, whatever its answer. */
  private ended = false;

  constructor(
    readonly client: pg.PoolClient,
    readonly statements: PreparedStatements,
  ) {}

  send(text: string, values?: readonly unknown[], errorOf?: ErrorOf): Promise<pg.QueryResult | undefined> {
    const answer = this.submit(text, values).then(
      (result) => result,
      (error: unknown) => {
        this.failure ??= errorOf ? errorOf(error) : error;
        return undefined;
      },
    );
    this.unanswered.add(answer);
    void answer.then(() => this.unanswered.delete(answer));
    return answer;
  }

  async query<R = unknown>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    // Answers come in order: those sent before this one have arrived when it does.
    const earlier = [...this.unanswered];
    let result: pg.QueryResult<R & pg.QueryResultRow>;
    try {
      result = await this.submit<R>(text, values);
    } catch (error) {
      await Promise.all(earlier);
      this.failure ??= error; // the transaction is aborted: what follows fails for this reason
      throw this.failure;
    }
    await Promise.all(earlier);
    if (this.failure) throw this.failure;
    return result;
  }

  /**
   * Writes a statement. pg writes each statement on its own (a system call each, which costs more
   * than the statement on a small virtual machine); the socket stays corked until the promises
   * this turn of the event loop settled have run their continuations (a next tick queued from a
   * microtask runs after the microtask queue drains), so that the statements they send go out in
   * one write: a batch's begin and first reads, its writes and its commit.
   */
  private submit<R = unknown>(text: string, values?: readonly unknown[]) {
    if (!this.corked) {
      const { stream } = this.client.connection;
      stream.cork();
      this.corked = true;
      queueMicrotask(() =>
        process.nextTick(() => {
          this.corked = false;
          stream.uncork();
        }),
      );
    }
    return this.client.query<R & pg.QueryResultRow>(this.statements.config(text, values));
  }

  async beforeLock(): Promise<void> {}

  /** Commits, with the writes still unanswered: if one of them failed, PostgreSQL only rolls back. */
  async commit(): Promise<void> {
    if (this.failure) throw this.failure;
    this.ended = true;
    const earlier = [...this.unanswered];
    let result: pg.QueryResult;
    try {
      result = await this.submit('commit');
    } catch (error) {
      await Promise.all(earlier);
      // PostgreSQL's errors carry a SQLSTATE; without one the connection broke, maybe after the commit.
      throw (error as { code?: string }).code === undefined ? new CommitOutcomeUnknown(error) : error;
    }
    await Promise.all(earlier);
    if (result.command === 'ROLLBACK' || this.failure)
      throw this.failure ?? new Error('the transaction was rolled back');
  }

  /** Rolls back (unless the commit was sent), after every answer; rejects only when the rollback itself failed. */
  async rollback(): Promise<void> {
    const rolledBack = this.ended ? undefined : this.submit('rollback');
    this.ended = true;
    await Promise.all([...this.unanswered]);
    await rolledBack;
  }

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return kyselyResult(this.query<R>(compiled.sql, compiled.parameters));
  }

  // biome-ignore lint/correctness/useYield: no statement of the sandbox streams its rows
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on a pipelined connection');
  }
}
