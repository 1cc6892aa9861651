// This package's build (`npm run build`, which `npm run pack:verify` runs): the command and the
// library bundled by esbuild into dist/ (the shared walker and YAML parser inside; the declared
// dependencies left as imports), the contract's bundle and the Arazzo workflows beside them, and the
// declarations of the public API (index, types, reports) from tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
// The public API's declarations only: the rest describes internals a consumer never imports.
for (const file of ['index.d.ts', 'types.d.ts', 'reports.d.ts'])
  copyFileSync(join(declarations, 'packages/verify/src', file), join(dist, file));
rmSync(declarations, { recursive: true, force: true });
writeFileSync(join(dist, 'cli.d.ts'), 'export {};\n');
