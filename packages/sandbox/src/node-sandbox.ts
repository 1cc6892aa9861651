// createSandbox() on Node: the in-process sandbox (in-process.ts) on SQLite in memory (better-sqlite3
// when installed, else SQLite in WebAssembly) with the documents read from the package.
import { loadAdminDocument, loadContract } from '../../../sandbox/documents.js';
import { openStore } from '../../../sandbox/store/index.js';
import { inProcessSandbox } from './in-process.js';
import type { InProcessOptions, InProcessSandbox } from './types.js';

/**
 * A sandbox in this process: `fetch(request)` answers as the HTTP sandbox does, with no socket; its
 * data in memory. With `seed`, its ids and keys follow from it (each sandbox draws from its own
 * stream, whatever others run beside it); with `now`, every clock starts there and stays until advanced.
 */
export function createSandbox(options: InProcessOptions = {}): Promise<InProcessSandbox> {
  return inProcessSandbox(
    {
      openStore: () => openStore({ database: ':memory:', sqliteDriver: options.sqliteDriver }),
      contract: loadContract(),
      adminDocument: loadAdminDocument(),
    },
    options,
  );
}
