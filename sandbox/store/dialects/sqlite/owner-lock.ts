// One sandbox process owns a SQLite file: the idempotency claims in flight, the document cache and
// group commit live in that process, so a second process on the same file would break them without
// a word. The owner holds an exclusive SQLite lock on a small file beside the database
// (`<file>-owner`) for as long as it runs; the operating system drops it when the process ends,
// however it ends (kill -9 included), so there is no stale lock to clear.
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export interface OwnerLock {
  release(): void;
}

/** The lock on `location`, or undefined when another connection (another process, or another store in this one) holds it. */
export function takeOwnerLock(location: string): OwnerLock | undefined {
  // Loaded here, not imported: better-sqlite3 is optional, and only a file (which needs it) has an owner.
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  // No busy timeout: a held lock answers at once.
  const db = new Database(`${location}-owner`, { timeout: 0 });
  chmodSync(`${location}-owner`, 0o600);
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY'); // its content does not matter: no journal file beside it
    // A write takes the exclusive lock; in exclusive locking mode the connection keeps it until it closes.
    db.exec('create table if not exists owner (since text not null); delete from owner;');
    db.prepare('insert into owner (since) values (?)').run(new Date().toISOString());
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw error;
  }
  return { release: () => db.close() };
}
