// Checkpoints of a SQLite file's WAL, in a worker thread of their own. SQLite's automatic checkpoint
// runs inside the commit that crosses its threshold: on the request path, a copy of a thousand
// pages and two fsyncs every few dozen commits (milliseconds: the sandbox's slowest answers). A
// passive checkpoint on its own connection copies those pages beside the writer, which keeps
// committing. Only the writer can start the WAL over, and only when a transaction of its own
// begins on a fully copied WAL, which under steady load never happens: its automatic checkpoint
// stays on, at a higher threshold (see open.ts), and still copies the pages written since the
// worker's last pass, which is why the passes are frequent (docs/benchmarks.md, POST, has what
// each setting left on the request path).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface Checkpointer {
  stop(): Promise<void>;
}

/** How often the worker copies the WAL's new pages into the database file. */
export const CHECKPOINT_INTERVAL_MS = 20;

// Plain JavaScript evaluated by the worker: it runs under tsx and under vitest alike.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.location);
db.pragma('synchronous = NORMAL');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // SQLITE_BUSY: another checkpoint (the writer's fallback) is running; the next tick tries again.
    if (error.code !== 'SQLITE_BUSY') parentPort.postMessage(error.message);
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Starts checkpointing the WAL of the database file at `location`; `onError` hears a failing checkpoint. */
export function startCheckpointer(location: string, onError: (message: string) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // execArgv: none of the process's Node options (an --input-type=module would make this CommonJS code a module).
  const worker = new Worker(WORKER, {
    eval: true,
    execArgv: [],
    workerData: { driver, location, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  worker.on('message', (message: string) => onError(message));
  worker.on('error', (error) => onError(error.message));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Unref'd while it runs (it never keeps the sandbox alive); stopping, the process waits for it.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
