// better-sqlite3's statements are reusable; Kysely prepares one for every query it runs. The cache
// prepares each SQL text once per connection.
import type Database from 'better-sqlite3';

/** A better-sqlite3 statement, as far as the store runs one itself. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): unknown;
}

/** The connection as Kysely's SqliteDialect takes it, with `prepare` going through the cache. */
export function withStatementCache(database: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
