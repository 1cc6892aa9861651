// PostgreSQL's transactions: each on a pooled connection of its own (READ COMMITTED, concurrent,
// several processes), pipelined (connection.ts): the begin goes out with the first statement, the
// writes nobody reads go out with the commit. Alone, a create is then three round trips with its
// claim (claim; begin and the transId look-up; the writes and the commit) instead of seven; in a
// group commit (group-commit.ts), a share of them.
import { type Kysely, PostgresDialect, SingleConnectionProvider, Transaction } from 'kysely';
import type pg from 'pg';
import type { Db } from '../../dialect.js';
import type { Database } from '../../schema.js';
import { PipelinedConnection, type PreparedStatements, type Statements } from './connection.js';

/** A transaction's work, given its Kysely transaction and where its statements go. */
export type Work<T> = (tx: Transaction<Database>, statements: Statements) => Promise<T>;

export interface TransactionOptions {
  /** The commit does not wait for its WAL to reach the disk (see claims.ts). */
  asynchronousCommit?: boolean;
}

export class PostgresTransactions {
  /** Where the statements of each transaction under way go, by its Kysely transaction. */
  private readonly sinks = new WeakMap<Db, Statements>();
  private readonly dialect: PostgresDialect;
  private readonly driver: ReturnType<PostgresDialect['createDriver']>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly db: Kysely<Database>,
    readonly statements: PreparedStatements,
  ) {
    this.dialect = new PostgresDialect({ pool });
    // Never initialized: a transaction's queries go through the executor, on its connection.
    this.driver = this.dialect.createDriver();
  }

  /** Where a transaction's statements go, or undefined for the pool (each statement on its own). */
  statementsOf(executor: Db): Statements | undefined {
    return this.sinks.get(executor);
  }

  /** A statement outside any transaction, on a connection of the pool. */
  query<R = unknown>(text: string, values: readonly unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    return this.pool.query<R & pg.QueryResultRow>(this.statements.config(text, values));
  }

  /** Runs `work` on `statements`, as a Kysely transaction on them. */
  async on<T>(statements: Statements, work: Work<T>): Promise<T> {
    const tx = new Transaction<Database>({
      config: { dialect: this.dialect },
      dialect: this.dialect,
      driver: this.driver,
      executor: this.db.getExecutor().withConnectionProvider(new SingleConnectionProvider(statements)),
    });
    this.sinks.set(tx, statements);
    try {
      return await work(tx, statements);
    } finally {
      this.sinks.delete(tx);
    }
  }

  /** Runs `work` in a transaction of its own: committed when it resolves, rolled back when it throws. */
  run<T>(work: Work<T>, options: TransactionOptions = {}): Promise<T> {
    return this.connected((connection) => this.on(connection, work), options);
  }

  /** A database transaction on a connection of the pool, around `work`. */
  async connected<T>(work: (connection: PipelinedConnection) => Promise<T>, options: TransactionOptions): Promise<T> {
    const client = await this.pool.connect();
    const connection = new PipelinedConnection(client, this.statements);
    let broken: Error | undefined;
    // A connection that breaks while it is checked out (the server ended the session) fails its
    // statements; its client's error event, which the pool listens to only while the client is
    // idle, would otherwise end the process. The pool then drops it.
    const dropped = (error: Error) => {
      broken ??= error;
    };
    client.on('error', dropped);
    try {
      connection.send('begin');
      if (options.asynchronousCommit) connection.send('set local synchronous_commit = off');
      const value = await work(connection);
      await connection.commit();
      return value;
    } catch (error) {
      await connection.rollback().catch((e: Error) => {
        broken = e; // the pool drops the connection
      });
      throw error;
    } finally {
      client.removeListener('error', dropped);
      client.release(broken);
    }
  }
}
