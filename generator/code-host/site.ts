// The folder GitHub Pages publishes: the docs site of `npm run generate` (the reference, the sandbox's
// admin docs, the Arazzo workflows it publishes under arazzo/) and the bundle beside it.
import { copyFile, cp, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CodeHostError } from './github.js';

/** What a published site must hold; each is looked for in the docs folder first, then in `generated/`. */
export const SITE_FILES = [
  'index.html',
  'openapi.json',
  'openapi.yaml',
  'sandbox-admin.html',
  'sandbox-admin.yaml',
] as const;

export interface SiteOptions {
  /** `generated/`, holding `docs/` and the bundle. */
  generated: string;
  /** Created; must not exist or be empty. */
  out: string;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Builds the site folder and returns its files, sorted, relative to it. */
export async function assembleSite(options: SiteOptions): Promise<string[]> {
  const docs = join(options.generated, 'docs');
  if (!(await exists(join(docs, 'index.html'))))
    throw new CodeHostError(`${join(docs, 'index.html')} does not exist: run npm run generate first`);
  if ((await exists(options.out)) && (await readdir(options.out)).length > 0)
    throw new CodeHostError(`${options.out} is not empty: the site is assembled into a new folder`);

  await mkdir(options.out, { recursive: true });
  await cp(docs, options.out, { recursive: true });
  for (const file of SITE_FILES) {
    const target = join(options.out, file);
    if (await exists(target)) continue;
    const fallback = join(options.generated, file);
    if (!(await exists(fallback)))
      throw new CodeHostError(`neither ${join(docs, file)} nor ${fallback} exists: run npm run generate first`);
    await copyFile(fallback, target);
  }

  return listFiles(options.out);
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await listFiles(join(dir, entry.name), path)));
    else files.push(path);
  }
  return files.sort();
}
