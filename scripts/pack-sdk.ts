// npm run pack:sdk [-- --destination <dir>] [-- --json]
// The SDK's tarball, packed from a staging folder: the package's files (package.json's `files`, its
// LICENSE) with package/README.md as its README, written for the SDK's users. npm always ships the
// README of the folder it packs, and the repository's README.md is the contributors' front door, so
// the package is staged rather than the working tree's README swapped (a test or an editor reading
// it meanwhile would see the other one). Builds the SDK first.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../generator/support/paths.js';

const { values } = parseArgs({
  options: { destination: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } },
});
const destination = resolve(values.destination);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) {
    console.error(`pack:sdk: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
  return result.stdout;
}

run('npm', ['run', '--silent', 'build'], REPO_ROOT);
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & {
  files: string[];
};
const stage = mkdtempSync(join(tmpdir(), 'pack-sdk-'));
try {
  for (const file of [...manifest.files, 'LICENSE']) {
    const from = join(REPO_ROOT, file);
    if (!existsSync(from)) throw new Error(`pack:sdk: ${file} (package.json "files") does not exist`);
    cpSync(from, join(stage, file), { recursive: true });
  }
  cpSync(join(REPO_ROOT, 'package', 'README.md'), join(stage, 'README.md'));
  // What a consumer's install reads: no scripts (nothing runs at install), no development tools.
  const { scripts: _scripts, devDependencies: _devDependencies, ...published } = manifest;
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  mkdirSync(destination, { recursive: true });
  const packed = run('npm', ['pack', '--json', '--pack-destination', destination, '--loglevel=error'], stage);
  if (values.json) process.stdout.write(packed);
  else {
    const [result] = JSON.parse(packed) as Array<{ filename: string; files: unknown[] }>;
    console.log(`${join(values.destination, result!.filename)} (${result!.files.length} files)`);
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}
