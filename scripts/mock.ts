// npm run mock [-- --port 4010] [-- --host 127.0.0.1] [-- --dynamic] [-- --quiet] [-- --cors-origin <origin>]
// A Prism mock server of the contract (generated/openapi.json) for front-end teams; see docs/mock.md.
// Request validation is on: an invalid request gets a 4xx and its violations in the
// `sl-violations` response header. Prism runs in a process group of its own (it cannot outlive this
// command: tooling/process/server-process.ts); SIGINT/SIGTERM stop the group; exits with Prism's code.
// Prism listens on a loopback port of its own with its CORS off; the address you call is a front
// in this process (mock/front.ts) that applies the sandbox's CORS rule (tooling/openapi/cors.ts).
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { constants } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleContract } from '../generator/steps/bundle.js';
import { DEFAULT_ROOT, REPO_ROOT } from '../generator/support/paths.js';
import { createMockFront } from '../mock/front.js';
import { PRISM_CLI, PRISM_MOCK_ARGS } from '../mock/prism.js';
import { challengesByOperation } from '../tooling/openapi/challenges.js';
import { CORS_ORIGINS_ENV, corsOriginsFrom, corsRule, parseOrigins } from '../tooling/openapi/cors.js';
import { freePort, LOOPBACK, startProcessGroup, WATCHDOG } from '../tooling/process/server-process.js';

const USAGE = `usage: npm run mock [-- --port 4010] [-- --host 127.0.0.1] [-- --dynamic] [-- --quiet] [-- --cors-origin <origin>]

  --port <n>    port to listen on (default 4010)
  --host <h>    interface to listen on (default 127.0.0.1; 0.0.0.0 to reach it from other machines)
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
                every operation with merchant credentials; repeatable; off by default`;

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', short: 'p', default: '4010' },
        host: { type: 'string', default: '127.0.0.1' },
        dynamic: { type: 'boolean', short: 'd', default: false },
        quiet: { type: 'boolean', short: 'q', default: false },
        'cors-origin': { type: 'string', multiple: true },
        'docs-console-origin': { type: 'string', multiple: true },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}
const values = parseCommandLine();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
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

const SPEC = join(REPO_ROOT, 'generated', 'openapi.json');
const shown = relative(process.cwd(), SPEC) || SPEC;
if (!existsSync(SPEC)) {
  console.error(
    `${shown} is missing: run \`npm run generate\` first (it lints and bundles the contract into generated/).`,
  );
  process.exit(1);
}

// Prism validates request bodies only with this dialect (with the OAS 3.1 base dialect it
// silently accepts everything); the bundle declares it, so this only guards against regressions.
const specText = readFileSync(SPEC, 'utf8');
const document = JSON.parse(specText) as { jsonSchemaDialect?: string };
if (document.jsonSchemaDialect !== 'https://json-schema.org/draft/2020-12/schema') {
  console.warn(
    `warning: ${shown} does not declare jsonSchemaDialect https://json-schema.org/draft/2020-12/schema; Prism may not validate request bodies as the contract says.`,
  );
}
const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
const baseUrl = `http://${urlHost}:${port}`;
// The mock's own headers join the operations': `Prefer` picks a response, `sl-violations` says what is wrong.
const rule = corsRule(document, corsOrigins, {
  allowedHeaders: ['Prefer'],
  exposedHeaders: ['sl-violations'],
  consoleOrigins,
});
const prismPort = await freePort();
const args = [
  '--import',
  WATCHDOG,
  PRISM_CLI,
  'mock',
  SPEC,
  '--host',
  LOOPBACK,
  '--port',
  String(prismPort),
  '--verboseLevel',
  values.quiet ? 'warn' : 'info',
  ...PRISM_MOCK_ARGS,
];
if (values.dynamic) args.push('--dynamic');

// Fail early and clearly when the port is taken (Prism would print its whole usage text).
const inUse = await new Promise<string | undefined>((done) => {
  const probe = createServer();
  probe.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  probe.listen(port, host, () => probe.close(() => done(undefined)));
});
if (inUse) {
  console.error(`cannot listen on ${host}:${port} (${inUse}); choose another port with --port.`);
  process.exit(1);
}

console.log(`Payment Service API v2 mock (${shown}, ${values.dynamic ? 'dynamic bodies' : 'documented examples'})
  base URL  ${baseUrl}   (the contract's paths without /api/v2, e.g. ${baseUrl}/payments)
  try       curl -i -u merchant:key ${baseUrl}/payment-plans/pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P
  invalid requests are answered 4xx with the violations in the sl-violations header; see the README
  CORS      ${corsOrigins.length ? `${corsOrigins.join(', ')} (the operations a browser may call: ${rule.operations.map((o) => o.operationId).join(', ')})` : 'closed: no browser origin may call (--cors-origin; docs/mock.md)'}${consoleOrigins.length ? `\n  docs console ${consoleOrigins.join(', ')} (every operation: a developer's machine only)` : ''}`);

let prism: ReturnType<typeof startProcessGroup>;
try {
  prism = startProcessGroup(process.execPath, args, { inheritOutput: true, keepAlive: true, name: 'Prism' });
} catch (err) {
  console.error(`could not start Prism: ${(err as Error).message}`);
  process.exit(1);
}
let stoppedBy: NodeJS.Signals | undefined;
/** The exit code when the mock fails on its own (its front cannot listen). */
let failure: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stoppedBy ??= signal;
    void prism.stop(); // the whole group: SIGTERM, then SIGKILL after a grace period
  });
}
let ready = false;
void prism.exited.then(({ code, signal }) => {
  if (!ready && code && !stoppedBy) console.error(`Prism exited with code ${code} before listening.`);
  const by = stoppedBy ?? signal;
  if (failure !== undefined) process.exit(failure);
  process.exit(stoppedBy ? 128 + constants.signals[stoppedBy] : (code ?? 128 + (by ? constants.signals[by] : 1)));
});

// Meanwhile, check that generated/ is the bundle of the current openapi/ (a stale bundle mocks an
// older contract; PAYMENT_API_ROOT names another contract root to compare with, as the tests do),
// and say when Prism listens (its own line is hidden by --quiet). A TCP connect only, so that the
// check does not show up in Prism's log.
const contractRoot = process.env.PAYMENT_API_ROOT ? resolve(process.env.PAYMENT_API_ROOT) : DEFAULT_ROOT;
const contractDir = `${relative(process.cwd(), dirname(contractRoot)) || '.'}/`;
bundleContract({ root: contractRoot })
  .then(({ json }) => {
    if (json !== specText)
      console.warn(
        `warning: ${shown} is not the bundle of the current ${contractDir}; run \`npm run generate\` and restart to mock the current contract.`,
      );
  })
  .catch(() =>
    console.warn(
      `warning: ${contractDir} does not bundle right now (\`npm run generate\` says why); mocking ${shown} as it is.`,
    ),
  );

const listening = () =>
  new Promise<boolean>((done) => {
    const socket = connect({ host: LOOPBACK, port: prismPort }, () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
while (!prism.hasExited() && !stoppedBy) {
  if (await listening()) break;
  await new Promise((r) => setTimeout(r, 100));
}
// Once Prism answers, the front listens at the address you call: it answers when the mock is ready.
if (!prism.hasExited() && !stoppedBy) {
  const front = createMockFront({
    rule,
    upstream: { host: LOOPBACK, port: prismPort },
    challenges: challengesByOperation(document),
    log: (line) => console.warn(line),
  });
  front.once('error', (err: NodeJS.ErrnoException) => {
    console.error(`cannot listen on ${host}:${port} (${err.code ?? err.message}); choose another port with --port.`);
    failure = 1;
    stoppedBy ??= 'SIGTERM';
    void prism.stop();
  });
  front.listen(port, host, () => {
    ready = true;
    console.log(`mock ready at ${baseUrl} (Ctrl-C to stop)`);
  });
}
