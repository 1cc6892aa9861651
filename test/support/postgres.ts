// PostgreSQL for tests: the run's one server (started by the global setup of the projects that list
// test/support/services/postgres.ts), a database per call, copied from the migrated template.
import { randomBytes } from 'node:crypto';
import { createDatabase } from '../../tooling/process/postgres.js';
import { backgroundService } from './background.js';
import type { RunPostgres } from './services/postgres.js';

/** A fresh, migrated database on the run's PostgreSQL; its URL. */
export async function postgresDatabase(): Promise<string> {
  const server = await backgroundService<RunPostgres>('postgres');
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  return createDatabase(server.url, name, server.template);
}

/** For suites that run on either store: `:memory:` SQLite, or a fresh database on the run's PostgreSQL. */
export function databases(): { database(kind: 'sqlite' | 'postgres'): Promise<string> } {
  return {
    async database(kind) {
      return kind === 'sqlite' ? ':memory:' : postgresDatabase();
    },
  };
}

/** The stores the store contract suite runs on. */
export const STORES = ['sqlite', 'postgres'] as const;

/**
 * The stores the HTTP-level suites run on: SQLite. What is PostgreSQL's own (claims, locks, group
 * commit, housekeeping, several processes, durability, memory under floods) is held on PostgreSQL by
 * the store contract suite and the process suites. `TEST_HTTP_STORES=sqlite,postgres` runs the
 * HTTP-level suites on both, for a change to the store.
 */
export const HTTP_STORES: readonly ('sqlite' | 'postgres')[] = (process.env.TEST_HTTP_STORES ?? 'sqlite')
  .split(',')
  .map((kind) => {
    if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`TEST_HTTP_STORES: unknown store '${kind}'`);
    return kind;
  });
