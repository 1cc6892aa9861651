// What the packages' builds share (tooling/package-build.mjs), on a package made here in a temp
// folder: the build's start empties dist/ and reads the manifest; esbuild bundles the package's own
// code and leaves what the manifest declares to npm (for a browser page, only what the build names);
// a CommonJS require() inside the ES module bundle works only with the banner; the contract is copied
// as the repository bundled it; the public API's declarations are what tsc emits for them, and a source
// that leaves an exported type to inference stops the build at its file and line, writing none.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleForBrowser,
  bundleForNode,
  copyContract,
  REQUIRE_BANNER,
  startBuild,
} from '../../tooling/package-build.mjs';
import { REPO_ROOT } from '../../tooling/repository.js';
import { runTsc } from '../support/packed.js';

let packageDir: string;
const manifest = {
  name: '@example/package',
  version: '1.0.0',
  type: 'module',
  dependencies: { yaml: '^2.0.0' },
  peerDependencies: { msw: '^2.0.0' },
};

/** The package's sources: what the builds bundle, and what its declarations are made from. */
const SOURCES: Record<string, string> = {
  'index.ts': [
    "import { parse } from 'yaml';",
    "import { http } from 'msw';",
    "import { own } from './own.js';",
    'export const parts = [parse, http, own];',
    '',
  ].join('\n'),
  'own.ts': "export const own = 'bundled with the package';\n",
  'page.ts': "import { http } from 'msw';\nimport { own } from './own.js';\nexport const parts = [http, own];\n",
  'api.ts': [
    "import type { Options } from './options.js';",
    'export interface Handle {\n  stop(): Promise<void>;\n}',
    '/** Starts it. */',
    'export function start(options: Options): Handle {\n  return { stop: async () => void options };\n}',
    "export const VERSION: string = '1.0.0';",
    '',
  ].join('\n'),
  'options.ts': 'export interface Options {\n  port?: number;\n}\n',
  'inferred.ts': 'export const half = 0.5;\nexport function start(port: number) {\n  return port * 2;\n}\n',
  'commonjs.ts': "declare const require: (id: string) => { sep: string };\nconsole.log(require('node:path').sep);\n",
};

beforeAll(async () => {
  packageDir = await mkdtemp(join(tmpdir(), 'package-build-'));
  await mkdir(join(packageDir, 'src'));
  await mkdir(join(packageDir, 'dist'));
  await writeFile(join(packageDir, 'dist', 'stale.js'), 'export {};\n');
  await writeFile(join(packageDir, 'package.json'), JSON.stringify(manifest));
  for (const [name, text] of Object.entries(SOURCES)) await writeFile(join(packageDir, 'src', name), text);
});

afterAll(async () => {
  if (packageDir) await rm(packageDir, { recursive: true, force: true });
});

describe('package builds', () => {
  it('start from the build script: its folder, its manifest, the repository, and dist/ emptied', () => {
    const build = startBuild(pathToFileURL(join(packageDir, 'build.mjs')).href);
    expect(build).toEqual({ packageDir, root: REPO_ROOT, dist: join(packageDir, 'dist'), manifest });
    expect(existsSync(join(build.dist, 'stale.js'))).toBe(false);
  });

  it("bundle the package's own code and leave its dependencies and peer dependencies to npm", async () => {
    const dist = join(packageDir, 'dist');
    await bundleForNode(manifest, { entryPoints: { index: join(packageDir, 'src', 'index.ts') }, outdir: dist });
    const code = await readFile(join(dist, 'index.js'), 'utf8');
    expect(code).toMatch(/from "yaml"/);
    expect(code).toMatch(/from "msw"/);
    expect(code).toContain('bundled with the package');
    expect(code).not.toMatch(/own\.js/);
  });

  it('bundle for a browser page into an ES module, leaving out only what the build names', async () => {
    const dist = join(packageDir, 'browser');
    await bundleForBrowser({
      entryPoints: { page: join(packageDir, 'src', 'page.ts') },
      outdir: dist,
      external: ['msw'],
    });
    const code = await readFile(join(dist, 'page.js'), 'utf8');
    expect(code).toMatch(/from "msw"/);
    expect(code).toContain('bundled with the package');
    expect(code).toMatch(/^export \{/m);
    expect(code).not.toMatch(/own\.js|require\(/);
  });

  it('give a CommonJS require() its function in an ES module only with the banner', async () => {
    const entry = { commonjs: join(packageDir, 'src', 'commonjs.ts') };
    const without = join(packageDir, 'without-banner');
    const withBanner = join(packageDir, 'with-banner');
    await bundleForNode(manifest, { entryPoints: entry, outdir: without });
    await bundleForNode(manifest, { entryPoints: entry, outdir: withBanner, banner: { js: REQUIRE_BANNER } });
    // run by Node itself: the test runner's own module loader may lend a require()
    const run = (dir: string) => spawnSync(process.execPath, [join(dir, 'commonjs.js')], { encoding: 'utf8' });
    const [refused, loaded] = [run(without), run(withBanner)];
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/Dynamic require of "node:path" is not supported/);
    expect([loaded.status, loaded.stdout]).toEqual([0, '/\n']);
  });

  it("emit the public API's declarations as tsc does, each from its source alone, and one for the command", async () => {
    const dist = join(packageDir, 'declarations');
    const build = declarationsBuild(dist, ['api.d.ts', 'options.d.ts']);
    expect(build.status, build.stderr).toBe(0);
    const tscOut = join(packageDir, 'tsc');
    const tsc = await runTsc(
      [
        ...['--declaration', '--emitDeclarationOnly', '--strict', '--module', 'nodenext', '--target', 'es2022'],
        ...['--outDir', tscOut, join(packageDir, 'src', 'api.ts')],
      ],
      packageDir,
    );
    expect(tsc.code, tsc.stdout).toBe(0);
    for (const file of ['api.d.ts', 'options.d.ts'])
      expect(await readFile(join(dist, file), 'utf8'), file).toBe(await readFile(join(tscOut, file), 'utf8'));
    expect(await readFile(join(dist, 'api.d.ts'), 'utf8')).toContain(
      'export declare function start(options: Options): Handle;',
    );
    expect(await readFile(join(dist, 'cli.d.ts'), 'utf8')).toBe('export {};\n');
  });

  it('stop at the file and line of an exported type left to inference, writing no declaration', async () => {
    const dist = join(packageDir, 'refused');
    const build = declarationsBuild(dist, ['api.d.ts', 'inferred.d.ts']);
    expect(build.status).toBe(1);
    const source = relative(REPO_ROOT, join(packageDir, 'src', 'inferred.ts'));
    expect(build.stderr).toContain(`${source}:2:17 Function must have an explicit return type annotation`);
    expect(build.stderr).not.toMatch(/inferred\.ts:1:/); // `half` is a literal: its type needs no inference
    expect(existsSync(join(dist, 'api.d.ts'))).toBe(false);
  });

  it('copy the contract as the repository bundled it', async () => {
    const dist = join(packageDir, 'contract');
    await mkdir(dist);
    copyContract(dist);
    const [copied, bundled] = await Promise.all([
      readFile(join(dist, 'openapi.json')),
      readFile(join(REPO_ROOT, 'generated', 'openapi.json')),
    ]);
    expect(copied.equals(bundled)).toBe(true);
  });
});

/** A build script run by Node that emits the declarations of `publicFiles` into `dist`: its exit and output. */
function declarationsBuild(dist: string, publicFiles: string[]) {
  const script = [
    "import { mkdirSync } from 'node:fs';",
    `import { emitDeclarations } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'tooling', 'package-build.mjs')).href)};`,
    `mkdirSync(${JSON.stringify(dist)}, { recursive: true });`,
    `emitDeclarations(${JSON.stringify({ packageDir, dist, publicFiles })});`,
  ].join('\n');
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
}
