// The step cache of `npm run generate` (generator/run-cache.ts) on a small project in a temp folder:
// a run with nothing changed is served from it and puts back output files that were edited or
// deleted; one byte changed in any input rebuilds exactly what depends on it, and the result is
// what a forced run (--force: the cache ignored) makes from scratch. The inputs that only a copy
// of the repository could change (the generator's code, the lockfile, the lint configuration)
// are held at the level of the keys. Bundled documents are kept by content too (bundleDocument():
// the review, the scripts and lint outside generate bundle an unchanged contract from its file).
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import type { PipelinePaths, StepName } from '../../generator/pipeline.js';
import { RunCache } from '../../generator/run-cache.js';
import { BundleError, bundleDocument } from '../../generator/steps/bundle.js';
import { InputReader, type StepInputs } from '../../generator/support/inputs.js';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { TOOLCHAIN } from '../../generator/support/toolchain.js';
import { tinyContract } from '../support/tiny-contract.js';

let dir: string;
const paths = (): PipelinePaths => ({
  root: join(dir, 'openapi', 'openapi.yaml'),
  out: join(dir, 'generated'),
  guidesDir: join(dir, 'docs', 'guides'),
  adminRoot: join(dir, 'sandbox', 'admin', 'openapi.yaml'),
  redoclyConfig: join(dir, 'redocly.yaml'),
});
const file = (...parts: string[]) => join(dir, ...parts);

/** A contract of two files (the root and a schema it refers to), a guide, an admin document, lint configuration. */
async function writeProject(): Promise<void> {
  await mkdir(file('openapi', 'schemas'), { recursive: true });
  await mkdir(file('docs', 'guides'), { recursive: true });
  await mkdir(file('sandbox', 'admin'), { recursive: true });
  const root = tinyContract(['A', 'B'])
    .replace(/schema:\n\s+enum: \[A, B\]/, "schema:\n              $ref: './schemas/Thing.yaml'")
    .replace('operationId: createThing', 'operationId: createThing\n      x-sdk-method: things.create');
  await writeFile(file('openapi', 'openapi.yaml'), root);
  await writeFile(file('openapi', 'schemas', 'Thing.yaml'), 'type: string\nenum: [A, B]\n');
  await writeFile(file('docs', 'guides', '01-start.md'), '# Start\n\nHow to start.\n');
  await writeFile(file('sandbox', 'admin', 'openapi.yaml'), tinyContract(['ADMIN']));
  await writeFile(file('redocly.yaml'), 'extends:\n  - recommended\n');
  await writeFile(file('.redocly.lint-ignore.yaml'), '{}\n');
}

/** Steps cheap enough to run often that read each kind of input: the contract, the guides, the admin document. */
const STEPS: StepName[] = ['guides', 'bundle', 'operations', 'admin'];

/** Runs STEPS with the test's cache; returns the steps served from it. */
async function run(options: { out?: string; force?: boolean } = {}): Promise<StepName[]> {
  const log: string[] = [];
  const ok = await generate({
    ...paths(),
    out: options.out ?? paths().out,
    force: options.force,
    cache: file('cache'),
    steps: STEPS,
    log: (line) => log.push(line),
  });
  expect(ok, log.join('\n')).toBe(true);
  return log.flatMap((line) => {
    const m = /^✔ (\S+) +cached/.exec(line);
    return m ? [m[1] as StepName] : [];
  });
}

async function snapshot(out: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const e of await readdir(out, { recursive: true, withFileTypes: true }))
    if (e.isFile())
      files[relative(out, join(e.parentPath, e.name))] = await readFile(join(e.parentPath, e.name), 'utf8');
  return files;
}

/** Changes one byte of `path`: its last letter becomes the next one (Z the one before), so that YAML stays YAML. */
async function changeOneByte(path: string): Promise<void> {
  const text = await readFile(path, 'utf8');
  const at = text.search(/[A-Za-z][^A-Za-z]*$/);
  const next = String.fromCharCode(text.charCodeAt(at) + (/[Zz]/.test(text[at]!) ? -1 : 1));
  await writeFile(path, text.slice(0, at) + next + text.slice(at + 1));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'generate-cache-'));
  await writeProject();
  expect(await run(), 'an empty cache serves nothing').toEqual([]);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the step cache', () => {
  it('serves a run with nothing changed, and restores an output file that was edited or deleted', async () => {
    const before = await snapshot(paths().out);
    expect(Object.keys(before).sort()).toEqual([
      'admin/openapi.json',
      'admin/types.ts',
      'openapi.json',
      'openapi.yaml',
      'operations.ts',
    ]);
    await writeFile(join(paths().out, 'operations.ts'), '// edited by hand\n');
    await unlink(join(paths().out, 'openapi.json'));
    expect(await run()).toEqual(STEPS);
    expect(await snapshot(paths().out)).toEqual(before);
  }, 60_000);

  it.each([
    { kind: 'a contract file', path: ['openapi', 'schemas', 'Thing.yaml'], reruns: ['guides', 'bundle', 'operations'] },
    { kind: 'a guide', path: ['docs', 'guides', '01-start.md'], reruns: ['guides'] },
    { kind: 'the admin document', path: ['sandbox', 'admin', 'openapi.yaml'], reruns: ['admin'] },
  ])(
    'one byte changed in $kind reruns what depends on it, which then matches a forced run',
    async ({ path, reruns }) => {
      await changeOneByte(file(...path));
      const cached = await run();
      expect(
        STEPS.filter((s) => !cached.includes(s)),
        'the steps that ran',
      ).toEqual(reruns);
      const clean = file(`forced-${path.at(-1)}`);
      expect(await run({ out: clean, force: true }), '--force serves nothing from the cache').toEqual([]);
      expect(await snapshot(paths().out)).toEqual(await snapshot(clean));
      expect(await run(), 'and the next run is served again').toEqual(STEPS);
    },
    60_000,
  );
});

describe('the bundled documents kept by content (bundleDocument)', () => {
  // a cache of their own: the pipeline's runs above keep the same document under another key (their
  // Redocly config is the repository's), so that the file of this one is the only one
  const bundle = (options: { force?: boolean } = {}) =>
    bundleDocument({ root: paths().root, config: file('redocly.yaml'), cache: file('documents'), ...options });
  const kept = () => file('documents', 'bundled-document');
  const entries = async () => (await readdir(kept()).catch(() => [] as string[])).filter((e) => !e.startsWith('.'));

  /** The one kept file whose text is `json`. */
  async function keptFile(json: string): Promise<string> {
    const blobs = (await entries()).map((entry) => join(kept(), entry, '0'));
    const texts = await Promise.all(blobs.map((blob) => readFile(blob, 'utf8').catch(() => '')));
    const matching = blobs.filter((_, i) => texts[i] === json);
    expect(matching, `the documents kept under ${kept()} with that text`).toHaveLength(1);
    return matching[0]!;
  }

  it('serves a contract bundled before from the file kept, not Redocly; --force and one changed byte bundle again', async () => {
    const made = await bundle();
    expect(Object.keys(made.document.paths as object)).toEqual(['/things']);
    // the kept file replaced: what the next bundle returns is read from it
    await writeFile(await keptFile(made.json), '{"kept": true}\n');
    expect((await bundle()).document).toEqual({ kept: true });
    expect((await bundle({ force: true })).json, 'forced: bundled by Redocly').toBe(made.json);

    await changeOneByte(file('openapi', 'schemas', 'Thing.yaml'));
    const changed = await bundle();
    expect(changed.json).not.toBe(made.json);
    expect(changed.document).not.toEqual({ kept: true });
    await writeFile(await keptFile(changed.json), '{"kept": "again"}\n');
    await writeFile(file('redocly.yaml'), `${await readFile(file('redocly.yaml'), 'utf8')}# the config changed\n`);
    expect((await bundle()).json, 'the config is part of the key').toBe(changed.json);
  });

  it('keeps no failure: a contract that does not bundle is refused by Redocly every time', async () => {
    const thing = file('openapi', 'schemas', 'Thing.yaml');
    const text = await readFile(thing, 'utf8');
    await writeFile(thing, "type: object\nproperties:\n  other:\n    $ref: './Missing.yaml'\n");
    const before = await entries();
    for (const attempt of [1, 2]) await expect(bundle(), `attempt ${attempt}`).rejects.toThrow(BundleError);
    expect(await entries()).toEqual(before);
    await writeFile(thing, text);
  });
});

describe('the keys', () => {
  const keysOf = async (options: { toolchain?: StepInputs } = {}) => {
    const cache = new RunCache(paths(), { dir: file('cache'), force: false, ...options });
    const steps: StepName[] = ['lint', 'bundle', 'types', 'docs', 'admin', 'admin-docs'];
    return Object.fromEntries(await Promise.all(steps.map(async (s) => [s, await cache.key(s)] as const)));
  };

  it('cover the generator and the tools: generator/, tooling/ and the lockfiles', () => {
    expect(TOOLCHAIN.trees).toEqual(expect.arrayContaining([join(REPO_ROOT, 'generator'), join(REPO_ROOT, 'tooling')]));
    expect(TOOLCHAIN.files).toEqual(
      expect.arrayContaining([
        join(REPO_ROOT, 'package-lock.json'),
        join(REPO_ROOT, 'node_modules', '.package-lock.json'),
      ]),
    );
  });

  it('change every step when one byte of the code or of the lockfile changes', async () => {
    await mkdir(file('toolchain', 'generator'), { recursive: true });
    await writeFile(file('toolchain', 'generator', 'step.ts'), 'export const step = 1;\n');
    await writeFile(file('toolchain', 'package-lock.json'), '{"lockfileVersion": 3}\n');
    const toolchain: StepInputs = {
      files: [file('toolchain', 'package-lock.json')],
      trees: [file('toolchain', 'generator')],
      contracts: [],
      values: [],
    };
    const before = await keysOf({ toolchain });
    for (const path of [file('toolchain', 'generator', 'step.ts'), file('toolchain', 'package-lock.json')]) {
      await changeOneByte(path);
      const after = await keysOf({ toolchain });
      for (const step of Object.keys(before)) expect(after[step], `${step} after ${path}`).not.toBe(before[step]);
    }
  });

  it("change lint's, and only lint's, when its configuration changes", async () => {
    for (const path of [file('redocly.yaml'), file('.redocly.lint-ignore.yaml')]) {
      const before = await keysOf();
      await writeFile(path, `${await readFile(path, 'utf8')}# one more line\n`);
      const after = await keysOf();
      expect(
        Object.keys(before).filter((s) => after[s] !== before[s]),
        path,
      ).toEqual(['lint']);
    }
  });

  it('follow a $ref out of the contract folder, and leave a contract with a URL $ref uncached', async () => {
    await mkdir(file('shared'), { recursive: true });
    await writeFile(file('shared', 'Other.yaml'), 'type: integer\n');
    const thing = file('openapi', 'schemas', 'Thing.yaml');
    await writeFile(thing, "type: object\nproperties:\n  other:\n    $ref: '../../shared/Other.yaml'\n");
    const before = await keysOf();
    await changeOneByte(file('shared', 'Other.yaml'));
    expect((await keysOf()).bundle).not.toBe(before.bundle);

    await writeFile(thing, "type: object\nproperties:\n  other:\n    $ref: 'https://example.com/Other.yaml'\n");
    expect((await keysOf()).bundle).toBeUndefined();
  });

  it('tell an input changed after it was read, so that nothing is stored under a key its output does not match', async () => {
    const reader = new InputReader();
    const guide = file('docs', 'guides', '01-start.md');
    await reader.key(['test'], { files: [guide], trees: [], contracts: [], values: [] });
    expect(await reader.unchangedSince()).toBe(true);
    await writeFile(guide, await readFile(guide, 'utf8')); // the same bytes, written again: it may have changed in between
    expect(await reader.unchangedSince()).toBe(false);
  });
});
