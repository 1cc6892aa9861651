// generated/ is committed: it must be exactly what `npm run generate` makes from the current
// contract, byte for byte (drift). The committed files were made by an earlier run, so that one
// comparison also holds the pipeline to reproducible output. The pipeline runs once, into a temp
// folder with a step cache of its own; a second run there is served from that cache and puts back
// an output file that was edited and one that was deleted.
import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
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
  let dir: string;
  let out: string;
  let cache: string;
  let made: Map<string, Buffer>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'generated-'));
    out = join(dir, 'out');
    cache = join(dir, 'cache');
    const log: string[] = [];
    expect(await generate({ lint: false, out, cache, log: (l) => log.push(l) }), log.join('\n')).toBe(true);
    expect(
      log.filter((l) => /^✔ \S+ +cached/.test(l)),
      'an empty cache serves nothing',
    ).toEqual([]);
    made = await snapshot(out);
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('contains every artifact of the pipeline', () => {
    expect([...made.keys()].sort()).toEqual(
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
    expect([...made.keys()].filter((k) => /^samples\/.+\.(sh|ts)$/.test(k)).length).toBeGreaterThan(0);
  });

  it('is current: byte for byte what the pipeline makes from the contract now', async () => {
    const diff = differences(made, await snapshot(DEFAULT_OUT));
    if (diff.length) throw new Error(`generated/ is stale: run npm run generate\n  ${diff.join('\n  ')}`);
  });

  it('a second run comes from the step cache and restores an edited and a deleted file', async () => {
    await writeFile(join(out, 'types.ts'), '// edited by hand\n');
    await unlink(join(out, 'docs', 'index.html'));
    const log: string[] = [];
    expect(await generate({ lint: false, out, cache, log: (l) => log.push(l) }), log.join('\n')).toBe(true);
    const steps = log.filter((l) => !/^✔ done /.test(l));
    expect(steps.length).toBeGreaterThan(5);
    expect(
      steps.filter((l) => !/^✔ \S+ +cached/.test(l)),
      'steps that ran again',
    ).toEqual([]);
    expect(differences(made, await snapshot(out))).toEqual([]);
  }, 60_000);
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
