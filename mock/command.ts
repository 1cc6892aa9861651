// The mock as a command, one implementation for `npm run mock` (scripts/mock.ts) and `payment-mock`
// (packages/mock/src/cli.ts): its options, its banner and its exit codes. It serves with
// mock/serve.ts; Prism runs in a process group of its own, which SIGINT and SIGTERM stop (and which
// never outlives this process: tooling/process/server-process.ts); the command exits with Prism's
// code, 128 + the signal's number when a signal stopped it, 1 when it cannot listen, 2 on bad options.
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { CORS_ORIGINS_ENV, corsOriginsFrom, parseOrigins } from '../tooling/openapi/cors.js';
import type { JsonObject } from '../tooling/openapi/walker.js';
import { MockListenError, type ServedMock, serveMock } from './serve.js';

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';

export interface MockCommandOptions {
  /** How the usage names the command: `npm run mock`, `payment-mock`. */
  command: string;
  /** What comes between the command and its options (`-- ` after `npm run mock`). */
  separator?: string;
  argv: string[];
  /** The bundled contract to mock. */
  specPath: string;
  /** How messages name the bundle. */
  shown: string;
  /** Once the options are valid, before the bundle is read: exits when it cannot be (npm run mock: not generated yet). */
  checkSpec?: () => void;
  /** Once Prism starts, given the bundle's text: npm run mock warns when it is not the current contract's. */
  whileStarting?: (specText: string) => void;
}

function usage(command: string, separator: string): string {
  const o = (text: string) => `[${separator}${text}]`;
  return `usage: ${command} ${o('--port 4010')} ${o('--host 127.0.0.1')} ${o('--dynamic')} ${o('--quiet')} ${o('--cors-origin <origin>')}

  --port <n>    port to listen on (default ${DEFAULT_PORT}; 0 for a free one, named on the first line)
  --host <h>    interface to listen on (default ${DEFAULT_HOST}; 0.0.0.0 to reach it from other machines)
  --dynamic     generate response bodies from the schemas instead of returning the examples
  --quiet       log only invalid requests and errors (default: every request, as Prism does)
  --cors-origin <origin>
                an origin (scheme://host[:port]) whose pages may call, from a browser, the
                operations a browser may call (confirmPaymentIntent: a bearer token alone);
                repeat it for more (default: ${CORS_ORIGINS_ENV}, comma-separated, else none:
                no browser may call; see docs/mock.md#calling-the-mock-from-a-browser)
  --docs-console-origin <origin>
                docs console mode, for a developer's machine: the pages of this origin (the
                API reference's console, http://127.0.0.1:8080 of npm run docs:serve) may call
                every operation with merchant credentials; repeatable; off by default
  --version     the version of the contract it mocks (its info.version)
  --help`;
}

/** Runs the command until Prism exits or a signal stops it; exits the process. */
export async function runMockCommand(options: MockCommandOptions): Promise<void> {
  const USAGE = usage(options.command, options.separator ?? '');
  const parse = () =>
    parseArgs({
      args: options.argv,
      options: {
        port: { type: 'string', short: 'p', default: String(DEFAULT_PORT) },
        host: { type: 'string', default: DEFAULT_HOST },
        dynamic: { type: 'boolean', short: 'd', default: false },
        quiet: { type: 'boolean', short: 'q', default: false },
        'cors-origin': { type: 'string', multiple: true },
        'docs-console-origin': { type: 'string', multiple: true },
        version: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  let values: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || !Number.isInteger(port) || port > 65535) {
    console.error(`--port must be a port number (0 for a free one), got ${values.port}`);
    process.exit(2);
  }
  const host = values.host;
  let corsOrigins: string[];
  let consoleOrigins: string[];
  try {
    corsOrigins = corsOriginsFrom(values['cors-origin'], process.env[CORS_ORIGINS_ENV]);
    consoleOrigins = parseOrigins(values['docs-console-origin'] ?? []);
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }

  options.checkSpec?.();
  const specText = readFileSync(options.specPath, 'utf8');
  const document = JSON.parse(specText) as JsonObject & { info?: { version?: string }; jsonSchemaDialect?: string };
  if (values.version) {
    console.log(document.info?.version ?? 'unknown');
    process.exit(0);
  }
  // Prism validates request bodies only with this dialect (with the OAS 3.1 base dialect it
  // silently accepts everything); the bundle declares it, so this only guards against regressions.
  if (document.jsonSchemaDialect !== 'https://json-schema.org/draft/2020-12/schema') {
    console.warn(
      `warning: ${options.shown} does not declare jsonSchemaDialect https://json-schema.org/draft/2020-12/schema; Prism may not validate request bodies as the contract says.`,
    );
  }

  let mock: ServedMock;
  try {
    mock = await serveMock({
      specPath: options.specPath,
      document,
      port,
      host,
      dynamic: values.dynamic,
      quiet: values.quiet,
      corsOrigins,
      consoleOrigins,
      inheritOutput: true,
      keepAlive: true,
      log: (line) => console.warn(line),
    });
  } catch (err) {
    console.error(err instanceof MockListenError ? err.message : `${(err as Error).message}`);
    process.exit(1);
  }
  const { origin, rule, prism } = mock;
  // The first line names the address: a script that asked for --port 0 reads it there.
  console.log(`Payment Service API v2 mock at ${origin} (${options.shown}, contract ${document.info?.version ?? 'unknown'}, ${values.dynamic ? 'dynamic bodies' : 'documented examples'})
  base URL  ${origin}   (the contract's paths without /api/v2, e.g. ${origin}/payments)
  try       curl -i -u merchant:key ${origin}/payment-plans/pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P
  invalid requests are answered 4xx with the violations in the sl-violations header; see the README
  CORS      ${corsOrigins.length ? `${corsOrigins.join(', ')} (the operations a browser may call: ${rule.operations.map((o) => o.operationId).join(', ')})` : 'closed: no browser origin may call (--cors-origin; docs/mock.md)'}${consoleOrigins.length ? `\n  docs console ${consoleOrigins.join(', ')} (every operation: a developer's machine only)` : ''}`);

  let stoppedBy: NodeJS.Signals | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stoppedBy ??= signal;
      void mock.stop(); // the front, and Prism's whole group: SIGTERM, then SIGKILL after a grace period
    });
  }
  let ready = false;
  void prism.exited.then(({ code, signal }) => {
    if (!ready && code && !stoppedBy) console.error(`Prism exited with code ${code} before listening.`);
    const by = stoppedBy ?? signal;
    process.exit(stoppedBy ? 128 + constants.signals[stoppedBy] : (code ?? 128 + (by ? constants.signals[by] : 1)));
  });
  options.whileStarting?.(specText);
  await mock.ready.then(
    () => {
      ready = true;
      console.log(`mock ready at ${origin} (Ctrl-C to stop)`);
    },
    () => undefined, // Prism's exit, handled above
  );
}
