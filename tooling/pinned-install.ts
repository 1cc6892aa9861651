// A pinned set of packages (a folder with a package.json and its package-lock.json) installed once
// by `npm ci` into a cache folder, outside the project's own install: the third-party generators
// some tests run, the Node.js lines the packages' users run (tooling/node-lines.ts).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const PINNED_FILES = ['package.json', 'package-lock.json'];

/** The folder of `cacheDir` that installedPinned() installs `pinned` into: named after the pinned files' digest. */
export async function pinnedInstallDir(pinned: string, cacheDir: string): Promise<string> {
  const digest = createHash('sha256');
  for (const file of PINNED_FILES) digest.update(await readFile(join(pinned, file)));
  return join(cacheDir, digest.digest('hex').slice(0, 16));
}

/**
 * The packages pinned by `pinned`, installed by `npm ci` into `dir` (default: pinnedInstallDir()):
 * the folder, once installed; installed now when absent (into a staging folder renamed when `npm ci`
 * succeeded, so a failed or interrupted install leaves nothing that looks installed). Other sets in
 * `cacheDir`, of earlier pins, are removed.
 */
export async function installedPinned(pinned: string, cacheDir: string, dir?: string): Promise<string> {
  const target = dir ?? (await pinnedInstallDir(pinned, cacheDir));
  const name = basename(target);
  const present = await readdir(cacheDir).catch(() => [] as string[]);
  if (present.includes(name)) return target;

  for (const other of present) await rm(join(cacheDir, other), { recursive: true, force: true });
  const staging = join(cacheDir, `${name}.${process.pid}.staging`);
  await mkdir(staging, { recursive: true });
  for (const file of PINNED_FILES) await copyFile(join(pinned, file), join(staging, file));
  try {
    // no install script runs: none of the pinned packages has one
    await promisify(execFile)(
      'npm',
      ['ci', '--prefix', staging, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: staging, timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`npm ci of ${join(pinned, 'package-lock.json')} failed: ${(stderr || message).trim()}`);
  }
  await rename(staging, target);
  return target;
}
