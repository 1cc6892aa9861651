// The store's layout (sandbox/store/): files small enough to read whole, and each database's
// particulars in its dialect folder. The repositories and the store built on them receive a dialect
// (sandbox/store/dialect.ts) and never ask which database they run on; only index.ts, which opens
// the store, picks a dialect folder.
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';

const STORE = 'sandbox/store';
const MAX_LINES = 300;

interface StoreFile {
  /** Relative to the repository, with `/`. */
  path: string;
  text: string;
}

/** What only a dialect folder may say, with the reason. */
const DIALECT_ONLY: Array<{ pattern: RegExp; what: string }> = [
  {
    pattern: /from\s+['"](better-sqlite3|pg)['"]|import\(\s*['"](better-sqlite3|pg)['"]\s*\)/,
    what: 'imports a database driver',
  },
  { pattern: /\b(SqliteDialect|PostgresDialect)\b/, what: "names one of Kysely's dialects" },
  { pattern: /\.\s*(forUpdate|skipLocked)\s*\(/, what: 'takes a row lock' },
  { pattern: /===?\s*['"](sqlite|postgres)['"]|['"](sqlite|postgres)['"]\s*===?/, what: 'branches on the database' },
];

function problems(files: StoreFile[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) out.push(`${path}: ${lines} lines (at most ${MAX_LINES})`);
    const inDialect = path.startsWith(`${STORE}/dialects/`);
    if (!inDialect) {
      for (const { pattern, what } of DIALECT_ONLY)
        if (pattern.test(text)) out.push(`${path} ${what}: that belongs in ${STORE}/dialects/`);
      if (path !== `${STORE}/index.ts` && /from\s+['"][./]*\/?dialects\//.test(text))
        out.push(`${path} imports a dialect folder: only ${STORE}/index.ts picks one`);
    } else {
      const [own] = path.slice(`${STORE}/dialects/`.length).split('/');
      for (const [, other] of text.matchAll(/from\s+['"]\.\.\/(\w+)\//g))
        if (other !== own) out.push(`${path} imports the ${other} dialect`);
    }
  }
  return out;
}

function storeFiles(): StoreFile[] {
  return readdirSync(join(REPO_ROOT, STORE), { recursive: true, encoding: 'utf8' })
    .filter((entry) => entry.endsWith('.ts'))
    .map((entry) => `${STORE}/${entry.split(sep).join('/')}`)
    .map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));
}

describe('the store layout', () => {
  const files = storeFiles();

  it('sees every file of the store, the dialect folders included', () => {
    const paths = files.map((f) => f.path);
    expect(paths).toContain(`${STORE}/store.ts`);
    expect(paths.filter((p) => p.startsWith(`${STORE}/dialects/sqlite/`)).length).toBeGreaterThan(3);
    expect(paths.filter((p) => p.startsWith(`${STORE}/dialects/postgres/`)).length).toBeGreaterThan(1);
    expect(paths.filter((p) => p.startsWith(`${STORE}/repositories/`)).length).toBeGreaterThan(8);
  });

  it('catches each kind of misplaced code (counter-examples)', () => {
    const long = `${Array.from({ length: MAX_LINES + 1 }, (_, i) => `const line${i} = ${i};`).join('\n')}\n`;
    const found = problems([
      { path: `${STORE}/kysely-store.ts`, text: long },
      { path: `${STORE}/dialects/sqlite/group-commit.ts`, text: long.split('\n').slice(1).join('\n') },
      {
        path: `${STORE}/repositories/payments.ts`,
        text: "import Database from 'better-sqlite3';\nconst row = await query.forUpdate().execute();\n",
      },
      {
        path: `${STORE}/repositories/webhooks.ts`,
        text: "const rows = await (dialect === 'postgres' ? due.skipLocked() : due).execute();\n",
      },
      {
        path: `${STORE}/query.ts`,
        text: "import pg from 'pg';\nimport { inProcessClaims } from './dialects/sqlite/claims.js';\n",
      },
      {
        path: `${STORE}/index.ts`,
        text: "import { Kysely, SqliteDialect } from 'kysely';\nimport { openSqlite } from './dialects/sqlite/open.js';\n",
      },
      {
        path: `${STORE}/dialects/postgres/claims.ts`,
        text: "import { GroupCommit } from '../sqlite/group-commit.js';\n",
      },
      {
        path: `${STORE}/dialects/postgres/row-locks.ts`,
        text: "import pg from 'pg';\nexport const lock = (q) => q.forUpdate().skipLocked();\n",
      },
    ]);
    expect(found).toEqual([
      `${STORE}/kysely-store.ts: ${MAX_LINES + 1} lines (at most ${MAX_LINES})`,
      `${STORE}/repositories/payments.ts imports a database driver: that belongs in ${STORE}/dialects/`,
      `${STORE}/repositories/payments.ts takes a row lock: that belongs in ${STORE}/dialects/`,
      `${STORE}/repositories/webhooks.ts takes a row lock: that belongs in ${STORE}/dialects/`,
      `${STORE}/repositories/webhooks.ts branches on the database: that belongs in ${STORE}/dialects/`,
      `${STORE}/query.ts imports a database driver: that belongs in ${STORE}/dialects/`,
      `${STORE}/query.ts imports a dialect folder: only ${STORE}/index.ts picks one`,
      `${STORE}/index.ts names one of Kysely's dialects: that belongs in ${STORE}/dialects/`,
      `${STORE}/dialects/postgres/claims.ts imports the sqlite dialect`,
    ]);
  });

  it('holds in the repository', () => {
    expect(problems(files)).toEqual([]);
  });
});
