// The generator compiled to plain JavaScript, once per version of its code: what `npm run generate`
// runs (launch.mjs) and what lint's worker thread loads (lint/checks.ts). tsx compiles every
// TypeScript file on each start and routes every module, the tools' included, through its
// loader: that start-up was most of a run with nothing to do, and a worker thread cannot use it.
//
// The compiled code is esbuild's bundle of the entry points below with what they import from the
// repository (the packages stay in node_modules), split where the code imports lazily, in
// node_modules/.cache/payment-generate/compiled/<key>/. The key is a hash of everything that
// decides that code: generator/ and tooling/ (this file included), tsconfig.json, the lockfiles
// (esbuild's version) and the Node.js version. `import.meta.url` keeps naming each source file,
// so paths found from it (the repository's root, the packages a file resolves) are what they
// are under tsx.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMPILED = join(REPO_ROOT, 'node_modules', '.cache', 'payment-generate', 'compiled');
/** Compiled versions kept: the current one and one to go back to (a switched branch)... */
const KEEP = 2;
/** ...and any used within the hour (another checkout sharing node_modules, a watcher still running). */
const IN_USE_MS = 60 * 60 * 1000;
/** Each entry point compiles to <name>.mjs. */
const ENTRY_POINTS = {
  cli: join(REPO_ROOT, 'generator', 'cli.ts'),
  'lint-worker': join(REPO_ROOT, 'generator', 'lint', 'lint-worker.ts'),
};
/** Set to the compiled folder by launch.mjs, for the code it runs. */
const COMPILED_ENV = 'PAYMENT_GENERATE_COMPILED';

/** The folder of the compiled generator for the code as it is now, compiled first if need be. */
export async function compiledGenerator() {
  if (process.env[COMPILED_ENV]) return process.env[COMPILED_ENV];
  const dir = join(COMPILED, await sourceKey());
  if (existsSync(join(dir, 'cli.mjs'))) {
    const now = new Date();
    await utimes(dir, now, now).catch(() => undefined); // in use: kept by the next prune
  } else await compile(dir);
  process.env[COMPILED_ENV] = dir;
  return dir;
}

async function sourceKey() {
  const hash = createHash('sha256').update(`node ${process.version}\n`);
  const trees = await Promise.all(
    ['generator', 'tooling'].map((dir) => readdir(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })),
  );
  const files = [
    ...trees.flat().flatMap((e) => (e.isFile() ? [join(e.parentPath, e.name)] : [])),
    ...['tsconfig.json', 'package-lock.json', join('node_modules', '.package-lock.json')].map((f) =>
      join(REPO_ROOT, f),
    ),
  ].sort();
  const contents = await Promise.all(files.map((f) => readFile(f).catch(() => Buffer.from('missing'))));
  files.forEach((f, i) => hash.update(`${relative(REPO_ROOT, f)}\n`).update(contents[i]));
  return hash.digest('hex').slice(0, 32);
}

/** Replaces `import.meta.url` in each source file by that file's own URL: the bundle lives elsewhere. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.m?[jt]s$/ }, async ({ path }) =>
      path.includes(`${join('node_modules', '')}`)
        ? undefined
        : {
            contents: (await readFile(path, 'utf8')).replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(path).href),
            ),
            loader: path.endsWith('.ts') ? 'ts' : 'js',
          },
    );
  },
};

async function compile(dir) {
  const { build } = await import('esbuild');
  await mkdir(COMPILED, { recursive: true });
  const tmp = `${dir}.${process.pid}.tmp`;
  await build({
    entryPoints: ENTRY_POINTS,
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    sourcemap: true,
    logLevel: 'error',
    plugins: [sourceUrls],
  });
  try {
    await rename(tmp, dir);
  } catch {
    await rm(tmp, { recursive: true, force: true }); // compiled by another run meanwhile
  }
  const entries = await Promise.all(
    (await readdir(COMPILED)).map(async (name) => ({ name, at: (await stat(join(COMPILED, name))).mtimeMs })),
  );
  const old = (e) => Date.now() - e.at > IN_USE_MS;
  const versions = entries.filter((e) => !e.name.endsWith('.tmp')).sort((a, b) => b.at - a.at);
  // beyond the newest, those unused for the hour; and the temp folders of compilations that died
  const removed = [...versions.slice(KEEP).filter(old), ...entries.filter((e) => e.name.endsWith('.tmp') && old(e))];
  for (const { name } of removed) await rm(join(COMPILED, name), { recursive: true, force: true });
}
