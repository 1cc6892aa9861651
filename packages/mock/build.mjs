// This package's build (`npm run build`, which `npm run pack:mock` runs): the command and the
// library bundled by esbuild into dist/ (what they share with the repository inside: the mock's front
// and serving part, the CORS rule, the challenges, the walker, the process groups; Prism, the one
// declared dependency, left as a package it resolves and runs), the contract's bundle beside them,
// and the declarations of the library from tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dist = join(here, 'dist');
const manifest = createRequire(import.meta.url)('./package.json');

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(here, 'src/cli.ts'), index: join(here, 'src/index.ts') },
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: Object.keys(manifest.dependencies),
  legalComments: 'none',
  logLevel: 'warning',
});
// The contract as the repository bundled it: the package mocks this file and never bundles at run time.
copyFileSync(join(root, 'generated/openapi.json'), join(dist, 'openapi.json'));

const declarations = join(dist, '.declarations');
const tsc = spawnSync(
  process.execPath,
  [
    createRequire(import.meta.url).resolve('typescript/bin/tsc'),
    '--declaration',
    '--emitDeclarationOnly',
    '--skipLibCheck',
    '--strict',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    '--rootDir',
    root,
    '--outDir',
    declarations,
    join(here, 'src/index.ts'),
  ],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// The library's declarations only: the rest describes internals a consumer never imports.
copyFileSync(join(declarations, 'packages/mock/src/index.d.ts'), join(dist, 'index.d.ts'));
rmSync(declarations, { recursive: true, force: true });
writeFileSync(join(dist, 'cli.d.ts'), 'export {};\n');
