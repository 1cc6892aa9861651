// What the builds of the packages run by Node share (packages/<name>/build.mjs): their folders, the
// bundles esbuild makes of their sources and what those reach in the repository (for Node, and for a
// browser page), the contract beside them, and the declarations of their public API.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * A package's build begins: its folder (from the build script's `import.meta.url`), its manifest and
 * its `dist/`, emptied.
 */
export function startBuild(buildScriptUrl) {
  const packageDir = dirname(fileURLToPath(buildScriptUrl));
  const dist = join(packageDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const manifest = createRequire(buildScriptUrl)('./package.json');
  return { packageDir, root: ROOT, dist, manifest };
}

/** For a CommonJS dependency bundled into an ES module: the `require()` it calls. */
export const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** What every bundle of a package is: each entry and what it reaches in one ES module, no licence comments, quiet. */
const PACKAGE_BUNDLE = { bundle: true, format: 'esm', legalComments: 'none', logLevel: 'warning' };

/**
 * esbuild for Node: every entry and what it reaches bundled into ES modules for Node 20 and later, but
 * the dependencies and peer dependencies the manifest declares, which npm installs. `options` adds to
 * or overrides these (entries, chunks, banner, plugins).
 */
export function bundleForNode(manifest, options) {
  return build({
    ...PACKAGE_BUNDLE,
    platform: 'node',
    target: 'node20',
    external: [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})],
    ...options,
  });
}

/**
 * esbuild for a browser page (the exports map's `browser` condition): every entry and what it
 * reaches bundled into ES modules for browsers of ES2022, but what `options.external` names.
 */
export function bundleForBrowser(options) {
  return build({ ...PACKAGE_BUNDLE, platform: 'browser', target: 'es2022', ...options });
}

/** The contract as the repository bundled it, beside the package's code: a package never bundles at run time. */
export function copyContract(dist) {
  copyFileSync(join(ROOT, 'generated/openapi.json'), join(dist, 'openapi.json'));
}

/**
 * The declarations of a package's public API, its build's last step: tsc emits them for the entry
 * points and everything they reach into a scratch folder, and only the files a consumer imports are
 * copied into dist/, beside an empty one for the command (a bin has no API).
 * `entries`: the package's source files (absolute) tsc starts from; `publicFiles`: the `.d.ts` names
 * (relative to the package's src/) copied to `dist`; `lib`: tsc's lib when the sources reach beyond
 * es2022. Exits the build with tsc's status when it fails.
 */
export function emitDeclarations({ packageDir, dist, entries, publicFiles, lib }) {
  const scratch = join(dist, '.declarations');
  const tsc = spawnSync(
    process.execPath,
    [
      createRequire(import.meta.url).resolve('typescript/bin/tsc'),
      ...['--declaration', '--emitDeclarationOnly', '--skipLibCheck', '--strict'],
      ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'],
      ...(lib ? ['--lib', lib] : []),
      ...['--types', 'node', '--rootDir', ROOT, '--outDir', scratch],
      ...entries,
    ],
    { stdio: 'inherit' },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  const emitted = join(scratch, relative(ROOT, packageDir), 'src');
  for (const file of publicFiles) copyFileSync(join(emitted, file), join(dist, file));
  rmSync(scratch, { recursive: true, force: true });
  writeFileSync(join(dist, 'cli.d.ts'), 'export {};\n');
}
