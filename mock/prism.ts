// Prism (https://github.com/stoplightio/prism) as a child process: the mock of `npm run mock` and of
// the package @payment-service/mock (both through mock/serve.ts), of the mock tests and of the
// benchmark. Tests start it through test/support/prism.ts, which mocks the contract vitest's global
// setup bundled.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { type ServerProcess, startServerProcess } from '../tooling/process/server-process.js';

/**
 * Prism's CLI entry point (run it with `node`; no npx), resolved from this module: in the package
 * @payment-service/mock, whose bundle holds this module, that is the package's own dependency.
 */
export const PRISM_CLI = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

/**
 * Arguments every mock of this contract needs.
 * Without fillProperties=false, dynamic generation (`-d`, `Prefer: dynamic=true`) pads free-form
 * maps such as `metadata` (additionalProperties, maxProperties 50) with random members past their
 * maxProperties: about half of the generated payments and customers were invalid.
 * `--cors=false`: Prism's own CORS (on by default) answers every preflight and echoes any origin,
 * on every operation; the mock is closed instead, and `npm run mock` applies the sandbox's rule in
 * front of Prism (mock/front.ts).
 */
export const PRISM_MOCK_ARGS = ['--json-schema-faker-fillProperties=false', '--cors=false'];

export interface StartPrismOptions {
  /** OpenAPI document to mock (JSON or YAML). */
  specPath: string;
  /** Generate response bodies from the schemas (`prism mock -d`) instead of returning examples. */
  dynamic?: boolean;
  /** Prism's `--verboseLevel` (default `warn`: invalid requests and errors only). Output is kept
   * in memory and shown when Prism fails to start. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

/**
 * `prism mock` on 127.0.0.1 on a free port, once it answers. Paths are served WITHOUT the servers'
 * `/api/v2` prefix (Prism ignores the path of `servers[].url`).
 */
export function startPrism(options: StartPrismOptions): Promise<ServerProcess> {
  const specPath = resolve(options.specPath);
  return startServerProcess({
    name: 'Prism',
    args: (port) => {
      const args = [
        PRISM_CLI,
        'mock',
        specPath,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--verboseLevel',
        options.logLevel ?? 'warn',
        ...PRISM_MOCK_ARGS,
      ];
      if (options.dynamic) args.push('--dynamic');
      return args;
    },
    // Prism answers an unknown path with a 404 problem+json of its own; checking for it makes sure
    // that the answer does not come from another process that took the port meanwhile.
    ready: async (baseUrl) =>
      (await (await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(1_000) })).text()).includes(
        'stoplight.io/prism/errors',
      ),
  });
}
