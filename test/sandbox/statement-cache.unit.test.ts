// The SQLite connection's cache of prepared statements (sandbox/store/dialects/sqlite/statement-cache.ts):
// each SQL text prepared once, and the cache bounded in entries and in characters of SQL.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from '../../sandbox/store/dialects/sqlite/statement-cache.js';

describe('withStatementCache', () => {
  it('prepares a SQL text once', () => {
    const cached = withStatementCache(new Database(':memory:'));
    expect(cached.prepare('select 1')).toBe(cached.prepare('select 1'));
    expect(cached.size).toBe(1);
    cached.close();
  });

  it('starts over past its bound in entries or in characters', () => {
    const byCount = withStatementCache(new Database(':memory:'), { entries: 3, characters: 1_000_000 });
    for (let i = 0; i < 10; i++) byCount.prepare(`select ${i}`);
    expect(byCount.size).toBeLessThanOrEqual(3);
    byCount.close();
    const byText = withStatementCache(new Database(':memory:'), { entries: 1_000, characters: 100 });
    for (let i = 0; i < 10; i++) byText.prepare(`select ${i} as ${'c'.repeat(30)}`);
    expect(byText.size).toBeLessThanOrEqual(2);
    byText.close();
  });
});
