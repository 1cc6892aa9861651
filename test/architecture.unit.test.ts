// The import direction of the repository: contract → generator → generated → SDK (src/, packed from
// packages/sdk/). tooling/ (the one OpenAPI walker, processes, the repository's root) is under
// everything and imports nothing of the repository but itself; src/ holds only what the SDK ships (no
// tooling, generator, sandbox or scripts); nothing imports test/ or scripts/ (commands only: what
// they share lives in tooling/, generator/, mock/ or bench/); the generator never imports the sandbox,
// the mock or the benchmark; the SDK imports no Node built-ins. The sandbox's layers: http/ (routing,
// auth, problems) and jobs/ (clock ticker, webhook deliverer) call app/ (use cases that return
// outcomes), which uses domain/ (pure), contract/ (the bundle) and store/ (the only SQL); app/,
// domain/ and contract/ import no Node built-in, since a browser page runs them too (what they need
// of the runtime comes through sandbox/app/platform.ts). Imports are read with TypeScript's own
// pre-processor (static, dynamic and type-only imports, re-exports, require).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AREAS, SERIAL } from '../vitest.config.js';

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = [
  'tooling',
  'generator',
  'generated',
  'scripts',
  'src',
  'examples',
  'sandbox',
  'mock',
  'bench',
  'packages',
  'test',
];
/** Third-party browser bundles published as they are (the docs console's Scalar), not the project's code. */
const VENDORED = ['generated/docs/scalar/standalone.js'];

interface SourceFile {
  /** repository-relative, `/`-separated */
  path: string;
  /** import specifiers as written */
  imports: string[];
}

/** The imported module: its top folder and repository-relative path, or its package (`node:` for built-ins). */
function targetOf(
  file: string,
  specifier: string,
): { folder: string | undefined; target: string | undefined; packageName: string | undefined } {
  if (specifier.startsWith('.')) {
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
      .split(sep)
      .join('/');
    return { folder: target.startsWith('..') ? '..' : target.split('/')[0], target, packageName: undefined };
  }
  const packageName = specifier.startsWith('node:')
    ? 'node:'
    : specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
  return { folder: undefined, target: undefined, packageName };
}

/** The database libraries: only the store may use them. */
const SQL_PACKAGES = new Set(['kysely', 'pg', 'better-sqlite3', 'sql.js']);
/** HTTP frameworks: only the sandbox's HTTP layer (and its composition root) may use them. */
const HTTP_PACKAGES = new Set(['fastify']);
/** The sandbox's folders that a browser page runs as well as Node. */
const RUNTIME_FREE = ['sandbox/app/', 'sandbox/domain/', 'sandbox/contract/'];

/**
 * Whether `target` lies under one of `prefixes` (a folder, or a module: `sandbox/store/store` is the
 * store's interface, which the layers above use instead of the store's internals).
 */
const inFolders = (target: string | undefined, prefixes: readonly string[]) =>
  target !== undefined && prefixes.some((p) => target.startsWith(p));

interface Rule {
  /** files under this repository-relative prefix */
  from: string;
  /** why, for the message */
  because: string;
  /** true when the import is allowed */
  allows(target: {
    folder: string | undefined;
    target: string | undefined;
    packageName: string | undefined;
    path: string;
  }): boolean;
}

/**
 * What a layer beneath the sandbox's HTTP layer may import: any package but an HTTP framework, and
 * of the repository only what lies under `folders`.
 */
const beneathHttp =
  (folders: readonly string[]): Rule['allows'] =>
  ({ folder, target, packageName }) =>
    folder === undefined ? !HTTP_PACKAGES.has(packageName!) : inFolders(target, folders);

const RULES: Rule[] = [
  {
    from: '',
    because: 'nothing imports test/ (tests depend on the product, never the reverse)',
    allows: ({ folder, path }) => folder !== 'test' || path.startsWith('test/'),
  },
  {
    from: '',
    because:
      'nothing imports scripts/ (scripts are commands; what they share lives in tooling/, generator/, mock/ or bench/)',
    allows: ({ folder, path }) => folder !== 'scripts' || path.startsWith('scripts/'),
  },
  {
    from: 'generator/',
    because: 'the generator does not import the sandbox, the mock or the benchmark (they are built on top of it)',
    allows: ({ folder }) => folder !== 'sandbox' && folder !== 'mock' && folder !== 'bench',
  },
  {
    from: 'mock/',
    because:
      "the mock is Prism behind a front: it uses the shared tooling and the contract's output, nothing else of the repository",
    allows: ({ folder }) => folder === undefined || folder === 'mock' || folder === 'tooling' || folder === 'generated',
  },
  {
    from: 'generated/',
    because: 'generated code imports only the SDK types it is written against',
    allows: ({ folder, path }) =>
      path.startsWith('generated/samples/') ||
      (folder === undefined ? false : folder === 'generated' || folder === 'src'),
  },
  {
    from: 'generated/samples/',
    because: 'the code samples are user programs: they import the SDK by its published name only',
    allows: ({ packageName }) => packageName === '@payment-service/api-v2',
  },
  {
    from: 'src/client/',
    because: 'the client SDK is web-standard and depends on openapi-fetch alone',
    allows: ({ folder, packageName }) =>
      folder === undefined ? packageName === 'openapi-fetch' : folder === 'src' || folder === 'generated',
  },
  {
    from: 'src/webhooks/',
    because: 'the webhook helpers are web-standard and depend on nothing',
    allows: ({ folder }) => folder === 'src' || folder === 'generated',
  },
  {
    from: 'src/',
    because: 'src/ holds only what the package ships: it imports no tooling, generator, sandbox or scripts',
    allows: ({ folder }) => folder === undefined || folder === 'src' || folder === 'generated',
  },
  {
    from: 'tooling/openapi/',
    because:
      'the OpenAPI walker is runtime-free (type-only imports of openapi-typescript) and under every other folder',
    allows: ({ folder, packageName }) =>
      folder === undefined ? packageName === 'openapi-typescript' : folder === 'tooling',
  },
  {
    from: 'tooling/',
    because: 'tooling/ is under every other folder: it imports nothing of the repository but tooling/',
    allows: ({ folder }) => folder === undefined || folder === 'tooling',
  },
  {
    from: 'sandbox/domain/',
    because: "the sandbox domain is pure TypeScript: no node: imports, no SQL, no HTTP; the contract's types only",
    allows: ({ target }) =>
      target !== undefined &&
      (target.startsWith('sandbox/domain/') || target.startsWith('generated/') || target === 'tooling/defined.js'),
  },
  {
    from: 'sandbox/',
    because:
      'app/, domain/ and contract/ run in a browser page too: what they need of the runtime comes through its platform (sandbox/app/platform.ts), never a node: module',
    allows: ({ packageName, path }) => packageName !== 'node:' || !inFolders(path, RUNTIME_FREE),
  },
  {
    from: 'sandbox/contract/',
    because:
      'the contract model is built from the bundle (and checks its tables with the domain): it knows no use case, no HTTP, no store',
    allows: ({ folder, target }) =>
      folder === undefined || inFolders(target, ['sandbox/contract/', 'sandbox/domain/', 'tooling/', 'generated/']),
  },
  {
    from: 'sandbox/app/',
    because:
      "use cases return outcomes: they never import the HTTP layer, the jobs, an HTTP framework or a platform's implementation (sandbox/platform/)",
    allows: beneathHttp(['sandbox/app/', 'sandbox/domain/', 'sandbox/contract/', 'sandbox/store/store', 'generated/']),
  },
  {
    from: 'sandbox/jobs/',
    because: 'background jobs call the use cases (app/), never the HTTP layer',
    allows: beneathHttp([
      'sandbox/jobs/',
      'sandbox/app/',
      'sandbox/domain/',
      'sandbox/store/store',
      'src/webhooks/',
      'generated/',
    ]),
  },
  {
    from: 'sandbox/store/',
    because: 'the store sits under the domain: it knows the entities, never the use cases or the HTTP layer',
    allows: ({ target }) => target === undefined || inFolders(target, ['sandbox/store/', 'sandbox/domain/']),
  },
  {
    from: 'sandbox/http/',
    because:
      'the HTTP layer turns requests into use cases and outcomes into answers: it never runs the jobs, scripts or tests',
    allows: ({ folder, target }) =>
      folder === undefined ||
      inFolders(target, [
        'sandbox/http/',
        'sandbox/app/',
        'sandbox/contract/',
        'sandbox/domain/',
        'sandbox/store/store',
        'tooling/',
        'generated/',
      ]),
  },
  {
    from: 'packages/verify/src/',
    because:
      'the verifier judges from the contract alone: its own code, the walker and its declared dependencies, nothing of the sandbox, the SDK or the generator it may be pointed at',
    allows: ({ folder, target, packageName }) =>
      folder === undefined
        ? ['node:', '@hyperjump/json-schema', 'jsonpath-rfc9535', 'yaml'].includes(packageName!)
        : inFolders(target, ['packages/verify/', 'tooling/openapi/']),
  },
  {
    from: 'packages/sandbox/src/',
    because:
      'the sandbox package is the sandbox as it is (its command runs sandbox/main.ts; createSandbox composes sandbox/compose.ts in process, in Node or a page), with a Node API that drives it over HTTP and its MSW handlers: nothing of the generator, the verifier or the tests',
    allows: ({ folder, target, packageName }) =>
      folder === undefined
        ? packageName!.startsWith('node:') || packageName === 'msw'
        : inFolders(target, ['packages/sandbox/', 'sandbox/', 'generated/admin/']),
  },
  {
    from: 'packages/mock/src/',
    because: 'the mock package is the mock as it is (mock/ and the walker), with Prism as its one dependency',
    allows: ({ folder, target, packageName }) =>
      folder === undefined
        ? packageName!.startsWith('node:') || packageName === '@stoplight/prism-cli'
        : inFolders(target, ['packages/mock/', 'mock/', 'tooling/']),
  },
  {
    from: '',
    because: 'SQL lives in the sandbox store alone (and the embedded PostgreSQL server creates its databases)',
    allows: ({ packageName, path }) =>
      packageName === undefined ||
      !SQL_PACKAGES.has(packageName) ||
      path.startsWith('sandbox/store/') ||
      path.startsWith('test/') ||
      path.startsWith('bench/') ||
      path === 'tooling/process/postgres.ts',
  },
];

/**
 * Imports that break a rule for now, each with what it waits for. contract/ still offers loaders that
 * read the documents' files (through sandbox/platform/documents.ts, Node's) to the files that have not
 * yet switched to reading them there themselves. An entry whose import is gone fails the test below:
 * delete it.
 */
const PENDING: Record<string, string> = {};

function violations(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const specifier of file.imports) {
      const target = { ...targetOf(file.path, specifier), path: file.path };
      for (const rule of RULES) {
        if (file.path.startsWith(rule.from) && !rule.allows(target))
          out.push(`${file.path} imports ${specifier}: ${rule.because}`);
      }
    }
  }
  return out;
}

function sourceFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  for (const folder of FOLDERS) {
    let entries: string[];
    try {
      entries = readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' });
    } catch {
      continue; // a folder that does not exist yet
    }
    for (const entry of entries) {
      // A package's dist/ is its build's output (git-ignored): bundles of the sources held here.
      if (!/\.(ts|mts|cts|js|mjs)$/.test(entry) || entry.split(sep).includes('node_modules')) continue;
      if (folder === 'packages' && entry.split(sep)[1] === 'dist') continue;
      const path = `${folder}/${entry.split(sep).join('/')}`;
      if (VENDORED.includes(path)) continue;
      const info = ts.preProcessFile(readFileSync(join(ROOT, path), 'utf8'), true, true);
      files.push({ path, imports: info.importedFiles.map((f) => f.fileName) });
    }
  }
  return files;
}

describe('import direction', () => {
  const files = sourceFiles();

  it('sees the imports of every folder (static, dynamic, type-only)', () => {
    const byPath = new Map(files.map((f) => [f.path, f.imports]));
    expect(byPath.get('generator/steps/operations.ts')).toContain('../../tooling/openapi/walker.js');
    expect(byPath.get('generator/steps/types.ts')).toContain('openapi-typescript'); // a dynamic import()
    expect(byPath.get('src/client/types.ts')).toContain('../../generated/operations.js'); // type-only
    expect(files.filter((f) => f.path.startsWith('test/')).length).toBeGreaterThan(10);
  });

  it('catches each kind of backward import (counter-examples)', () => {
    const found = violations([
      { path: 'scripts/mock.ts', imports: ['../test/support/prism.js'] },
      { path: 'test/support/prism.ts', imports: ['../../scripts/mock.js'] },
      { path: 'generator/generate.ts', imports: ['../sandbox/server.js'] },
      { path: 'tooling/process/postgres.ts', imports: ['../../generator/support/paths.js'] },
      { path: 'mock/front.ts', imports: ['../sandbox/http/app.js'] },
      { path: 'src/client/client.ts', imports: ['node:crypto', '../../generator/bundle.js', 'openapi-fetch'] },
      { path: 'src/client/auth.ts', imports: ['../../tooling/openapi/walker.js'] },
      { path: 'tooling/openapi/walker.ts', imports: ['node:fs', '../../src/client/operation-info.js'] },
      { path: 'src/webhooks/signature.ts', imports: ['node:crypto'] },
      { path: 'generated/operations.ts', imports: ['../generator/operations.js'] },
      {
        path: 'generated/samples/createPayment.example.ts',
        imports: ['../../src/client/index.js', '@payment-service/api-v2'],
      },
      { path: 'sandbox/domain/payments.ts', imports: ['node:crypto', '../store/store.js', 'kysely'] },
      { path: 'sandbox/store/index.ts', imports: ['../http/app.js'] },
      { path: 'sandbox/app/payments.ts', imports: ['../http/replies.js', 'fastify', '../jobs/clock-ticker.js'] },
      { path: 'sandbox/app/random.ts', imports: ['node:crypto', '../platform/node.js'] },
      { path: 'sandbox/jobs/clock-ticker.ts', imports: ['../http/app.js'] },
      { path: 'sandbox/http/admin.ts', imports: ['../jobs/webhook-deliverer.js'] },
      { path: 'sandbox/contract/contract.ts', imports: ['../app/context.js', 'node:fs'] },
      { path: 'sandbox/http/pipeline.ts', imports: ['better-sqlite3'] },
    ]);
    expect(found).toEqual([
      'scripts/mock.ts imports ../test/support/prism.js: nothing imports test/ (tests depend on the product, never the reverse)',
      'test/support/prism.ts imports ../../scripts/mock.js: nothing imports scripts/ (scripts are commands; what they share lives in tooling/, generator/, mock/ or bench/)',
      'generator/generate.ts imports ../sandbox/server.js: the generator does not import the sandbox, the mock or the benchmark (they are built on top of it)',
      'tooling/process/postgres.ts imports ../../generator/support/paths.js: tooling/ is under every other folder: it imports nothing of the repository but tooling/',
      "mock/front.ts imports ../sandbox/http/app.js: the mock is Prism behind a front: it uses the shared tooling and the contract's output, nothing else of the repository",
      'src/client/client.ts imports node:crypto: the client SDK is web-standard and depends on openapi-fetch alone',
      'src/client/client.ts imports ../../generator/bundle.js: the client SDK is web-standard and depends on openapi-fetch alone',
      'src/client/client.ts imports ../../generator/bundle.js: src/ holds only what the package ships: it imports no tooling, generator, sandbox or scripts',
      'src/client/auth.ts imports ../../tooling/openapi/walker.js: the client SDK is web-standard and depends on openapi-fetch alone',
      'src/client/auth.ts imports ../../tooling/openapi/walker.js: src/ holds only what the package ships: it imports no tooling, generator, sandbox or scripts',
      'tooling/openapi/walker.ts imports node:fs: the OpenAPI walker is runtime-free (type-only imports of openapi-typescript) and under every other folder',
      'tooling/openapi/walker.ts imports ../../src/client/operation-info.js: the OpenAPI walker is runtime-free (type-only imports of openapi-typescript) and under every other folder',
      'tooling/openapi/walker.ts imports ../../src/client/operation-info.js: tooling/ is under every other folder: it imports nothing of the repository but tooling/',
      'src/webhooks/signature.ts imports node:crypto: the webhook helpers are web-standard and depend on nothing',
      'generated/operations.ts imports ../generator/operations.js: generated code imports only the SDK types it is written against',
      'generated/samples/createPayment.example.ts imports ../../src/client/index.js: the code samples are user programs: they import the SDK by its published name only',
      "sandbox/domain/payments.ts imports node:crypto: the sandbox domain is pure TypeScript: no node: imports, no SQL, no HTTP; the contract's types only",
      'sandbox/domain/payments.ts imports node:crypto: app/, domain/ and contract/ run in a browser page too: what they need of the runtime comes through its platform (sandbox/app/platform.ts), never a node: module',
      "sandbox/domain/payments.ts imports ../store/store.js: the sandbox domain is pure TypeScript: no node: imports, no SQL, no HTTP; the contract's types only",
      "sandbox/domain/payments.ts imports kysely: the sandbox domain is pure TypeScript: no node: imports, no SQL, no HTTP; the contract's types only",
      'sandbox/domain/payments.ts imports kysely: SQL lives in the sandbox store alone (and the embedded PostgreSQL server creates its databases)',
      'sandbox/store/index.ts imports ../http/app.js: the store sits under the domain: it knows the entities, never the use cases or the HTTP layer',
      "sandbox/app/payments.ts imports ../http/replies.js: use cases return outcomes: they never import the HTTP layer, the jobs, an HTTP framework or a platform's implementation (sandbox/platform/)",
      "sandbox/app/payments.ts imports fastify: use cases return outcomes: they never import the HTTP layer, the jobs, an HTTP framework or a platform's implementation (sandbox/platform/)",
      "sandbox/app/payments.ts imports ../jobs/clock-ticker.js: use cases return outcomes: they never import the HTTP layer, the jobs, an HTTP framework or a platform's implementation (sandbox/platform/)",
      'sandbox/app/random.ts imports node:crypto: app/, domain/ and contract/ run in a browser page too: what they need of the runtime comes through its platform (sandbox/app/platform.ts), never a node: module',
      "sandbox/app/random.ts imports ../platform/node.js: use cases return outcomes: they never import the HTTP layer, the jobs, an HTTP framework or a platform's implementation (sandbox/platform/)",
      'sandbox/jobs/clock-ticker.ts imports ../http/app.js: background jobs call the use cases (app/), never the HTTP layer',
      'sandbox/http/admin.ts imports ../jobs/webhook-deliverer.js: the HTTP layer turns requests into use cases and outcomes into answers: it never runs the jobs, scripts or tests',
      'sandbox/contract/contract.ts imports ../app/context.js: the contract model is built from the bundle (and checks its tables with the domain): it knows no use case, no HTTP, no store',
      'sandbox/contract/contract.ts imports node:fs: app/, domain/ and contract/ run in a browser page too: what they need of the runtime comes through its platform (sandbox/app/platform.ts), never a node: module',
      'sandbox/http/pipeline.ts imports better-sqlite3: SQL lives in the sandbox store alone (and the embedded PostgreSQL server creates its databases)',
    ]);
  });

  it('holds in the repository', () => {
    const found = violations(files);
    const pendingOf = (violation: string) => Object.keys(PENDING).find((entry) => violation.startsWith(`${entry}:`));
    expect(found.filter((violation) => pendingOf(violation) === undefined)).toEqual([]);
    const waiting = new Set(found.map(pendingOf));
    expect(
      Object.keys(PENDING).filter((entry) => !waiting.has(entry)),
      'PENDING entries whose import is gone',
    ).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// No import cycles: the same imports (static, dynamic, type-only) as a graph of the repository's
// files. A cycle is reported as the files it goes through, `a.ts → b.ts → a.ts`.

/** The scanned file a relative specifier names (`x.js` as written for `x.ts`, a folder's index), or undefined (a package, a file not scanned). */
function resolveImport(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(ROOT, resolve(ROOT, dirname(from), specifier))
    .split(sep)
    .join('/');
  const stem = target.replace(/\.[cm]?[jt]s$/, '');
  return [
    target,
    ...['.ts', '.mts', '.cts', '.js', '.mjs'].map((ext) => stem + ext),
    `${target}/index.ts`,
    `${target}/index.js`,
  ].find((p) => known.has(p));
}

/** file → the scanned files it imports, sorted. */
function importGraph(files: SourceFile[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.path));
  const targets = (f: SourceFile) => f.imports.flatMap((s) => resolveImport(f.path, s, known) ?? []);
  return new Map(files.map((f) => [f.path, [...new Set(targets(f))].sort()]));
}

/**
 * Every knot of files that import each other (a strongly connected component, Tarjan), each named
 * by its shortest cycle through its first file in path order; when the knot holds more files than
 * that cycle, they are listed after it. Sorted, so the message is stable.
 */
function importCycles(files: SourceFile[]): string[] {
  const graph = importGraph(files);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const knot: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      knot.push(member);
    } while (member !== file);
    if (knot.length > 1 || graph.get(file)!.includes(file)) knots.push(knot.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);

  return knots
    .map((knot) => {
      // breadth-first from the knot's first file back to it, inside the knot
      const inKnot = new Set(knot);
      const start = knot[0]!;
      const cameFrom = new Map<string, string>();
      const queue = [start];
      let last: string | undefined;
      while (queue.length > 0 && last === undefined) {
        const file = queue.shift()!;
        for (const next of graph.get(file)!) {
          if (next === start) {
            last = file;
            break;
          }
          if (inKnot.has(next) && !cameFrom.has(next)) {
            cameFrom.set(next, file);
            queue.push(next);
          }
        }
      }
      const cycle = [start];
      for (let file = last!; file !== start; file = cameFrom.get(file)!) cycle.splice(1, 0, file);
      const others = knot.filter((f) => !cycle.includes(f));
      return `${[...cycle, start].join(' → ')}${others.length ? ` (the same knot also holds ${others.join(', ')})` : ''}`;
    })
    .sort();
}

describe('import cycles', () => {
  const files = sourceFiles();

  it('sees the edges of the graph (static, dynamic and type-only imports, `.js` written for `.ts`)', () => {
    const graph = importGraph(files);
    expect(graph.get('generator/cli.ts')).toEqual(
      expect.arrayContaining(['generator/generate.ts', 'generator/watch.ts']),
    ); // watch: a dynamic import()
    expect(graph.get('generator/watch.ts')).toContain('generator/pipeline.ts'); // type and value imports
    expect(graph.get('generator/steps/operations.ts')).toContain('tooling/openapi/walker.ts');
    expect(graph.get('src/client/types.ts')).toContain('generated/operations.ts'); // type-only
    expect([...graph.values()].flat().length).toBeGreaterThan(200);
  });

  it('names each cycle (counter-examples)', () => {
    const found = importCycles([
      // a library and its watch mode that import each other, one of them through a type-only import
      { path: 'generator/generate.ts', imports: ['./watch.js', './steps/bundle.js', 'node:fs'] },
      { path: 'generator/watch.ts', imports: ['./generate.js', './steps/bundle.js'] },
      { path: 'generator/steps/bundle.ts', imports: ['../support/paths.js'] },
      { path: 'generator/support/paths.ts', imports: ['node:path'] },
      // three files in a ring, and a fourth that joins the knot by a shortcut
      { path: 'scripts/a.ts', imports: ['./b.js'] },
      { path: 'scripts/b.ts', imports: ['./c.js', './d.js'] },
      { path: 'scripts/c.ts', imports: ['./a.js'] },
      { path: 'scripts/d.ts', imports: ['./b.js'] },
      // a file that imports itself; a folder's index
      { path: 'src/self.ts', imports: ['./self.js'] },
      { path: 'tooling/x/index.ts', imports: ['../y.js'] },
      { path: 'tooling/y.ts', imports: ['./x'] },
      // no cycle: a diamond
      { path: 'examples/top.ts', imports: ['./left.js', './right.js'] },
      { path: 'examples/left.ts', imports: ['./bottom.js'] },
      { path: 'examples/right.ts', imports: ['./bottom.js'] },
      { path: 'examples/bottom.ts', imports: [] },
    ]);
    expect(found).toEqual([
      'generator/generate.ts → generator/watch.ts → generator/generate.ts',
      'scripts/a.ts → scripts/b.ts → scripts/c.ts → scripts/a.ts (the same knot also holds scripts/d.ts)',
      'src/self.ts → src/self.ts',
      'tooling/x/index.ts → tooling/y.ts → tooling/x/index.ts',
    ]);
  });

  it('holds in the repository', () => {
    expect(importCycles(files)).toEqual([]);
  });
});

describe('test tree', () => {
  const files = sourceFiles();
  /** Why a test file would run in no project (undefined: it runs in one; area projects leave the unit files to unit). */
  const misplaced = (path: string): string | undefined => {
    const unit = path.endsWith('.unit.test.ts');
    if (path.endsWith('.msw.test.ts')) return unit ? `${path} is in two projects: unit and in-process` : undefined;
    const area = AREAS.find((a) => path.startsWith(`test/${a}/`));
    if (unit && SERIAL.includes(path)) return `${path} is in two projects: unit and serial`;
    if (!unit && !area && !SERIAL.includes(path))
      return `${path} is in no project: put it under test/<${AREAS.join('|')}>/, or name it *.unit.test.ts`;
    return undefined;
  };

  it('places a test file in exactly one project (counter-examples)', () => {
    expect(misplaced('test/sandbox/http.test.ts')).toBeUndefined();
    expect(misplaced('test/sandbox/ids.unit.test.ts')).toBeUndefined();
    expect(misplaced('test/architecture.unit.test.ts')).toBeUndefined();
    expect(misplaced('test/stray.test.ts')).toMatch(/in no project/);
    expect(misplaced('test/support/stray.test.ts')).toMatch(/in no project/);
    expect(misplaced(SERIAL[0]!)).toBeUndefined();
    expect(misplaced('test/sandbox/x.unit.test.ts')).toBeUndefined();
    expect(misplaced('test/sdk/sdk.msw.test.ts')).toBeUndefined();
    expect(misplaced('test/sdk/sdk.unit.msw.test.ts')).toBeUndefined();
  });

  it('holds in the repository: every test file runs under npm test', () => {
    const tests = files.map((f) => f.path).filter((p) => p.startsWith('test/') && p.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(40);
    expect(tests.flatMap((p) => misplaced(p) ?? [])).toEqual([]);
  });
});
