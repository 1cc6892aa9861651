// Other generators read the contract as it means. Three mainstream TypeScript generators, fed the
// bundle, each write into a temporary folder; their output compiles with `strict`; every object
// schema keeps each property with the contract's optionality in their types (and in the types their
// zod schemas infer); their zod schemas give the contract's verdict on every value of the corpus
// (test/support/corpus.ts) and on each keyword probe, except for the keywords the table of
// docs/generating-clients.md says they do not enforce. That table is held here to what
// the tools do, so it cannot go stale, nor can a regression in the contract's shape pass.
//
// The generators and the runtimes their output imports are not the project's dependencies: they
// are pinned in third-party-generators/ (package.json and package-lock.json) and installed by this
// test, with `npm ci`, into node_modules/.cache/third-party-generators/ on its first run.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { latestRelease } from '../../generator/review/breaking.js';
import { propertiesOf, requiredOf, walkObjects } from '../../tooling/openapi/walker.js';
import { installedPinned } from '../../tooling/pinned-install.js';
import { buildCorpus, buildKeywordProbes, type CorpusValue, type KeywordProbe } from '../support/corpus.js';
import { cacheFolder } from '../support/npm-registry.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import { createSchemaValidator } from '../support/schema.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BUNDLE = join(ROOT, 'generated', 'openapi.json');
const PAGE = join(ROOT, 'docs', 'generating-clients.md');
/** The pinned generators: package.json and package-lock.json. */
const PINNED = join(import.meta.dirname, 'third-party-generators');

/** The entry points the test calls, from the three packages as installed. */
interface GeneratorApis {
  createClient(config: Record<string, unknown>): Promise<unknown>;
  generateApi(config: Record<string, unknown>): Promise<unknown>;
  generateZodClientFromOpenAPI(args: Record<string, unknown>): Promise<unknown>;
}

/** The folder the pinned generators are installed in, and their entry points: set before any test runs. */
let installed: string;
let apis: GeneratorApis;

interface ZodLike {
  safeParse(value: unknown): { success: boolean };
}

/** One generator: how it is run (as docs/generating-clients.md shows), what it writes, how its output is read. */
interface Tool {
  /** npm package name, as the page's table heads its column */
  package: string;
  /** folder under the temporary root */
  folder: string;
  generate(input: JsonObject, out: string): Promise<unknown>;
  /** A TypeScript file (in the temporary root, beside `folder`) exporting `type <types|zod>_<Schema> = …` for each schema. */
  probeTypes(schemas: string[], folder: string): string;
  /** The tool's zod schema for a component, once its module is loaded; undefined when it makes none. */
  zod?: { module: string; get(module: Record<string, unknown>, schema: string): ZodLike | undefined };
}

const TOOLS: Tool[] = [
  {
    package: '@hey-api/openapi-ts',
    folder: 'hey-api',
    generate: (input, out) =>
      apis.createClient({
        input,
        output: { path: out },
        logs: { level: 'silent' },
        plugins: [
          '@hey-api/typescript',
          '@hey-api/client-fetch',
          '@hey-api/sdk',
          { name: 'zod', compatibilityVersion: 3, dates: { offset: true } },
        ],
      }),
    probeTypes: (schemas, folder) =>
      [
        `import type { z } from 'zod';`,
        `import type * as T from './${folder}/types.gen';`,
        `import type * as Z from './${folder}/zod.gen';`,
      ]
        .concat(
          schemas.flatMap((s) => [
            `export type types_${s} = T.${s};`,
            `export type zod_${s} = z.infer<typeof Z.z${s}>;`,
          ]),
        )
        .join('\n'),
    zod: { module: 'hey-api/zod.gen.ts', get: (m, s) => m[`z${s}`] as ZodLike | undefined },
  },
  {
    package: 'swagger-typescript-api',
    folder: 'swagger-typescript-api',
    generate: (input, out) =>
      apis.generateApi({ spec: input, output: out, fileName: 'api.ts', httpClientType: 'fetch', silent: true }),
    probeTypes: (schemas, folder) =>
      [`import type * as T from './${folder}/api';`]
        .concat(schemas.map((s) => `export type types_${s} = T.${s};`))
        .join('\n'),
  },
  {
    package: 'openapi-zod-client',
    folder: 'openapi-zod-client',
    async generate(input, out) {
      await mkdir(out, { recursive: true });
      await apis.generateZodClientFromOpenAPI({
        openApiDoc: structuredClone(input),
        distPath: join(out, 'client.ts'),
        options: { exportSchemas: true, shouldExportAllSchemas: true, withAlias: true },
      });
    },
    probeTypes: (schemas, folder) =>
      [`import type { z } from 'zod';`, `import type { schemas } from './${folder}/client';`]
        .concat(schemas.map((s) => `export type zod_${s} = z.infer<typeof schemas.${s}>;`))
        .join('\n'),
    zod: {
      module: 'openapi-zod-client/client.ts',
      get: (m, s) => (m.schemas as Record<string, ZodLike> | undefined)?.[s],
    },
  },
];

const doc = loadBundle();
const schemasOf = (document: JsonObject) => (document.components as JsonObject).schemas as Record<string, JsonObject>;
/** Object schemas: those with properties of their own or through allOf, or a oneOf of objects. */
const objectSchemas = (document: JsonObject) =>
  Object.entries(schemasOf(document))
    .filter(([, schema]) => propertiesOf(document, schema).size > 0 || Array.isArray(schema.oneOf))
    .map(([name]) => name);
const composed = (name: string) => ['allOf', 'oneOf', 'anyOf'].some((k) => schemasOf(doc)[name][k] !== undefined);

/** `tsc --strict` for a web or bundler project: what docs/generating-clients.md asks of a project using the output. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: [],
  skipLibCheck: true,
};

interface Generated {
  program: ts.Program;
  probe: ts.SourceFile;
}

let root: string;
const outputs = new Map<Tool, Generated>();
const zodModules = new Map<Tool, Record<string, unknown>>();

/** Runs `tool` on `input` into `root/folder`, and compiles its output with a probe file over `schemas`. */
async function generate(tool: Tool, input: JsonObject, folder: string, schemas: string[]): Promise<Generated> {
  await tool.generate(structuredClone(input), join(root, folder));
  const probe = join(root, `${folder}.probe.ts`);
  await writeFile(probe, tool.probeTypes(schemas, folder));
  const program = ts.createProgram(ts.sys.readDirectory(join(root, folder), ['.ts']).concat(probe), COMPILER_OPTIONS);
  return { program, probe: program.getSourceFile(probe)! };
}

beforeAll(async () => {
  installed = await installedPinned(PINNED, cacheFolder(ROOT, 'third-party-generators'));
  // a module in the install, so that the packages resolve from its node_modules
  const entry = join(installed, 'entry.mjs');
  await writeFile(
    entry,
    [
      `export { createClient } from '@hey-api/openapi-ts';`,
      `export { generateApi } from 'swagger-typescript-api';`,
      `export { generateZodClientFromOpenAPI } from 'openapi-zod-client';`,
    ].join('\n'),
  );
  apis = (await import(pathToFileURL(entry).href)) as GeneratorApis;
}, 10 * 60_000);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'generators-'));
  // The outputs import their runtimes (zod, @zodios/core) as a project would: from node_modules.
  await symlink(join(installed, 'node_modules'), join(root, 'node_modules'), 'dir');
  // What a team would feed them: the bundle as published (generated.test.ts holds it to the contract).
  const published = JSON.parse(await readFile(BUNDLE, 'utf8')) as JsonObject;
  for (const tool of TOOLS) {
    outputs.set(tool, await generate(tool, published, tool.folder, objectSchemas(published)));
    if (tool.zod) zodModules.set(tool, (await import(join(root, tool.zod.module))) as Record<string, unknown>);
  }
}, 120_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** What a contract says of each property of an object schema (each branch of a oneOf): required or optional. */
function contractShapes(document: JsonObject, name: string): string[] {
  const schema = schemasOf(document)[name];
  const shape = (s: unknown) => {
    const required = requiredOf(document, s);
    return describeShape(new Map([...propertiesOf(document, s).keys()].map((p) => [p, required.has(p)])));
  };
  return (Array.isArray(schema.oneOf) ? schema.oneOf.map(shape) : [shape(schema)]).sort();
}

/** The same reading of a generated type: each object member (each member of a union) with its properties' optionality. */
function generatedShapes(checker: ts.TypeChecker, type: ts.Type): string[] {
  const members = type.isUnion() ? type.types : [type];
  return members
    .map((member) =>
      describeShape(
        new Map(
          checker
            .getPropertiesOfType(checker.getApparentType(member))
            .map((p) => [p.name, (p.flags & ts.SymbolFlags.Optional) === 0]),
        ),
      ),
    )
    .sort();
}

const describeShape = (shape: Map<string, boolean>) =>
  `{ ${[...shape]
    .map(([p, required]) => `${p}${required ? '' : '?'}`)
    .sort()
    .join(', ')} }`;

/** Each probe type (`types_X`, `zod_X`) whose properties differ from what the contract says of X. */
function optionalityMismatches(
  document: JsonObject,
  { program, probe }: Generated,
): { checked: string[]; mismatches: string[] } {
  const checker = program.getTypeChecker();
  const aliases = probe.statements.filter(ts.isTypeAliasDeclaration);
  const mismatches = aliases.flatMap((alias) => {
    const expected = contractShapes(document, alias.name.text.replace(/^(types|zod)_/, ''));
    const actual = generatedShapes(checker, checker.getTypeAtLocation(alias.name));
    return JSON.stringify(actual) === JSON.stringify(expected)
      ? []
      : [`${alias.name.text}: ${actual.join(' | ')}, but the contract says ${expected.join(' | ')}`];
  });
  return { checked: aliases.map((a) => a.name.text), mismatches };
}

// A whole program's type check (CPU-bound: 18-21 s under a whole run's load, 3-4 s alone):
// only a hang should fail it.
describe.each(TOOLS)('$package', { timeout: 120_000 }, (tool) => {
  it('compiles with strict', () => {
    const { program } = outputs.get(tool)!;
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
      ts.formatDiagnostic(d, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => root,
        getNewLine: () => '\n',
      }),
    );
    expect(diagnostics).toEqual([]);
  });

  it('keeps each property of every object schema with the contract optionality', () => {
    const { checked, mismatches } = optionalityMismatches(doc, outputs.get(tool)!);
    expect(mismatches).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(objectSchemas(doc).length);
    // the schemas generators used to misread are among those checked
    for (const name of [
      'CheckoutSessionRequest',
      'CustomerInfoWithEmail',
      'ValidationProblem',
      'CustomerPage',
      'PaymentRequest',
      'SessionUrls',
      'Amount',
    ]) {
      expect(composed(name) && checked.some((alias) => alias.endsWith(`_${name}`)), name).toBe(true);
    }
  });
});

it('the same check finds what a generator dropped from the old shape (allOf beside properties, the released 2.0.0)', async () => {
  const release = await latestRelease();
  if (!release) throw new Error('no release recorded in openapi/releases/');
  const released = parse(await readFile(release.file, 'utf8')) as JsonObject;
  const tool = TOOLS.find((t) => t.package === 'openapi-zod-client')!;
  const { mismatches } = optionalityMismatches(
    released,
    await generate(tool, released, 'released-openapi-zod-client', ['CheckoutSessionRequest', 'CustomerPage', 'Amount']),
  );
  // openapi-zod-client keeps the allOf base and drops the properties beside it
  expect(mismatches.map((m) => m.split(':')[0]).sort()).toEqual([
    'zod_Amount',
    'zod_CheckoutSessionRequest',
    'zod_CustomerPage',
  ]);
  expect(mismatches.join('\n')).toMatch(/zod_CheckoutSessionRequest: .*but the contract says .*transId, .*urls/);
}, 60_000);

describe('zod schemas from the contract give its verdicts', () => {
  const corpus: CorpusValue[] = buildCorpus(doc);
  const validator = createSchemaValidator(doc);
  const probes: KeywordProbe[] = buildKeywordProbes(
    doc,
    corpus,
    (pointer, value) => validator.validate(pointer, value).length === 0,
  );
  const zodTools = TOOLS.filter((t) => t.zod);
  const zodOf = (tool: Tool, schema: string) => {
    const z = tool.zod!.get(zodModules.get(tool)!, schema);
    if (!z) throw new Error(`${tool.package} made no zod schema for ${schema}`);
    return z;
  };

  it.each(zodTools)('$package: every example and valid variant accepted, every invalid variant rejected', (tool) => {
    const wrong = corpus.filter(
      (v) => zodOf(tool, v.schema).safeParse(v.value).success !== (v.kind === 'example' || v.kind === 'valid'),
    );
    expect(wrong.map((v) => `${v.schema} (${v.kind}) ${v.label}`)).toEqual([]);
    expect(corpus.length).toBeGreaterThan(1000);
  });

  it('each probe tests its keyword alone, and every validation keyword of the contract has probes', () => {
    const leaky = probes.filter((p) => {
      const errors = validator.validateComponent(p.schema, p.value);
      return p.valid ? errors.length > 0 : errors.length === 0 || errors.some((e) => !p.failsOn.includes(e.keyword));
    });
    expect(leaky.map((p) => p.label)).toEqual([]);
    expect(new Set(probes.map((p) => p.keyword))).toEqual(new Set(contractKeywords().keys()));
  });

  it.each(zodTools)('$package: enforces exactly the keywords docs/generating-clients.md says it does', async (tool) => {
    const table = await readGapTable();
    const column = table.tools.indexOf(tool.package);
    expect(column, `docs/generating-clients.md column for ${tool.package}`).toBeGreaterThanOrEqual(0);
    const measured = new Map<string, string[]>();
    for (const probe of probes) {
      const failures = measured.get(probe.keyword) ?? [];
      if (zodOf(tool, probe.schema).safeParse(probe.value).success !== probe.valid) failures.push(probe.label);
      measured.set(probe.keyword, failures);
    }
    const said = new Map(table.rows.map((row) => [row.keyword, row.cells[column].startsWith('enforced')]));
    expect([...said.keys()].sort()).toEqual([...measured.keys()].sort());
    for (const [keyword, failures] of measured) {
      // enforced: no probe gets the wrong verdict; not enforced: the page's claim is shown by a probe
      expect(
        failures.length === 0,
        `${tool.package}, ${keyword}: docs/generating-clients.md says ${said.get(keyword) ? 'enforced' : 'not enforced'}; wrong verdicts: ${failures.slice(0, 3).join('; ') || 'none'}`,
      ).toBe(said.get(keyword));
    }
  });

  it('docs/generating-clients.md names where each keyword stands in the contract', async () => {
    const table = await readGapTable();
    const said = Object.fromEntries(table.rows.map((row) => [row.keyword, row.where.sort().join(', ')]));
    const found = Object.fromEntries(
      [...contractKeywords()].map(([keyword, names]) => [keyword, [...names].sort().join(', ')]),
    );
    expect(said).toEqual(found);
  });

  it('docs/generating-clients.md states the versions the tests ran', async () => {
    const table = await readGapTable();
    const section = await readSection();
    const pinned = JSON.parse(await readFile(join(PINNED, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const tool of TOOLS) {
      const manifest = join(installed, 'node_modules', tool.package, 'package.json');
      const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
      expect(version, `${tool.package} as installed`).toBe(pinned.dependencies[tool.package]);
      expect(section, tool.package).toContain(`${tool.package}\` ${version}`);
    }
    expect(table.tools).toEqual(zodTools.map((t) => t.package));
  });
});

/** The validation keywords (and string formats) the contract's schemas use, as the probes name them, with the component schemas that use each. */
function contractKeywords(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [name, schema] of Object.entries(schemasOf(doc))) {
    const add = (keyword: string) => found.set(keyword, (found.get(keyword) ?? new Set()).add(name));
    walkObjects(schema, (node) => {
      for (const keyword of ['minProperties', 'maxProperties', 'uniqueItems', 'oneOf'])
        if (node[keyword] !== undefined) add(keyword);
      if (node.if !== undefined) add('if/then');
      // an int32 with its own minimum and maximum inside the int32 range needs no probe of its format
      const bounded =
        typeof node.minimum === 'number' &&
        typeof node.maximum === 'number' &&
        node.minimum >= -(2 ** 31) &&
        node.maximum < 2 ** 31;
      if (typeof node.format === 'string' && !(node.format === 'int32' && bounded)) add(`format: ${node.format}`);
    });
  }
  return found;
}

const SECTION = '# Generating your own client';

/** The page docs/generating-clients.md, whose title is SECTION: the whole page is the section. */
async function readSection(): Promise<string> {
  const page = await readFile(PAGE, 'utf8');
  if (!page.startsWith(`${SECTION}\n`)) throw new Error(`docs/generating-clients.md does not start with "${SECTION}"`);
  return page;
}

/** The page's table: | `keyword` | where | tool… |, the tools named by their package in the header. */
async function readGapTable(): Promise<{
  tools: string[];
  rows: Array<{ keyword: string; where: string[]; cells: string[] }>;
}> {
  const all = (await readSection()).split('\n');
  const start = all.findIndex((l) => l.startsWith('| Keyword | Where |'));
  if (start < 0)
    throw new Error(`docs/generating-clients.md: no table starting | Keyword | Where | under "${SECTION}"`);
  const end = all.findIndex((l, i) => i > start && !l.startsWith('|'));
  const lines = all.slice(start, end < 0 ? undefined : end);
  const cellsOf = (line: string) =>
    line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  const header = cellsOf(lines[0]);
  return {
    tools: header.slice(2).map((h) => /`([^`]+)`/.exec(h)?.[1] ?? h),
    rows: lines.slice(2).map((line) => {
      const [keyword, where, ...cells] = cellsOf(line);
      return { keyword: keyword.replace(/`/g, ''), where: [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1]), cells };
    }),
  };
}
