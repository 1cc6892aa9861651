import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
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
  // The YAML parser is CommonJS: inside an ES module bundle its require() needs one of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
copyFileSync(join(root, 'generated/openapi.json'), join(dist, 'openapi.json'));
mkdirSync(join(dist, 'arazzo'));
for (const file of readdirSync(join(root, 'arazzo')).filter((f) => f.endsWith('.yaml')))
  copyFileSync(join(root, 'arazzo', file), join(dist, 'arazzo', file));

// The public API's declarations only: the rest describes internals a consumer never imports.
emitDeclarations({
  packageDir: here,
  dist,
  entries: [join(here, 'src/index.ts')],
  publicFiles: ['index.d.ts', 'types.d.ts', 'reports.d.ts'],
});
