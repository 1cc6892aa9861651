// The process groups this process started that still run. Each is killed (SIGKILL) if this process
// exits first, so that no child outlives it; against an end by SIGKILL, where no exit hook runs, a
// server child has its own watchdog (server-process.ts). The exit listener is attached only while a
// group runs: a module evaluated more than once in one process (a test runner loads it once per
// project) adds no listener while idle.
const running = new Set<number>();

const killAll = () => {
  for (const pgid of running) killGroup(pgid, 'SIGKILL');
};

/** Sends `signal` to process group `pgid`; a group already gone is no error. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Watches a group just started: it is killed if this process exits while it runs. */
export function guardGroup(pgid: number): void {
  if (running.size === 0) process.on('exit', killAll);
  running.add(pgid);
}

/** The group ended, or was stopped: no longer watched. */
export function releaseGroup(pgid: number): void {
  if (running.delete(pgid) && running.size === 0) process.off('exit', killAll);
}
