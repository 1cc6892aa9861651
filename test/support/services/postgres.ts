// Global setup of the projects whose files use PostgreSQL: one embedded PostgreSQL per run (see
// shared.ts) with a template database the sandbox's migrations have run on; each test file's
// databases are copies of it (test/support/postgres.ts). It starts in the background: the files
// that use it wait for it there.
import type { TestProject } from 'vitest/node';
import { openStore } from '../../../sandbox/store/index.js';
import { type EmbeddedPostgresServer, startPostgres } from '../../../tooling/process/postgres.js';
import { type BackgroundService, provideInBackground } from './shared.js';

/** The run's PostgreSQL: its admin URL and the migrated template to copy. */
export interface RunPostgres {
  url: string;
  template: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL, started in the background (a RunPostgres once it is up). */
    postgres: BackgroundService;
  }
}

const TEMPLATE = 'sandbox_template';

/** The run's PostgreSQL with the migrated template. */
async function startWithTemplate(): Promise<EmbeddedPostgresServer> {
  const server = await startPostgres();
  try {
    const store = await openStore({ database: await server.createDatabase(TEMPLATE) });
    await store.close();
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

export default function setup(project: TestProject): () => Promise<void> {
  return provideInBackground(
    project,
    'postgres',
    { start: startWithTemplate, stop: (server) => server.stop() },
    (server): RunPostgres => ({ url: server.url, template: TEMPLATE }),
  );
}
