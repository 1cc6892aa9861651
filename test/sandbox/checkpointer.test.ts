// The SQLite store checkpoints its WAL in a worker (sandbox/store/dialects/sqlite/checkpointer.ts): pages written
// to the WAL reach the database file without any commit crossing SQLite's own threshold, and
// closing the store stops the worker (and waits for it: a script that opens and closes a store ends).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../sandbox/store/dialects/sqlite/checkpointer.js';
import { openStore } from '../../sandbox/store/index.js';
import { runCommand } from '../support/sandbox-process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
  dirs.push(dir);
  return join(dir, 'sandbox.db');
}

/** A connection that has written about 2 MB into the WAL and never checkpoints (the caller closes it). */
function writeWithoutCheckpoints(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table if not exists filler (n integer primary key, text text not null)');
  const insert = db.prepare('insert into filler (text) values (?)');
  for (let i = 0; i < 500; i++) insert.run(`${i}`.padEnd(4_000, '.'));
  return db;
}

async function until(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  return condition();
}

const size = (file: string) => statSync(file).size;

describe('the background checkpointer', () => {
  it('copies the WAL into the database file, and stops', async () => {
    const file = databaseFile();
    const writer = writeWithoutCheckpoints(file);
    expect(size(file)).toBeLessThan(100_000); // everything is still in the WAL
    const errors: string[] = [];
    const checkpointer = startCheckpointer(file, (m) => errors.push(m));
    try {
      expect(await until(() => size(file) > 1_500_000)).toBe(true);
    } finally {
      await checkpointer.stop();
      writer.close();
    }
    expect(errors).toEqual([]);
  });

  it('runs for a store on a SQLite file, until the store closes', async () => {
    const file = databaseFile();
    const store = await openStore({ database: file });
    const before = size(file);
    const writer = writeWithoutCheckpoints(file);
    try {
      expect(await until(() => size(file) > before + 1_500_000)).toBe(true);
    } finally {
      await store.close();
      writer.close();
    }
  });

  it('lets a process that opened and closed a store end normally', async () => {
    // The worker is unref'd while it runs; close() must still wait for it, or Node ends the process
    // on the unsettled await (exit code 13) before the worker has closed its connection.
    const store = new URL('../../sandbox/store/index.ts', import.meta.url).href;
    const code = `const { openStore } = await import(${JSON.stringify(store)}); await (await openStore({ database: process.argv[1] })).close(); console.log('closed');`;
    const result = await runCommand(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      code,
      databaseFile(),
    ]);
    expect(result.stderr).toBe('');
    expect({ code: result.code, stdout: result.stdout.trim() }).toEqual({ code: 0, stdout: 'closed' });
  });
});
