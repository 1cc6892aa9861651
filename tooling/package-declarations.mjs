// The declarations of a package's public API (its build's last step, packages/<name>/build.mjs):
// tsc emits them for the entry points and everything they reach into a scratch folder, and only the
// files a consumer imports are copied into dist/, beside an empty one for the command (a bin has no API).
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
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
