// Global setup of the projects whose files use PostgreSQL: one embedded PostgreSQL per run (see
// shared.ts) with a template database the sandbox's migrations have run on; each test file's
// databases are copies of it (test/support/postgres.ts).
import type { TestProject } from 'vitest/node';
import { openStore } from '../../../sandbox/store/index.js';
import { startPostgres } from '../../../tooling/process/postgres.js';
import { useShared } from './shared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL: its admin URL and the migrated template to copy. */
    postgres: { url: string; template: string };
  }
}

const TEMPLATE = 'sandbox_template';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value, release } = await useShared(
    'postgres',
    async () => {
      const server = await startPostgres();
      try {
        const store = await openStore({ database: await server.createDatabase(TEMPLATE) });
        await store.close();
      } catch (err) {
        await server.stop();
        throw err;
      }
      return server;
    },
    (server) => server.stop(),
  );
  project.provide('postgres', { url: value.url, template: TEMPLATE });
  return release;
}
