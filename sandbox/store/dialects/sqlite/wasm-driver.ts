// SQLite compiled to WebAssembly (sql.js) behind the part of better-sqlite3's API that the store
// uses: what Kysely's SqliteDialect calls, the statements precompile.ts and group commit run
// themselves, and open.ts's pragmas. It holds a `:memory:` store on a machine where the native
// module cannot be built or loaded. sql.js keeps every statement it prepared in WebAssembly memory
// until it is freed, and Kysely prepares each query it runs, so statements are shared by their SQL
// text and the least recently used are freed past a bound.
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type { Database as SqlJsDatabase, Statement as SqlJsStatement, SqlJsStatic, SqlValue } from 'sql.js';

/** The subset of a better-sqlite3 database that the store uses; better-sqlite3's Database is one. */
export interface SqliteLike extends SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  pragma(source: string): unknown;
}

/** The name of sql.js's WebAssembly module, which a bundle carries beside itself (see wasmFile). */
export const SQL_WASM = 'sql-wasm.wasm';

/** Statements kept prepared at once; one evicted is prepared again when next run. */
const PREPARED_LIMIT = 256;

/** An error with the `code` better-sqlite3 gives (its SqliteError): dialect.ts tells duplicate keys by it. */
export class WasmSqliteError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

/**
 * sql.js reports a failure by SQLite's message alone (no result code): the codes, by message, of the
 * failures the store can meet. A UNIQUE failure on the table's primary key is told apart by the
 * columns it names (see WasmDatabase.error).
 */
const CODES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^UNIQUE constraint failed: /, 'SQLITE_CONSTRAINT_UNIQUE'],
  [/^NOT NULL constraint failed: /, 'SQLITE_CONSTRAINT_NOTNULL'],
  [/^FOREIGN KEY constraint failed/, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
  [/^CHECK constraint failed: /, 'SQLITE_CONSTRAINT_CHECK'],
  [/^database is locked/, 'SQLITE_BUSY'],
  [/^out of memory/, 'SQLITE_NOMEM'],
];

/**
 * A value as SQLite binds it, as better-sqlite3 would (undefined is NULL, a bigint an integer) or,
 * where it refuses, as SQLite stores it (a boolean is 1 or 0). sql.js would bind a bigint as text and
 * throw a string at undefined.
 */
function bindable(value: unknown): SqlValue {
  switch (typeof value) {
    case 'string':
    case 'number':
      return value;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'boolean':
      return value ? 1 : 0;
    case 'undefined':
      return null;
    default:
      if (value === null || value instanceof Uint8Array) return value;
      throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null');
  }
}

/** A statement of WasmDatabase: better-sqlite3's shape, on the sql.js statement of its SQL text. */
class WasmStatement implements SqliteStatement {
  constructor(
    private readonly database: WasmDatabase,
    private readonly sql: string,
    readonly reader: boolean,
  ) {}

  all(parameters: readonly unknown[]): unknown[] {
    return this.database.execute(this.sql, parameters, (statement) => {
      const rows: unknown[] = [];
      while (statement.step()) rows.push(statement.getAsObject());
      return rows;
    });
  }

  run(parameters: readonly unknown[]): { changes: number; readonly lastInsertRowid: number } {
    const database = this.database;
    database.execute(this.sql, parameters, (statement) => {
      while (statement.step());
    });
    return {
      changes: database.changes(),
      // A query of its own (sql.js has no call for it), run when read: Kysely reads it at once, the
      // store's precompiled statements never do.
      get lastInsertRowid() {
        return database.lastInsertRowid();
      },
    };
  }

  /**
   * The rows at once: a statement is shared by its SQL text and must be reset before another one
   * runs, so it cannot stay open between the iterator's steps. The store streams no query.
   */
  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    return this.all(parameters)[Symbol.iterator]();
  }
}

class WasmDatabase implements SqliteLike {
  /** The prepared statements by SQL text, least recently used first, and whether each returns rows. */
  private readonly prepared = new Map<string, { statement: SqlJsStatement; reader: boolean }>();

  constructor(private readonly db: SqlJsDatabase) {}

  prepare(sql: string): WasmStatement {
    return new WasmStatement(this, sql, this.preparedOf(sql).reader);
  }

  pragma(source: string): unknown[] {
    const statement = this.prepare(`pragma ${source}`);
    if (statement.reader) return statement.all([]);
    statement.run([]);
    return [];
  }

  close(): void {
    this.prepared.clear();
    this.db.close(); // frees every statement it prepared
  }

  /** Binds `parameters` to the statement of `sql`, lets `use` step it, and resets it whatever happens. */
  execute<T>(sql: string, parameters: readonly unknown[], use: (statement: SqlJsStatement) => T): T {
    const { statement } = this.preparedOf(sql);
    try {
      statement.bind(parameters.map(bindable));
      return use(statement);
    } catch (error) {
      throw this.error(error);
    } finally {
      statement.reset();
    }
  }

  changes(): number {
    return this.db.getRowsModified();
  }

  lastInsertRowid(): number {
    return this.execute('select last_insert_rowid()', [], (s) => (s.step() ? Number(s.get()[0]) : 0));
  }

  /** The statement of `sql`, prepared now or earlier; the least recently used is freed past the bound. */
  private preparedOf(sql: string): { statement: SqlJsStatement; reader: boolean } {
    let entry = this.prepared.get(sql);
    if (entry) {
      this.prepared.delete(sql);
    } else {
      try {
        const statement = this.db.prepare(sql);
        entry = { statement, reader: statement.getColumnNames().length > 0 };
      } catch (error) {
        throw this.error(error);
      }
      if (this.prepared.size >= PREPARED_LIMIT) {
        const [oldest, evicted] = this.prepared.entries().next().value!;
        this.prepared.delete(oldest);
        evicted.statement.free();
      }
    }
    this.prepared.set(sql, entry);
    return entry;
  }

  /** sql.js's failure (an Error, or a string for a misuse) as better-sqlite3's, with its code. */
  private error(error: unknown): Error {
    if (error instanceof WasmSqliteError || error instanceof TypeError) return error;
    const message = error instanceof Error ? error.message : String(error);
    let code = CODES.find(([pattern]) => pattern.test(message))?.[1] ?? 'SQLITE_ERROR';
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' && this.isPrimaryKey(message)) code = 'SQLITE_CONSTRAINT_PRIMARYKEY';
    return new WasmSqliteError(message, code);
  }

  /** Whether "UNIQUE constraint failed: t.a, t.b" names exactly the primary key of t. */
  private isPrimaryKey(message: string): boolean {
    const columns = message.slice('UNIQUE constraint failed: '.length).split(', ');
    const table = columns[0]?.split('.')[0];
    if (!table || columns.some((c) => c.split('.')[0] !== table)) return false;
    const result = this.db.exec('select name from pragma_table_info(?) where pk > 0 order by pk', [table]);
    const key = (result[0]?.values ?? []).map(([name]) => `${table}.${String(name)}`);
    return key.length === columns.length && key.every((c, i) => c === columns[i]);
  }
}

/** A new, empty in-memory SQLite database on `SQL`, a compiled sql.js (wasm-node.ts loads one in Node; a page, from its URL). */
export function wasmDatabase(SQL: SqlJsStatic): SqliteLike {
  return new WasmDatabase(new SQL.Database());
}
