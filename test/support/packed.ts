// What the tests of a shipped package share: commands run in a process group of their own (killed
// whole when they end or time out), `npm run pack:<name>` into a folder, and the packages a fresh
// project's install holds, checked against the toolchain's own.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { killGroup } from '../../tooling/process/server-process.js';

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
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: '1',
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
        ...options.env,
      },
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

/** `npm run pack:<name>` into `destination`: the tarball's path and the files it holds, sorted. */
export async function pack(name: string, destination: string): Promise<{ tarball: string; files: string[] }> {
  const packed = await run(
    'npm',
    ['run', '--silent', `pack:${name}`, '--', '--json', '--destination', destination],
    ROOT,
  );
  if (packed.code !== 0) throw new Error(`npm run pack:${name} failed: ${packed.stderr}`);
  const [result] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return { tarball: join(destination, result!.filename), files: result!.files.map((f) => f.path).sort() };
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
