// Time passing on the wall clock: every tick, the test clocks re-read their offsets (another process
// on the database may have advanced one) and run what became due (DELAYED captures, plan billings),
// so that a capture also happens when its hours really pass.
import type { TestClocks } from '../app/clock.js';

export interface ClockTicker {
  /** Stops ticking and waits for a tick in progress. */
  stop(): Promise<void>;
}

export function startClockTicker(
  clocks: TestClocks,
  options: { tickMs?: number; log?: (line: string) => void } = {},
): ClockTicker {
  const tickMs = options.tickMs ?? 1_000;
  let ticking = true;
  let running: Promise<void> | undefined;
  const tick = async () => {
    try {
      await clocks.refresh();
      for (const run of await clocks.runDue())
        if (run.captured.length + run.billed.length > 0)
          options.log?.(
            `clock: ${run.scope.merchantId} (${run.scope.environment}): ${run.captured.length} captured, ${run.billed.length} billed`,
          );
    } catch (err) {
      options.log?.(`clock: ${(err as Error).message}`);
    }
    if (ticking) timer = setTimeout(() => (running = tick()), tickMs);
  };
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => (running = tick()), tickMs);
  return {
    async stop() {
      ticking = false;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
