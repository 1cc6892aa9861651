// PostgreSQL for test files whose suites run on both stores (the server: tooling/process/postgres.ts).
import { afterAll } from 'vitest';
import { type EmbeddedPostgresServer, startPostgres } from '../../tooling/process/postgres.js';

export { type EmbeddedPostgresServer, startPostgres };

/**
 * For a test file whose suites run on both stores: call at the top level. The PostgreSQL server
 * starts on the first suite that asks for it and stops after the file.
 */
export function databases(): { database(kind: 'sqlite' | 'postgres'): Promise<string> } {
  let server: Promise<EmbeddedPostgresServer> | undefined;
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
