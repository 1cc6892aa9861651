// This package's build (`npm run build`, which `npm run pack:sandbox` runs): the command and the Node
// API bundled by esbuild into dist/ with everything they take from the repository (the sandbox, the
// walker, the SDK its CLI calls, the YAML parser, SQLite compiled to WebAssembly), split where the code
// loads lazily so that PostgreSQL's dialect imports `pg` only when a postgres:// URL asks for it; the
// declared dependencies and the optional peers (better-sqlite3, pg, msw) stay imports. Beside them: the contract's bundle, the
// admin document, sql.js's WebAssembly binary, and the public API's declarations from tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dist = join(here, 'dist');
const require = createRequire(import.meta.url);
const manifest = require('./package.json');

/** The sandbox's documents are read beside the sources in the repository; in the package, from dist/. */
const packageAssets = {
  name: 'package-assets',
  setup(b) {
    const repositoryAssets = join(root, 'sandbox', 'contract', 'assets.ts');
    b.onResolve({ filter: /assets\.js$/ }, (args) => {
      const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return target === repositoryAssets ? { path: join(here, 'src', 'assets.ts') } : undefined;
    });
  },
};

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(here, 'src/cli.ts'), index: join(here, 'src/index.ts'), msw: join(here, 'src/msw.ts') },
  outdir: dist,
  bundle: true,
  splitting: true,
  // Flat: every chunk beside the documents it reads (src/assets.ts names them relative to itself).
  chunkNames: '[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)],
  plugins: [packageAssets],
  legalComments: 'none',
  // The YAML parser and sql.js are CommonJS: inside ES module chunks their require(), and sql.js's
  // __dirname and __filename, need values of their own.
  banner: {
    js: [
      "import { createRequire as __createRequire } from 'node:module';",
      "import { dirname as __pathDirname } from 'node:path';",
      "import { fileURLToPath as __fileURLToPath } from 'node:url';",
      'const require = __createRequire(import.meta.url);',
      'const __filename = __fileURLToPath(import.meta.url);',
      'const __dirname = __pathDirname(__filename);',
    ].join(' '),
  },
  logLevel: 'warning',
});
copyFileSync(join(root, 'generated/openapi.json'), join(dist, 'openapi.json'));
copyFileSync(join(root, 'sandbox/admin/openapi.yaml'), join(dist, 'admin-openapi.yaml'));
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));

const declarations = join(dist, '.declarations');
const tsc = spawnSync(
  process.execPath,
  [
    require.resolve('typescript/bin/tsc'),
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
    '--lib',
    'es2023,dom,dom.iterable',
    '--types',
    'node',
    '--rootDir',
    root,
    '--outDir',
    declarations,
    join(here, 'src/index.ts'),
    join(here, 'src/msw.ts'),
  ],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// The public API's declarations only.
for (const file of ['index.d.ts', 'types.d.ts', 'admin.d.ts', 'process.d.ts', 'in-process.d.ts', 'msw.d.ts'])
  copyFileSync(join(declarations, 'packages/sandbox/src', file), join(dist, file));
rmSync(declarations, { recursive: true, force: true });
writeFileSync(join(dist, 'cli.d.ts'), 'export {};\n');
