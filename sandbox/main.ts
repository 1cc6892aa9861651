// npm run sandbox [-- --port 4020] [-- --host 127.0.0.1] [-- --db .sandbox/sandbox.db | :memory: | postgres://…]
//                 [-- --merchants merchants.json] [-- --admin-key KEY] [-- --cli-config PATH|none]
//                 [-- --cors-origin http://localhost:5173] [-- --docs-console-origin http://127.0.0.1:8080] [-- --public-url https://…] [-- --quiet]
// npm run sandbox -- <seed | reset | clock | deliveries | trigger | env> …   (subcommands: sandbox/cli/index.ts)
// A stateful sandbox of the Payment Service API v2, driven by the contract; see docs/sandbox.md.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { definedMembers } from '../tooling/defined.js';
import { installPlatform } from './app/platform.js';
import { PROGRAM } from './cli/program.js';
import { nodePlatform } from './platform/node.js';
import type { MerchantCredentials, Sandbox, SandboxOptions } from './server.js';

/** The database without --db or SANDBOX_DB (the package's command defaults SANDBOX_DB to :memory:). */
const DEFAULT_DATABASE = '.sandbox/sandbox.db';

const USAGE = `usage: ${PROGRAM} [options]

  --port <n>          port to listen on (default 4020)
  --host <h>          interface to listen on (default 127.0.0.1)
  --db <path|url>     SQLite file (default: SANDBOX_DB, else ${DEFAULT_DATABASE}), :memory: for
                      none, or a postgres:// URL to share one sandbox database in a team
  --merchants <file>  JSON array of { "merchantId", "apiKey", "webhookSecret" } (webhookSecret: a
                      string, or a list while one is rotated; optional "webhookKind": "basic" or
                      "enhanced"); without it a demo merchant is created and its credentials printed
                      (on a fresh database it starts with the contract's examples)
  --webhook-attempts <n>     attempts before a webhook delivery is dead-lettered (default 6)
  --webhook-retry-ms <ms>    wait after the first failed attempt, doubling after each (default 1000)
  --webhook-timeout-ms <ms>  each attempt's time limit (default 5000)
  --webhook-private-networks <allow|deny>  webhooks to loopback and private networks (default:
                      SANDBOX_WEBHOOK_PRIVATE_NETWORKS, else allow); deny for a sandbox others reach
  --webhook-retention-days <n>       delivered webhook deliveries are kept n days (default 7)
  --webhook-dead-retention-days <n>  dead-lettered ones are kept, and resendable, n days (default 30)
  --admin-key <key>   the admin API's key (default: SANDBOX_ADMIN_KEY, else a new one per start,
                      printed); written with the address to .sandbox/cli.json for the subcommands
  --secret-file <path>  the sandbox secret every key is derived from (default: SANDBOX_SECRET itself,
                      else SANDBOX_SECRET_FILE, else .sandbox/secret.key, made on first start);
                      every process of a team on one database needs the same one
  --cli-config <path|none>  that file (default: SANDBOX_CLI_CONFIG, else .sandbox/cli.json); none
                      writes none (the subcommands then need --url and --admin-key)
  --cors-origin <origin>  an origin (scheme://host[:port]) whose pages may call, from a browser,
                      the operations a browser may call (confirmPaymentIntent: a bearer token
                      alone); repeat it for more (default: PAYMENT_API_CORS_ORIGINS, comma-separated,
                      else none: no browser may call; see docs/sandbox.md#cors)
  --docs-console-origin <origin>  docs console mode, for a developer's machine: the pages of this
                      origin (the API reference's console, e.g. http://127.0.0.1:8080 of
                      npm run docs:serve) may call EVERY operation with merchant credentials;
                      repeatable; off by default (docs/sandbox.md#docs-console-mode)
  --public-url <origin>  where clients reach this sandbox (default: SANDBOX_PUBLIC_URL, else the
                      listening address), for the hosted page's links: behind a proxy, or with
                      --host 0.0.0.0, the address teammates use (https://sandbox.team.example)
  --seed <n>          every generated id, key and secret (the sandbox secret and admin key too) a
                      function of n: the same requests in the same order get the same answers;
                      guessable, so only with --db :memory: on a loopback --host
  --now <instant>     every clock starts at this instant (ISO 8601, e.g. 2026-03-01T09:00:00Z) and
                      stays there until advanced (payment-sandbox clock advance)
  --quiet             no request log

Subcommands (against a running sandbox): seed, reset, clock, deliveries, trigger, listen, env;
\`${PROGRAM} trigger --help\` lists them.`;

/** One line on stderr and exit 1: bad options, unusable files, an unreachable database. */
function fail(message: string): never {
  console.error(`sandbox: ${message}`);
  process.exit(1);
}

function options() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: '4020' },
        host: { type: 'string', default: '127.0.0.1' },
        db: { type: 'string', default: process.env.SANDBOX_DB ?? DEFAULT_DATABASE },
        merchants: { type: 'string' },
        'webhook-attempts': { type: 'string' },
        'webhook-retry-ms': { type: 'string' },
        'webhook-timeout-ms': { type: 'string' },
        'webhook-private-networks': { type: 'string' },
        'webhook-retention-days': { type: 'string' },
        'webhook-dead-retention-days': { type: 'string' },
        'admin-key': { type: 'string' },
        'cli-config': { type: 'string' },
        'secret-file': { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
        'docs-console-origin': { type: 'string', multiple: true },
        'public-url': { type: 'string' },
        seed: { type: 'string' },
        now: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    fail(`${(err as Error).message} (--help lists the options)`);
  }
}

/** The --public-url option: an http or https origin (no path, query or credentials), or exit 1. */
function publicOrigin(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  const origin =
    url && (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search && !url.hash
      ? url.username || url.password
        ? undefined
        : url.origin
      : undefined;
  if (origin === undefined)
    fail(
      `--public-url (or SANDBOX_PUBLIC_URL) must be an http or https origin such as https://sandbox.team.example, got ${text}`,
    );
  return origin;
}

/** The merchants file, checked field by field. */
export function readMerchants(path: string): MerchantCredentials[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read --merchants ${path}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new Error(`--merchants ${path}: expected a non-empty JSON array of { merchantId, apiKey, webhookSecret }`);
  return parsed.map((m, i) => {
    const record = (m ?? {}) as Record<string, unknown>;
    for (const field of ['merchantId', 'apiKey'] as const) {
      const value = record[field];
      if (typeof value !== 'string' || value === '')
        throw new Error(`--merchants ${path}: [${i}].${field} must be a non-empty string`);
    }
    const secret = record.webhookSecret;
    const secrets = Array.isArray(secret) ? secret : [secret];
    if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
      throw new Error(
        `--merchants ${path}: [${i}].webhookSecret must be a non-empty string or a non-empty list of them`,
      );
    }
    if (record.webhookKind !== undefined && record.webhookKind !== 'basic' && record.webhookKind !== 'enhanced') {
      throw new Error(`--merchants ${path}: [${i}].webhookKind must be "basic" or "enhanced"`);
    }
    return {
      merchantId: record.merchantId,
      apiKey: record.apiKey,
      webhookSecret: secret,
      webhookKind: record.webhookKind,
    } as MerchantCredentials;
  });
}

/** `npm run sandbox` without a subcommand: serve until SIGINT or SIGTERM. */
async function serve(): Promise<void> {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const settings = await serveSettings(values);
  const config = new CliConfigFile(settings.configPath, await import('./cli/config.js'));
  const shown = (m: MerchantCredentials) =>
    settings.merchantsFile
      ? `${m.merchantId} (from ${settings.merchantsFile})`
      : `${m.merchantId}\n  API key      ${m.apiKey}\n  webhook key  ${m.webhookSecret}`;
  const sandbox = await startServing(settings);
  const merchants = sandbox.demo ? [sandbox.demo] : settings.merchants;
  config.write(sandbox, merchants);
  console.log(banner(settings, sandbox, merchants, shown, config));
  stopOnSignals(sandbox, config);
}

/** What `npm run sandbox` serves with: its options and environment variables, checked. */
interface ServeSettings {
  host: string;
  port: number;
  database: string;
  /** --merchants: the file the merchants came from (none: the demo merchant). */
  merchantsFile: string | undefined;
  merchants: MerchantCredentials[];
  secret: { secret: string; from: string };
  webhooks: NonNullable<SandboxOptions['webhooks']>;
  retention: NonNullable<SandboxOptions['retention']>;
  /** Given (--admin-key, SANDBOX_ADMIN_KEY), else the sandbox makes one. */
  adminKey: string | undefined;
  /** Where .sandbox/cli.json goes (undefined: none is written). */
  configPath: string | undefined;
  corsOrigins: string[];
  consoleOrigins: string[];
  publicUrl: string | undefined;
  /** --now: the instant the clocks start at and stay at. */
  now: Date | undefined;
  /** --seed, as given. */
  seed: string | undefined;
  quiet: boolean;
}

const DAY_MS = 86_400_000;

/** The options and environment variables of serving, checked: exit 1 naming the first bad one. */
async function serveSettings(values: ReturnType<typeof options>): Promise<ServeSettings> {
  const { ephemeralSecret } = await import('./app/secrets.js');
  const { loadSecret, SECRET_ENV, SECRET_FILE_ENV } = await import('./platform/secret-file.js');
  const { cliConfigPath } = await import('./cli/config.js');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${values.port}`);
  // Before anything draws a random value: the sandbox secret and the admin key come from the seed too.
  if (values.seed !== undefined) await seedFrom(values);
  const { webhooks, retention } = webhookSettings(values);
  const adminKey = values['admin-key'] ?? process.env.SANDBOX_ADMIN_KEY;
  const configPath = cliConfigPath(values['cli-config']);
  if (configPath !== undefined && configPath.trim() === '')
    fail('--cli-config (or SANDBOX_CLI_CONFIG) must be a path or none');
  if (adminKey !== undefined && adminKey.trim() === '') fail('--admin-key (or SANDBOX_ADMIN_KEY) must not be empty');
  const { corsOrigins, consoleOrigins } = await browserOrigins(values);
  const publicUrl = publicOrigin(values['public-url'] ?? process.env.SANDBOX_PUBLIC_URL);
  try {
    return {
      host: values.host,
      port,
      database: values.db,
      merchantsFile: values.merchants,
      merchants: values.merchants ? readMerchants(values.merchants) : [],
      secret: secretOf(values, { ephemeralSecret, loadSecret, SECRET_ENV, SECRET_FILE_ENV }),
      webhooks,
      retention,
      adminKey,
      configPath,
      corsOrigins,
      consoleOrigins,
      publicUrl,
      now: instantOf(values.now),
      seed: values.seed,
      quiet: values.quiet,
    };
  } catch (err) {
    fail((err as Error).message);
  }
}

/**
 * The sandbox secret: given (SANDBOX_SECRET, --secret-file, SANDBOX_SECRET_FILE), else, for data that
 * dies with the process (:memory:), one of its own (nothing written to the working directory), else
 * .sandbox/secret.key, made on first start.
 */
function secretOf(
  values: ReturnType<typeof options>,
  secrets: Pick<typeof import('./app/secrets.js'), 'ephemeralSecret'> &
    Pick<typeof import('./platform/secret-file.js'), 'loadSecret' | 'SECRET_ENV' | 'SECRET_FILE_ENV'>,
): { secret: string; from: string } {
  const secret = process.env[secrets.SECRET_ENV];
  const file = values['secret-file'] ?? process.env[secrets.SECRET_FILE_ENV];
  if (values.db === ':memory:' && secret === undefined && file === undefined)
    return { secret: secrets.ephemeralSecret(), from: 'this process (the data is in memory)' };
  return secrets.loadSecret({ secret, file });
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** --seed: the random values' stream from then on, or exit 1 (not a number; not in memory on loopback). */
async function seedFrom(values: ReturnType<typeof options>): Promise<void> {
  const seed = Number(values.seed);
  if (!/^\d+$/.test(values.seed ?? '') || !Number.isSafeInteger(seed))
    fail(`--seed must be a non-negative integer, got ${values.seed}`);
  if (values.db !== ':memory:')
    fail(`--seed makes every key guessable: it needs --db :memory: (got --db ${values.db})`);
  if (!LOOPBACK_HOSTS.has(values.host))
    fail(`--seed makes every key guessable: it needs a loopback --host (127.0.0.1, ::1), got ${values.host}`);
  const { seedRandom } = await import('./app/random.js');
  seedRandom(seed);
}

/** --now: an ISO 8601 instant with its offset, or exit 1. */
function instantOf(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const instant = new Date(value);
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(instant.getTime())
  )
    fail(`--now must be an ISO 8601 instant with its offset (2026-03-01T09:00:00Z), got ${value}`);
  return instant;
}

/** A positive integer option, or exit 1 naming it. */
function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive integer, got ${value}`);
  return n;
}

/** Webhook delivery's options: the retry schedule, private networks, how long deliveries are kept. */
function webhookSettings(values: ReturnType<typeof options>): Pick<ServeSettings, 'webhooks' | 'retention'> {
  const maxAttempts = positive('webhook-attempts', values['webhook-attempts']);
  const retryBaseMs = positive('webhook-retry-ms', values['webhook-retry-ms']);
  const timeoutMs = positive('webhook-timeout-ms', values['webhook-timeout-ms']);
  const privateNetworks = values['webhook-private-networks'] ?? process.env.SANDBOX_WEBHOOK_PRIVATE_NETWORKS;
  if (privateNetworks !== undefined && privateNetworks !== 'allow' && privateNetworks !== 'deny')
    fail(
      `--webhook-private-networks (or SANDBOX_WEBHOOK_PRIVATE_NETWORKS) must be allow or deny, got ${privateNetworks}`,
    );
  const deliveredDays = positive('webhook-retention-days', values['webhook-retention-days']);
  const deadDays = positive('webhook-dead-retention-days', values['webhook-dead-retention-days']);
  // The sandbox has defaults for each: only the options given are passed.
  return {
    webhooks: definedMembers({ maxAttempts, retryBaseMs, timeoutMs, privateNetworks }),
    retention: definedMembers({
      deliveredMs: deliveredDays === undefined ? undefined : deliveredDays * DAY_MS,
      deadMs: deadDays === undefined ? undefined : deadDays * DAY_MS,
    }),
  };
}

/** The origins whose pages may call from a browser: CORS's and the docs console's, or exit 1. */
async function browserOrigins(
  values: ReturnType<typeof options>,
): Promise<Pick<ServeSettings, 'corsOrigins' | 'consoleOrigins'>> {
  const { CONSOLE_ORIGIN_OPTION, CORS_ORIGINS_ENV, corsOriginsFrom, parseOrigins } = await import(
    '../tooling/openapi/cors.js'
  );
  let corsOrigins: string[];
  try {
    corsOrigins = corsOriginsFrom(values['cors-origin'], process.env[CORS_ORIGINS_ENV]);
  } catch (err) {
    fail((err as Error).message);
  }
  try {
    return { corsOrigins, consoleOrigins: parseOrigins(values['docs-console-origin'] ?? []) };
  } catch (err) {
    fail(`--${CONSOLE_ORIGIN_OPTION}: ${(err as Error).message}`);
  }
}

/** Opens the store and starts the sandbox, or exits 1 saying why it cannot (the database, the address). */
async function startServing(settings: ServeSettings): Promise<Sandbox> {
  const { StoreOpenError } = await import('./store/index.js');
  const { startSandbox } = await import('./server.js');
  try {
    return await startSandbox({
      host: settings.host,
      port: settings.port,
      database: settings.database,
      secret: settings.secret.secret,
      merchants: settings.merchants,
      demo: !settings.merchantsFile,
      webhooks: settings.webhooks,
      corsOrigins: settings.corsOrigins,
      consoleOrigins: settings.consoleOrigins,
      retention: settings.retention,
      publicUrl: settings.publicUrl,
      now: settings.now,
      adminKey: settings.adminKey,
      log: settings.quiet ? undefined : (line: string) => console.log(line),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (err instanceof StoreOpenError) fail(err.message);
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
      fail(`cannot listen on ${settings.host}:${settings.port} (${e.code}); choose another --port or --host`);
    throw err;
  }
}

/** .sandbox/cli.json, for the subcommands (and tools) on this machine: the address, the admin key, the merchants' keys. */
class CliConfigFile {
  /** Whether this process wrote it (and removes it when it stops). */
  written = false;

  constructor(
    readonly path: string | undefined,
    private readonly files: typeof import('./cli/config.js'),
  ) {}

  write(sandbox: Pick<Sandbox, 'url' | 'adminKey'>, merchants: MerchantCredentials[]): void {
    if (this.path === undefined) return;
    try {
      this.files.writeCliConfig(
        {
          url: sandbox.url,
          adminKey: sandbox.adminKey,
          merchants: merchants.map((m) => ({
            merchantId: m.merchantId,
            apiKey: m.apiKey,
            webhookSecret: m.webhookSecret,
          })),
        },
        this.path,
      );
      this.written = true;
    } catch (err) {
      console.error(
        `sandbox: cannot write ${this.path} (${(err as Error).message}); the subcommands then need --url and --admin-key`,
      );
    }
  }

  remove(sandbox: Pick<Sandbox, 'url'>): void {
    if (this.written) this.files.removeCliConfig(sandbox.url, this.path);
  }
}

/** What `npm run sandbox` prints once it listens: where, with which keys, what a browser may call. */
function banner(
  settings: ServeSettings,
  sandbox: Sandbox,
  merchants: MerchantCredentials[],
  shown: (merchant: MerchantCredentials) => string,
  config: Pick<CliConfigFile, 'path' | 'written'>,
): string {
  const { publicUrl, adminKey, corsOrigins, consoleOrigins } = settings;
  return `Payment Service API v2 sandbox
  test root    ${sandbox.url}/api/v2
  live root    ${sandbox.url}/live/api/v2   (its own data: test requests never touch it)
${publicUrl !== undefined ? `  public URL   ${publicUrl}   (the hosted page's links)\n` : ''}  admin API    ${sandbox.url}/_sandbox   (${PROGRAM} seed | reset | clock | deliveries | trigger)
  admin key    ${adminKey === undefined ? sandbox.adminKey : '(given)'}${config.written ? `   (in ${config.path})` : ''}
  database     ${sandbox.store.location} (${sandbox.store.dialect}), secret from ${settings.secret.from}
  merchant     ${merchants.map(shown).join('\n  merchant     ')}${sandbox.examples.length > 0 ? `\n  examples     the contract's examples, under their own ids (reset --examples gives them again; docs/sandbox.md)` : ''}
${settings.seed !== undefined ? `  seed         ${settings.seed}: every id, key and secret follows from it (guessable: loopback only)\n` : ''}${settings.now !== undefined ? `  clocks       frozen at ${settings.now.toISOString()} until advanced (${PROGRAM} clock advance)\n` : ''}  CORS         ${corsOrigins.length ? `${corsOrigins.join(', ')} (the bearer-token operations only)` : 'closed: no browser origin may call (--cors-origin)'}
${consoleOrigins.length ? `  docs console ${consoleOrigins.join(', ')} (every operation, merchant credentials included: a developer's machine only)\n` : ''}  try          curl -u '${merchants[0]!.merchantId}:<API key>' ${sandbox.url}/api/v2/customers
               (${PROGRAM} env prints export lines for a shell or a .env file)
Ctrl-C stops it.`;
}

/** SIGINT or SIGTERM: the CLI's file removed, the sandbox closed, exit 0 (1 if closing failed). */
function stopOnSignals(sandbox: Sandbox, config: Pick<CliConfigFile, 'remove'>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      config.remove(sandbox);
      sandbox.close().then(
        () => process.exit(0),
        (err) => {
          console.error(`sandbox: stopping failed: ${(err as Error).message}`);
          process.exit(1);
        },
      );
    });
  }
}

// Last: serve() reads USAGE, which must be initialised by then.
installPlatform(nodePlatform);
// A subcommand calls a running sandbox: it loads none of the server (fast to start).
const command = process.argv[2];
if (command !== undefined && !command.startsWith('-')) {
  const { runCli } = await import('./cli/index.js');
  process.exitCode = await runCli(process.argv.slice(2));
} else {
  await serve();
}
