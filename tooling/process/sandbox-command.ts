// The sandbox as a process, the way `npm run sandbox` runs it (package.json's script: its Node
// options, then sandbox/launch.mjs, which runs sandbox/main.ts compiled), for everything else that
// starts it (the benchmark, the tests): they run what users run, with the same heap settings.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../repository.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

export const SANDBOX_ENTRY = join(REPO_ROOT, 'sandbox', 'launch.mjs');

/**
 * A sandbox started here never touches the developer's `.sandbox/`: it writes no CLI config (nor does
 * a command read one), and runs with a secret of this process's own (every sandbox this process
 * starts shares it, so two of them on one database agree) instead of `.sandbox/secret.key`.
 */
export const ISOLATED_ENV = { SANDBOX_CLI_CONFIG: 'none', SANDBOX_SECRET: randomBytes(32).toString('base64url') };

/** The Node options of `npm run sandbox` ("exec node <options> sandbox/launch.mjs"). */
export function sandboxNodeOptions(): string[] {
  const script =
    (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
      .sandbox ?? '';
  const match = /^exec node (.*)\bsandbox\/launch\.mjs$/.exec(script.trim());
  if (!match)
    throw new Error(`package.json: the sandbox script is not "exec node <options> sandbox/launch.mjs": ${script}`);
  return match[1]!.split(/\s+/).filter(Boolean);
}

export interface SandboxProcessOptions {
  database: string;
  /** Without one, the sandbox makes its demo merchant. */
  merchantsFile?: string;
  /** Node options before those of `npm run sandbox` (e.g. V8's logging flags). */
  nodeOptions?: string[];
  /** Sandbox options after `--port <free> --db <database> [--merchants <file>] --quiet`. */
  extra?: string[];
  /** The launcher to run (default SANDBOX_ENTRY): another checkout's, to compare two versions. */
  entry?: string;
}

/** `sandbox/launch.mjs --port <free> --db <database> [--merchants <file>] --quiet [extra…]`, resolved once it answers. */
export function startSandboxProcess(options: SandboxProcessOptions): Promise<ServerProcess> {
  return startServerProcess({
    name: 'sandbox',
    env: ISOLATED_ENV,
    args: (port) => [
      ...(options.nodeOptions ?? []),
      ...sandboxNodeOptions(),
      options.entry ?? SANDBOX_ENTRY,
      ...['--port', String(port), '--db', options.database, '--quiet'],
      ...(options.merchantsFile !== undefined ? ['--merchants', options.merchantsFile] : []),
      ...(options.extra ?? []),
    ],
    ready: async (baseUrl) =>
      (await fetch(`${baseUrl}/api/v2/customers`, { signal: AbortSignal.timeout(1_000) })).status === 401,
  });
}
