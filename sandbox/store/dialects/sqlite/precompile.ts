// SQLite's precompiled queries (StoreDialect.precompile) run on the driver directly (better-sqlite3,
// or its stand-in on sql.js, wasm-driver.ts): it is synchronous, and Kysely's executor would cost a
// chain of promises per statement.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Db, Precompiled } from '../../dialect.js';
import type { Database } from '../../schema.js';

/** A better-sqlite3 statement (or wasm-driver.ts's), as far as the store runs one itself. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): unknown;
}

/**
 * SQLite's two connections (see open.ts): the Kysely instance that reads beside the writer, and how each
 * connection prepares a statement.
 */
export interface SqliteConnections {
  reader: Kysely<Database>;
  prepare: { writer: (sql: string) => SqliteStatement; reader: (sql: string) => SqliteStatement };
}

/**
 * A query compiled once, with placeholder values, and run with each call's values in the same
 * positions. Its connection follows the executor: the reader's, or else the writer's, which on
 * SQLite is the connection of every transaction.
 */
export function precompiler(sqlite: SqliteConnections) {
  return function precompile<Row>(query: { compile(): CompiledQuery<Row> }): Precompiled<Row> {
    const compiled = query.compile();
    const expected = compiled.parameters.length;
    const direct = {
      writer: sqlite.prepare.writer(compiled.sql),
      reader: compiled.query.kind === 'SelectQueryNode' ? sqlite.prepare.reader(compiled.sql) : undefined,
    };
    return (executor: Db, parameters: readonly unknown[]): Promise<{ rows: Row[] }> => {
      if (parameters.length !== expected)
        throw new Error(`precompiled query: ${parameters.length} values for ${expected} parameters: ${compiled.sql}`);
      const statement = (executor === sqlite.reader && direct.reader) || direct.writer;
      try {
        if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as Row[] });
        statement.run(parameters);
        return Promise.resolve({ rows: [] });
      } catch (error) {
        return Promise.reject(error);
      }
    };
  };
}
