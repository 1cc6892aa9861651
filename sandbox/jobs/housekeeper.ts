// The housekeeping job: every `intervalMs` (default one minute),
// app/housekeeping.ts deletes what is past its retention: expired idempotency keys, delivered and
// dead-lettered webhook deliveries past theirs, listeners gone silent.
import { DEFAULT_RETENTION, type Retention, runHousekeeping } from '../app/housekeeping.js';
import type { Store } from '../store/store.js';

export interface Housekeeper {
  /** Stops and waits for a run in progress. */
  stop(): Promise<void>;
}

export function startHousekeeper(options: {
  store: Store;
  retention?: Partial<Retention>;
  intervalMs?: number;
  log?: (line: string) => void;
}): Housekeeper {
  const retention = { ...DEFAULT_RETENTION, ...options.retention };
  const intervalMs = options.intervalMs ?? 60_000;
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    try {
      const done = await runHousekeeping(options.store, retention);
      const deleted = Object.entries(done).filter(([, n]) => n > 0);
      if (deleted.length > 0)
        options.log?.(`housekeeping: deleted ${deleted.map(([what, n]) => `${n} ${what}`).join(', ')}`);
    } catch (err) {
      options.log?.(`housekeeping: ${(err as Error).message}`);
    }
    if (!stopped) timer = setTimeout(() => (running = run()), intervalMs);
  };
  timer = setTimeout(() => (running = run()), intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
