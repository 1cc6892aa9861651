// Global setup of the projects whose files use PostgreSQL: one embedded PostgreSQL per run (see
// shared.ts) with a template database the sandbox's migrations have run on; each test file's
// databases are copies of it (test/support/postgres.ts).
import type { TestProject } from 'vitest/node';
import { openStore } from '../../../sandbox/store/index.js';
import { type EmbeddedPostgresServer, startPostgres } from '../../../tooling/process/postgres.js';
import { provideShared } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL: its admin URL and the migrated template to copy. */
    postgres: { url: string; template: string };
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

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return provideShared(
    project,
    'postgres',
    { start: startWithTemplate, stop: (server) => server.stop() },
    (server) => ({
      url: server.url,
      template: TEMPLATE,
    }),
  );
}
