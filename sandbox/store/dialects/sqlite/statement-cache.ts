// better-sqlite3's statements are reusable; Kysely prepares one for every query it runs. The cache
// prepares each SQL text once per connection. The store's SQL texts are a fixed set (values are
// parameters), but the cache is bounded all the same, in entries and in characters of SQL: past
// either bound it starts over.
import type Database from 'better-sqlite3';

/** A better-sqlite3 statement, as far as the store runs one itself. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): unknown;
}

/** Statements kept at most per connection. */
export const STATEMENT_CACHE_LIMIT = 1_000;
/** Characters of SQL kept at most per connection. */
export const STATEMENT_CACHE_CHARACTERS = 4 * 1024 * 1024;

/** The connection as Kysely's SqliteDialect takes it, with `prepare` going through the cache. */
export function withStatementCache(
  database: Database.Database,
  limits = { entries: STATEMENT_CACHE_LIMIT, characters: STATEMENT_CACHE_CHARACTERS },
) {
  const statements = new Map<string, Database.Statement>();
  let characters = 0;
  return {
    close: () => database.close(),
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (statements.size >= limits.entries || characters + sql.length > limits.characters) {
          statements.clear();
          characters = 0;
        }
        statements.set(sql, statement);
        characters += sql.length;
      }
      return statement;
    },
    /** How many statements are kept. */
    get size() {
      return statements.size;
    },
  };
}
