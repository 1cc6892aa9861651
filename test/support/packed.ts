// What the tests of a shipped package share: commands run in a process group of their own (killed
// whole when they end or time out), `npm run pack:<name>` once per test run, a fresh project made by
// `npm init -y` with tarballs installed, and the packages such an install holds, checked against the
// toolchain's own; and a consumer's TypeScript compiled against such a project.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { inject } from 'vitest';
import { environmentWith } from '../../tooling/process/environment.js';
import { killGroup } from '../../tooling/process/groups.js';
import { SHORT_RUN_NODE_FLAGS } from '../../tooling/tiering.mjs';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `command args…` in `cwd`, in a process group of its own, killed whole when it ends or after `timeoutMs`. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: Record<string, string | undefined> } = {},
): Promise<Run> {
  const env = environmentWith({
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    ...options.env,
  });
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), options.timeoutMs ?? 120_000);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(child.pid!, 'SIGKILL');
      done({ code, stdout, stderr });
    });
  });
}

export const npm = (args: string[], cwd: string, timeoutMs?: number) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd, { timeoutMs });

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** The files it holds, sorted. */
  files: string[];
  /** Its size in bytes. */
  size: number;
}

/** `npm run pack:<name>` into `destination`. */
async function packInto(name: string, destination: string): Promise<Packed> {
  const packed = await run(
    'npm',
    ['run', '--silent', `pack:${name}`, '--', '--json', '--destination', destination],
    ROOT,
  );
  if (packed.code !== 0) throw new Error(`npm run pack:${name} failed: ${packed.stderr}`);
  const [result] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    size: number;
    files: Array<{ path: string }>;
  }>;
  return {
    tarball: join(destination, result!.filename),
    files: result!.files.map((f) => f.path).sort(),
    size: result!.size,
  };
}

/** How long a file waits for another worker's pack of the same package before it gives up. */
const PACK_WAIT_MS = 300_000;

/**
 * `npm run pack:<name>`, once per test run however many files (in however many workers) ask: the
 * first packs into the run's folder (`packedDir`, made by the root's global setup) while holding a
 * lock folder, the others wait for its result. A pack that failed leaves no result: the next asker
 * packs again and fails with its own message.
 */
export async function packed(name: 'sdk' | 'verify' | 'sandbox' | 'mock'): Promise<Packed> {
  const dir = join(inject('packedDir'), name);
  const result = join(dir, 'result.json');
  const lock = `${dir}.lock`;
  for (const deadline = Date.now() + PACK_WAIT_MS; Date.now() < deadline; ) {
    if (existsSync(result)) return JSON.parse(await readFile(result, 'utf8')) as Packed;
    const mine = await mkdir(lock).then(
      () => true,
      () => false,
    );
    if (!mine) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (!existsSync(result)) {
        await mkdir(dir, { recursive: true });
        const made = await packInto(name, dir);
        await writeFile(`${result}.tmp`, JSON.stringify(made));
        await rename(`${result}.tmp`, result);
      }
    } finally {
      await rmdir(lock);
    }
  }
  throw new Error(`no pack of ${name} within ${PACK_WAIT_MS / 1000} s (another test file holds ${lock})`);
}

/** npm's `npm init -y` manifest, made once per process (in a folder named `template`). */
let initManifest: Promise<Record<string, unknown>> | undefined;

/**
 * The package.json `npm init -y` writes in `cwd` (named after the folder), with `fields` added:
 * npm makes it once per process and each project gets a copy: an `npm init` per project starts npm
 * to write the same file.
 */
export async function npmInit(cwd: string, fields: Record<string, unknown> = {}): Promise<void> {
  initManifest ??= (async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'npm-init-')), 'template');
    try {
      await mkdir(dir);
      const init = await npm(['init', '-y'], dir);
      if (init.code !== 0) throw new Error(`npm init -y failed in ${dir}: ${init.stderr}`);
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
      if (manifest.name !== 'template')
        throw new Error(`npm init -y named the package ${String(manifest.name)}, not its folder`);
      return manifest;
    } finally {
      await rm(dirname(dir), { recursive: true, force: true });
    }
  })();
  const name = basename(cwd);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name))
    throw new Error(`${cwd}: not a folder name npm init -y keeps as the package's`);
  const manifest = { ...(await initManifest), name, ...fields };
  await writeFile(join(cwd, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * A fresh project at `cwd` as `npm init -y` makes it (with `fields` in its package.json), the
 * `tarballs` installed: what a team that installs the packages alone has. Returns how long the
 * install took, in seconds.
 */
export async function freshProject(
  cwd: string,
  tarballs: string[],
  fields: Record<string, string> = {},
): Promise<{ seconds: number }> {
  await mkdir(cwd, { recursive: true });
  await npmInit(cwd, fields);
  const startedAt = Date.now();
  const install = await npm(['install', ...tarballs], cwd, 180_000);
  if (install.code !== 0) throw new Error(`npm install ${tarballs.join(' ')} failed in ${cwd}: ${install.stderr}`);
  return { seconds: (Date.now() - startedAt) / 1000 };
}

/**
 * The imports of an installed package's declarations that reach outside it, as `file: specifier`:
 * neither a file of the package (a relative path that stays inside its folder) nor a package its
 * manifest declares (dependencies and peer dependencies). A consumer's compile would find none of
 * them in an install from a registry. `files`: the tarball's files.
 */
export async function declarationImportsOutside(project: string, name: string, files: string[]): Promise<string[]> {
  const folder = join(project, 'node_modules', name);
  const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  const outside: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
    const text = await readFile(join(folder, file), 'utf8');
    // `from '…'` of an import or export, and `import("…")` of a type tsc wrote itself
    for (const [, , specifier] of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)(['"])([^'"]+)\1/g)) {
      const inside =
        specifier!.startsWith('.') &&
        !relative(folder, resolve(dirname(join(folder, file)), specifier!)).startsWith('..');
      const packaged = declared.some(
        (dependency) => specifier === dependency || specifier!.startsWith(`${dependency}/`),
      );
      if (!inside && !packaged) outside.push(`${file}: ${specifier}`);
    }
  }
  return outside;
}

/** The names of the packages a project's node_modules holds (npm's hidden lockfile). */
export async function installedPackages(project: string): Promise<string[]> {
  const lock = JSON.parse(await readFile(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .filter(Boolean)
    .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

const TOOLCHAIN_SCOPES = ['@redocly/', '@stoplight/', '@vitest/', '@biomejs/', '@types/', '@esbuild/'];

/**
 * The toolchain's packages among `names`: the repository's devDependencies (less those the package
 * declares itself: `allowed`), browsers, and the scopes of the toolchain's tools.
 */
export async function toolchainAmong(names: string[], allowed: readonly string[]): Promise<string[]> {
  const devDependencies = Object.keys(
    (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies,
  );
  const toolchain = new Set([...devDependencies.filter((name) => !allowed.includes(name)), 'playwright']);
  return names.filter((name) => toolchain.has(name) || TOOLCHAIN_SCOPES.some((scope) => name.startsWith(scope)));
}

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** `tsc args…` in `cwd`, run by this Node with the flags of a short run. */
export function runTsc(args: string[], cwd: string): Promise<Run> {
  return run(process.execPath, [...SHORT_RUN_NODE_FLAGS, TSC, ...args], cwd);
}

/**
 * What a consumer's compile checks of what it installed: every package's declarations
 * (skipLibCheck off, TypeScript's default), but not TypeScript's own lib files, which are the same
 * in every project and half of each compile's time.
 */
export const CHECK_DECLARATIONS = { skipLibCheck: false, skipDefaultLibCheck: true } as const;

/**
 * `sources` (file name → text) compiled with --strict as a consumer's ES module code (module
 * nodenext, Node's and the DOM's libraries, no @types) in a folder `cwd` beside `project`, whose
 * node_modules it sees as its own: tsc's result.
 */
export async function compileConsumer(project: string, cwd: string, sources: Record<string, string>): Promise<Run> {
  await mkdir(cwd);
  for (const [name, text] of Object.entries(sources)) await writeFile(join(cwd, name), text);
  await writeFile(
    join(cwd, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        ...CHECK_DECLARATIONS,
        lib: ['es2023', 'dom'],
        types: [],
      },
      files: Object.keys(sources),
    }),
  );
  await writeFile(join(cwd, 'package.json'), '{"private": true}\n');
  await symlink(join(project, 'node_modules'), join(cwd, 'node_modules'), 'dir');
  return runTsc(['-p', '.'], cwd);
}
