import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { emitDeclarations } from '../../tooling/package-declarations.mjs';

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

// The library's declarations only: the rest describes internals a consumer never imports.
emitDeclarations({ packageDir: here, dist, entries: [join(here, 'src/index.ts')], publicFiles: ['index.d.ts'] });
