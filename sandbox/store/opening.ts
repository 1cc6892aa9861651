// What opening a store takes on either database: the migrations, and the error that says the
// database could not be opened or reached.
import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';

/** The database could not be opened or reached (the CLI prints the message and exits 1). */
export class StoreOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrate(db: Kysely<Database>, location: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw new StoreOpenError(`cannot migrate the database at ${location}: ${(error as Error).message}`);
}
