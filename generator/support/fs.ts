import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically: a reader (or a crash) sees either the old file or the new
 * one, never half of it. The temp file sits in the same directory, because rename(2) is atomic
 * only within one file system.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = await tempPathBeside(path);
  try {
    await writeFile(tmp, data);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await renameIntoPlace(tmp, path);
}

/** A fresh temp file name in `path`'s directory (created if need be), for a write that ends with renameIntoPlace(). */
export async function tempPathBeside(path: string): Promise<string> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  return join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Renames the complete temp file `tmp` over `path`; on failure the temp file is removed. */
export async function renameIntoPlace(tmp: string, path: string): Promise<void> {
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
