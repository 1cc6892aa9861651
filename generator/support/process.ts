import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Process groups of children started with a signal and still running: killed if this process exits first. */
const groups = new Set<number>();
process.once('exit', () => {
  for (const pgid of groups) killGroup(pgid);
});

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs a Node.js script in a child process with this Node (no npx, no shell) and collects its
 * output. Colours are off so that output can be parsed. With a `signal`, the child runs in a
 * process group of its own, which an abort kills (whatever the script spawned too); the promise
 * then rejects with the signal's reason.
 */
export function runNode(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; signal?: AbortSignal; nodeOptions?: string[] } = {},
): Promise<ProcessResult> {
  const { signal } = options;
  return new Promise((done, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: signal !== undefined,
    });
    const pgid = signal ? child.pid : undefined;
    if (pgid !== undefined) groups.add(pgid);
    const abort = () => {
      if (pgid !== undefined) killGroup(pgid);
      fail(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => {
      signal?.removeEventListener('abort', abort);
      if (pgid !== undefined) groups.delete(pgid);
    };
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      settle();
      fail(err);
    });
    child.on('close', (code) => {
      settle();
      done({ code: code ?? 1, stdout, stderr });
    });
  });
}
