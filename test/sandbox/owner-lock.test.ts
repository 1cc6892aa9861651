// One sandbox owns a SQLite file (sandbox/store/dialects/sqlite/owner-lock.ts): a second store on the same file is
// refused with a message naming the file and the way out, in this process or from another; the
// lock goes when its owner closes the store or dies (kill -9), with nothing stale to clear.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { openStore, StoreOpenError } from '../../sandbox/store/index.js';
import { killGroup } from '../../tooling/process/groups.js';

const dir = mkdtempSync(join(tmpdir(), 'owner-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A process (its own group) that takes the lock on `file` and holds it until killed. */
function lockHolder(file: string) {
  const script = `import { takeOwnerLock } from ${JSON.stringify(join(REPO_ROOT, 'sandbox/store/dialects/sqlite/owner-lock.ts'))}; if (!takeOwnerLock(process.argv[1])) process.exit(3); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, file], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    void exited.then((how) => reject(new Error(`the lock holder exited (${how}) before taking the lock`)));
  });
  return { pid: child.pid!, locked, exited };
}

describe('a SQLite file has one owner', () => {
  it('refuses a second store on the file while the first is open, and opens once it is closed', async () => {
    const file = join(dir, 'one.db');
    const first = await openStore({ database: file });
    try {
      const second = openStore({ database: file });
      await expect(second).rejects.toBeInstanceOf(StoreOpenError);
      await expect(second).rejects.toThrow(`the SQLite database at ${file} is in use by another sandbox`);
      await expect(second).rejects.toThrow('--db postgres://');
    } finally {
      await first.close();
    }
    const again = await openStore({ database: file });
    await again.close();
  });

  it('refuses while another process holds the file, and takes it once that process is killed', async () => {
    const file = join(dir, 'two.db');
    const holder = lockHolder(file);
    try {
      await holder.locked;
      await expect(openStore({ database: file })).rejects.toThrow('is in use by another sandbox');
    } finally {
      killGroup(holder.pid, 'SIGKILL');
    }
    expect(await holder.exited).toBe('SIGKILL');
    const store = await openStore({ database: file });
    await store.close();
  }, 30_000);
});
