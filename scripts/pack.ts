// npm run pack:<name> [-- --destination <dir>] [-- --json]
// The tarball of the package in packages/<name>/, packed from a staging folder: the package's build
// first (its `build` script, which brings in what it shares with the repository), then its
// package.json's `files`, its README.md and the repository's LICENSE, with the manifest a consumer's
// install reads (no scripts, no development tools). Staged rather than packed in place so that a
// package never needs a copy of the licence or a prepack of its own. A package's version must be the
// contract's info.version: a mismatch is refused before anything is built.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_OUT, REPO_ROOT } from '../generator/support/paths.js';

const USAGE = 'usage: tsx scripts/pack.ts <package folder under packages/> [--destination <dir>] [--json]';
const { values, positionals } = parseArgs({
  options: { destination: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const [name] = positionals;
const folder = name ? join(REPO_ROOT, 'packages', name) : '';
if (!name || positionals.length !== 1 || !existsSync(join(folder, 'package.json'))) fail(USAGE, 2);
const destination = resolve(values.destination);

interface Manifest extends Record<string, unknown> {
  name: string;
  version: string;
  files: string[];
  scripts?: Record<string, string>;
}

function fail(message: string, code = 1): never {
  console.error(`pack:${name ?? ''}: ${message}`);
  process.exit(code);
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  return result.stdout;
}

const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
const contractVersion = (
  JSON.parse(readFileSync(join(DEFAULT_OUT, 'openapi.json'), 'utf8')) as { info: { version: string } }
).info.version;
if (manifest.version !== contractVersion)
  fail(
    `packages/${name}/package.json has version ${manifest.version}, the contract's info.version is ${contractVersion}`,
  );
/**
 * The package's build writes its dist/ in place: two packs of one package at once (two test files,
 * two terminals) would build over each other. Each holds the package's lock file, made exclusively,
 * from its build until its files are staged; one left by a process that has died is taken over.
 */
async function lockPackage(): Promise<() => void> {
  const lock = join(folder, '.pack.lock');
  for (const deadline = Date.now() + 300_000; ; ) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(readFileSync(lock, 'utf8'));
    if (!alive(holder)) rmSync(lock, { force: true });
    else if (Date.now() > deadline) fail(`${lock} is held by process ${holder}, which has packed for 5 minutes`);
    else await new Promise((r) => setTimeout(r, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return Number.isInteger(pid) && pid > 0 && (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const unlock = await lockPackage();
const stage = mkdtempSync(join(tmpdir(), `pack-${name}-`));
try {
  if (manifest.scripts?.build) run('npm', ['run', '--silent', 'build'], folder);
  for (const file of manifest.files) {
    const from = join(folder, file);
    if (!existsSync(from)) fail(`${file} (packages/${name}/package.json "files") does not exist after the build`);
    cpSync(from, join(stage, file), { recursive: true });
  }
  cpSync(join(folder, 'README.md'), join(stage, 'README.md'));
  cpSync(join(REPO_ROOT, 'LICENSE'), join(stage, 'LICENSE'));
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
  unlock();
  rmSync(stage, { recursive: true, force: true });
}
