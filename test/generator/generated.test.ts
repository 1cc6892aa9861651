// generated/ is committed: it must be exactly what `npm run generate` makes from the current
// contract (drift), and generating twice must give byte-identical files (reproducibility).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import jsYaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { toPortableYaml } from '../../generator/steps/bundle.js';
import { DEFAULT_OUT } from '../../generator/support/paths.js';

async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const full = join(e.parentPath, e.name);
      files.set(relative(dir, full), await readFile(full));
    }
  }
  return files;
}

function differences(expected: Map<string, Buffer>, actual: Map<string, Buffer>): string[] {
  const names = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  return names.flatMap((n) => {
    const e = expected.get(n);
    const a = actual.get(n);
    if (!e) return [`${n}: not produced by generate`];
    if (!a) return [`${n}: missing`];
    return e.equals(a) ? [] : [`${n}: differs`];
  });
}

describe('generated/', () => {
  const dirs: string[] = [];
  let first: Map<string, Buffer>;
  let second: Map<string, Buffer>;

  beforeAll(async () => {
    dirs.push(await mkdtemp(join(tmpdir(), 'gen-a-')), await mkdtemp(join(tmpdir(), 'gen-b-')));
    const quiet = { lint: false, log: () => undefined };
    const [okA, okB] = await Promise.all(dirs.map((out) => generate({ ...quiet, out })));
    expect(okA && okB).toBe(true);
    [first, second] = await Promise.all(dirs.map(snapshot));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('contains every artifact of the pipeline', () => {
    expect([...first.keys()].sort()).toEqual(
      expect.arrayContaining([
        'openapi.json',
        'openapi.yaml',
        'operations.ts',
        'types.ts',
        'docs/index.html',
        'samples/tsconfig.json',
      ]),
    );
    // the code samples, curl and TypeScript, are held to the freshness check below like every file
    expect([...first.keys()].filter((k) => /^samples\/.+\.(sh|ts)$/.test(k)).length).toBeGreaterThan(0);
  });

  it('is reproducible: two runs give byte-identical files', () => {
    expect(differences(first, second)).toEqual([]);
  });

  it('is current', async () => {
    const diff = differences(first, await snapshot(DEFAULT_OUT));
    if (diff.length) throw new Error(`generated/ is stale: run npm run generate\n  ${diff.join('\n  ')}`);
  });
});

describe('generated/openapi.yaml under YAML 1.1 loaders', () => {
  it("reads the same with js-yaml's default schema (YAML 1.1 types: timestamps, yes/no) as openapi.json", async () => {
    const yaml = await readFile(join(DEFAULT_OUT, 'openapi.yaml'), 'utf8');
    const json = JSON.parse(await readFile(join(DEFAULT_OUT, 'openapi.json'), 'utf8')) as unknown;
    expect(jsYaml.load(yaml, { schema: jsYaml.DEFAULT_SCHEMA })).toEqual(json);
    // the docs' copy too
    expect(jsYaml.load(await readFile(join(DEFAULT_OUT, 'docs', 'openapi.yaml'), 'utf8'))).toEqual(json);
  });

  it('would not without quoting (the check can fail): an unquoted date becomes a Date', () => {
    expect(jsYaml.load('birthDate: 1990-04-17')).toEqual({ birthDate: new Date('1990-04-17T00:00:00Z') });
    expect(jsYaml.load(toPortableYaml({ birthDate: '1990-04-17', answer: 'yes' }))).toEqual({
      birthDate: '1990-04-17',
      answer: 'yes',
    });
  });
});
