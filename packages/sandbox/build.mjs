import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  bundleForBrowser,
  bundleForNode,
  copyContract,
  emitDeclarations,
  REQUIRE_BANNER,
  startBuild,
} from '../../tooling/package-build.mjs';

const { packageDir, root, dist, manifest } = startBuild(import.meta.url);
const require = createRequire(import.meta.url);

/** The sandbox's documents are read beside the sources in the repository; in the package, from dist/. */
const packageAssets = {
  name: 'package-assets',
  setup(b) {
    const repositoryAssets = join(root, 'sandbox', 'contract', 'assets.ts');
    b.onResolve({ filter: /assets\.js$/ }, (args) => {
      const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return target === repositoryAssets ? { path: join(packageDir, 'src', 'assets.ts') } : undefined;
    });
  },
};

await bundleForNode(manifest, {
  entryPoints: {
    cli: join(packageDir, 'src/cli.ts'),
    index: join(packageDir, 'src/index.ts'),
    msw: join(packageDir, 'src/msw.ts'),
  },
  outdir: dist,
  splitting: true,
  // Flat: every chunk beside the documents it reads (src/assets.ts names them relative to itself).
  chunkNames: '[name]-[hash]',
  plugins: [packageAssets],
  // The YAML parser and sql.js are CommonJS: inside ES module chunks their require(), and sql.js's
  // __dirname and __filename, need values of their own.
  banner: {
    js: [
      REQUIRE_BANNER,
      "import { dirname as __pathDirname } from 'node:path';",
      "import { fileURLToPath as __fileURLToPath } from 'node:url';",
      'const __filename = __fileURLToPath(import.meta.url);',
      'const __dirname = __pathDirname(__filename);',
    ].join(' '),
  },
});

// The browser build: one module per entry, everything bundled in but msw (the page's own), Node's
// Buffer from the `buffer` package, SQLite's WebAssembly beside it.
await bundleForBrowser({
  entryPoints: { index: join(packageDir, 'src/browser.ts'), msw: join(packageDir, 'src/msw.ts') },
  outdir: join(dist, 'browser'),
  splitting: true,
  chunkNames: '[name]-[hash]',
  external: ['msw'],
  inject: [join(root, 'sandbox/platform/buffer-global.ts')],
});
copyFileSync(require.resolve('sql.js/dist/sql-wasm-browser.wasm'), join(dist, 'browser', 'sql-wasm-browser.wasm'));

copyContract(dist);
// The admin document: its YAML for a team to read, its JSON for the sandbox to read at its start.
copyFileSync(join(root, 'sandbox/admin/openapi.yaml'), join(dist, 'admin-openapi.yaml'));
copyFileSync(join(root, 'generated/admin/openapi.json'), join(dist, 'admin-openapi.json'));
// Where a team's editor finds it (the sandbox reads its own copy, bundled: http/admin/data-files.ts).
copyFileSync(join(root, 'generated/admin/data.schema.json'), join(dist, 'data.schema.json'));
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));

// The public API's declarations only.
emitDeclarations({
  packageDir,
  dist,
  publicFiles: [
    'index.d.ts',
    'browser.d.ts',
    'types.d.ts',
    'admin.d.ts',
    'process.d.ts',
    'node-sandbox.d.ts',
    'msw.d.ts',
  ],
});
