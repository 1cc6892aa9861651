// A Prism mock of the current contract for tests, on a free port: the run's shared one
// (`await sharedPrism()`, started by services/prism.ts), or one of a test file's own with other options:
//
//   const prism = await startPrism({ dynamic: true });   // the contract vitest's globalSetup bundled
//   const res = await fetch(`${prism.baseUrl}/payments/sessions`, { ... });
//   await prism.stop();                                  // always, e.g. in afterAll
//
// - The contract is the one bundled from openapi/ (`inject('bundle')`), never the committed
//   generated/ copy, written to a temporary JSON file.
// - Paths are served WITHOUT the servers' `/api/v2` prefix: `${baseUrl}/payments`.
// - Request validation is on; an invalid request is answered with the operation's documented 422
//   (if it has one), else its 400 example, and the real violations are in the `sl-violations`
//   response header (JSON array of {location, severity, code, message}). Missing credentials get
//   401; only the scheme is checked, any secret is accepted.
// - Requests can pick a response with `Prefer: code=422, example=declined` or `Prefer: dynamic=true`.
// - Prism runs in its own process group (tooling/process/server-process.ts): stop() kills the group, and if
//   this process dies first Prism exits on its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { type StartPrismOptions, startPrism as startPrismProcess } from '../../mock/prism.js';
import { CORS_ORIGINS_ENV } from '../../tooling/openapi/cors.js';
import { type ServerProcess, startServerProcess } from '../../tooling/process/server-process.js';
import { backgroundService } from './background.js';
import { loadBundle } from './openapi.js';

/** What `npm run mock` runs (package.json: `exec node mock/launch.mjs`: scripts/mock.ts compiled). */
export const MOCK_ENTRY = join(REPO_ROOT, 'mock', 'launch.mjs');

export interface PrismServer {
  /** e.g. `http://127.0.0.1:41234` — no trailing slash, no `/api/v2`. */
  baseUrl: string;
  /** Kills Prism's process group and removes its temporary files. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The run's Prism with the default options (examples, validation on), once it answers:
 * `http://127.0.0.1:<port>`. Its project lists test/support/services/prism.ts in its globalSetup.
 */
export const sharedPrism = (): Promise<string> => backgroundService<string>('prism');

export async function startPrism(options: Omit<StartPrismOptions, 'specPath'> = {}): Promise<PrismServer> {
  const dir = mkdtempSync(join(tmpdir(), 'prism-contract-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    const specPath = join(dir, 'openapi.json');
    writeFileSync(specPath, JSON.stringify(loadBundle()));
    const prism = await startPrismProcess({ ...options, specPath });
    let stopping: Promise<void> | undefined;
    return { baseUrl: prism.baseUrl, stop: () => (stopping ??= prism.stop().finally(removeDir)) };
  } catch (err) {
    removeDir();
    throw err;
  }
}

/**
 * The run's `npm run mock` with its default options, once it answers: `http://127.0.0.1:<port>`. Its
 * project lists test/support/services/mock-command.ts in its globalSetup.
 */
export const sharedMockCommand = (): Promise<string> => backgroundService<string>('mockCommand');

/**
 * `npm run mock` itself (mock/launch.mjs, as the package script runs it: its front, its CORS
 * rule, Prism behind it) on a free port of 127.0.0.1, in a process group of its own, with `--quiet`
 * and `args`. It mocks the committed bundle (generated/openapi.json), as the command does. `env`
 * adds to the environment (PAYMENT_API_CORS_ORIGINS is cleared unless given).
 */
export function startMockCommand(args: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({
    name: 'npm run mock',
    env: { [CORS_ORIGINS_ENV]: '', ...env },
    args: (port) => [MOCK_ENTRY, '--port', String(port), '--quiet', ...args],
    ready: async (baseUrl) =>
      (await (await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(1_000) })).text()).includes(
        'stoplight.io/prism/errors',
      ),
  });
}
