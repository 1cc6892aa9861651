// The sandbox's subcommands: `npm run sandbox -- <command>` (sandbox/main.ts without a command
// serves). They call a running sandbox: its admin API (typed by generated/admin/types.ts) and, for
// `trigger`, its merchant API through the SDK; `listen` its listener operations with the merchant's
// credentials (listen.ts). Errors: one line on stderr, exit code 1.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { components } from '../../generated/admin/types.js';
import { createPaymentClient, PaymentError } from '../../src/client/index.js';
import { type AdminClient, admin, CliError, createAdminClient, unreachable } from './admin-client.js';
import { CLI_CONFIG_PATH, type CliConfig, cliConfigPath, DEFAULT_URL, readCliConfig } from './config.js';
import { DataFileError, type DataFileSource, readDataFile } from './data-file.js';
import { EVENTS, FIXTURES, runTrigger } from './fixtures.js';
import { listen, listenCredentials } from './listen.js';
import { PROGRAM, SERVE_COMMAND } from './program.js';

type Schemas = components['schemas'];
type Environment = Schemas['Environment'];

export const COMMANDS = ['seed', 'reset', 'clock', 'deliveries', 'trigger', 'listen', 'env'] as const;

const COMMON = `
Every command takes:
  --url <url>          the sandbox (default: ${CLI_CONFIG_PATH}, which \`${SERVE_COMMAND}\` writes, else ${DEFAULT_URL})
  --admin-key <key>    its admin key (default: SANDBOX_ADMIN_KEY, else ${CLI_CONFIG_PATH})
  --cli-config <path|none>  the file \`${SERVE_COMMAND}\` wrote (default: SANDBOX_CLI_CONFIG, else ${CLI_CONFIG_PATH})
  --json               machine output (JSON) instead of text`;

export const CLI_USAGE = `usage: ${PROGRAM} <command> [options]

  seed [--merchant ID] [--environment test|live] [--data FILE]
      give a merchant (default: the first) the objects the contract's examples name, under their
      own ids, so that the documentation's code samples run as written (test root by default);
      with --data, a data file of your own instead (YAML or JSON: customers, saved cards, plans,
      payments in given states; its schema is generated/admin/data.schema.json): a bad file is
      refused with each fault as FILE:LINE:COLUMN FIELD: MESSAGE, and nothing is written
  reset [--merchant ID] [--environment test|live] [--examples] [--data FILE]
      delete the sandbox's data (all of it without options); merchants and their credentials stay;
      with --examples, the reset test roots (or the environment named) get the contract's examples,
      with --data a data file (after the examples)
  clock [--merchant ID] [--environment test|live]
      show a scope's test clock (default: the first merchant, test)
  clock advance (--seconds N | --hours N | --days N | --to ISO-8601) [--merchant ID] [--environment E]
      advance it, running what falls due (DELAYED captures, plan billings, webhook retries)
  deliveries [--status PENDING|DELIVERED|DEAD] [--pay-id ID] [--merchant ID] [--environment E] [--limit N]
      webhook deliveries, newest first, with their attempts
  deliveries resend <deliveryId>
      send a delivered or dead-lettered delivery again (and show its first new attempt)
  trigger <event> [--merchant ID] [--api-key KEY] [--environment E] [--webhook-url URL]
      make an event happen through the merchant API (its notifications go to --webhook-url;
      checkout sessions need one: default https://shop.example/webhooks, which fails); events:
${EVENTS.map((e) => `        ${e.padEnd(24)} ${FIXTURES[e]!.description}${FIXTURES[e]!.advancesClock ? ' (advances the clock)' : ''}`).join('\n')}
      an event that advances the clock moves the merchant's test clock: its open checkout sessions
      and payment links may expire meanwhile
      the merchant's API key: --api-key, SANDBOX_API_KEY, or ${CLI_CONFIG_PATH} (the sandbox keeps only hashes)
  listen --forward-to <url> [--merchant-id ID] [--api-key KEY] [--environment E]
      receive the merchant's webhook deliveries on this machine (it opens the connection: the
      sandbox may be remote) and post each to <url> with its headers and signature; the local
      answer counts as the delivery's attempt. Meanwhile the merchant's deliveries go to its
      listeners instead of their URLs. Takes the merchant's credentials (--merchant-id, else
      SANDBOX_MERCHANT_ID or ${CLI_CONFIG_PATH}; --api-key, else SANDBOX_API_KEY or ${CLI_CONFIG_PATH}),
      not the admin key. Ctrl-C stops it.
  env [--merchant ID] [--environment test|live]
      export lines for a shell or a .env file, from ${CLI_CONFIG_PATH}: PAYMENT_API_BASE_URL,
      MERCHANT_ID, API_KEY, WEBHOOK_SECRET (what the docs' samples and the example receiver read);
      e.g. eval "$(npm run -s sandbox -- env)"
${COMMON}`;

const OPTIONS = {
  url: { type: 'string' },
  'admin-key': { type: 'string' },
  'cli-config': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  merchant: { type: 'string' },
  environment: { type: 'string' },
  'api-key': { type: 'string' },
  'webhook-url': { type: 'string' },
  status: { type: 'string' },
  'pay-id': { type: 'string' },
  limit: { type: 'string' },
  seconds: { type: 'string' },
  hours: { type: 'string' },
  days: { type: 'string' },
  to: { type: 'string' },
  'forward-to': { type: 'string' },
  'merchant-id': { type: 'string' },
  examples: { type: 'boolean' },
  data: { type: 'string' },
} satisfies ParseArgsConfig['options'];

/** Which options each command (and sub-action) accepts: a misplaced one is an error, not ignored. */
const ACCEPTS: Record<string, ReadonlyArray<keyof typeof OPTIONS>> = {
  seed: ['merchant', 'environment', 'data'],
  reset: ['merchant', 'environment', 'examples', 'data'],
  clock: ['merchant', 'environment'],
  'clock advance': ['merchant', 'environment', 'seconds', 'hours', 'days', 'to'],
  deliveries: ['status', 'pay-id', 'merchant', 'environment', 'limit'],
  'deliveries resend': [],
  trigger: ['merchant', 'environment', 'api-key', 'webhook-url'],
  listen: ['forward-to', 'merchant-id', 'merchant', 'api-key', 'environment'],
  env: ['merchant', 'environment'],
};

interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Where the CLI config is read (default .sandbox/cli.json in the working directory). */
  configPath?: string;
  /** Stops `listen` (default: SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** Runs one command; resolves to the exit code. */
export async function runCli(
  argv: string[],
  io: Io = { out: (l) => console.log(l), err: (l) => console.error(l), env: process.env },
): Promise<number> {
  const command = argv[0] ?? '';
  try {
    const { values, positionals } = parseOptions(argv.slice(1), command);
    if (values.help) {
      io.out(CLI_USAGE);
      return 0;
    }
    const action = positionals[0];
    // trigger's positional is its event; clock's and deliveries' an action; listen takes none.
    const key =
      action === undefined || command === 'trigger' || command === 'listen' ? command : `${command} ${action}`;
    const accepted = ACCEPTS[key];
    if (!accepted)
      throw new CliError(`unknown ${command} action ${JSON.stringify(action)} (--help lists the commands)`);
    for (const name of Object.keys(values) as Array<keyof typeof OPTIONS>) {
      if (!['url', 'admin-key', 'cli-config', 'json', 'help'].includes(name) && !accepted.includes(name))
        throw new CliError(`--${name} is not an option of \`${key}\``);
    }
    if (key === 'env') return env(values, io);
    // listen takes the merchant's credentials, not the admin key.
    if (key === 'listen') return await listenCommand(values, positionals, io);
    const ctx = context(values, io);
    switch (key) {
      case 'seed':
        return await seed(ctx, values);
      case 'reset':
        return await reset(ctx, values);
      case 'clock':
      case 'clock advance':
        return await clock(ctx, values, action === 'advance');
      case 'deliveries':
        return await deliveries(ctx, values);
      case 'deliveries resend':
        return await resend(ctx, positionals[1], positionals.length);
      default:
        return await trigger(ctx, values, positionals);
    }
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`sandbox ${command}: ${err.message}`);
      return 1;
    }
    if (err instanceof PaymentError) {
      io.err(`sandbox ${command}: the merchant API refused a call: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

type Values = ReturnType<typeof parseOptions>['values'];

function parseOptions(args: string[], command: string) {
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new CliError(`unknown command ${JSON.stringify(command)}; commands: ${COMMANDS.join(', ')}`);
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (err) {
    throw new CliError(`${(err as Error).message} (--help lists the options)`);
  }
}

interface Context {
  url: string;
  json: boolean;
  io: Io;
  config: CliConfig | undefined;
  client: AdminClient;
  /** An admin call's data, or a CliError; `dataFile`: the data file the call sent, whose faults are named by line. */
  call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>, dataFile?: DataFileSource): Promise<T>;
  print(json: unknown, text: () => string): void;
}

function context(values: Values, io: Io): Context {
  const path = io.configPath ?? cliConfigPath(values['cli-config'], io.env);
  const written = path === undefined ? undefined : readCliConfig(path);
  const url = (values.url ?? written?.url ?? DEFAULT_URL).replace(/\/+$/, '');
  // The file's keys belong to the sandbox it names, not to another --url.
  const config = written && written.url.replace(/\/+$/, '') === url ? written : undefined;
  try {
    new URL(url);
  } catch {
    throw new CliError(`--url must be a URL such as ${DEFAULT_URL}, got ${url}`);
  }
  const adminKey = values['admin-key'] ?? io.env.SANDBOX_ADMIN_KEY ?? config?.adminKey;
  if (!adminKey)
    throw new CliError(
      `no admin key: pass --admin-key or SANDBOX_ADMIN_KEY (\`${SERVE_COMMAND}\` prints it and writes it to ${CLI_CONFIG_PATH})`,
    );
  const client = createAdminClient(url, adminKey);
  return {
    url,
    json: values.json === true,
    io,
    config,
    client,
    call: (request, dataFile) => admin(url, request, dataFile),
    print: (json, text) => io.out(values.json ? JSON.stringify(json, null, 2) : text()),
  };
}

/** The sandbox's address and the CLI config that describes it (its keys belong to it, not to another --url). */
function sandboxOf(values: Values, io: Io): { url: string; config: CliConfig | undefined } {
  const path = io.configPath ?? cliConfigPath(values['cli-config'], io.env);
  const written = path === undefined ? undefined : readCliConfig(path);
  const url = (values.url ?? written?.url ?? DEFAULT_URL).replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new CliError(`--url must be a URL such as ${DEFAULT_URL}, got ${url}`);
  }
  return { url, config: written && written.url.replace(/\/+$/, '') === url ? written : undefined };
}

async function listenCommand(values: Values, positionals: string[], io: Io): Promise<number> {
  if (positionals.length > 0) throw new CliError('usage: listen --forward-to <url> [--merchant-id ID] [--api-key KEY]');
  const forwardTo = values['forward-to'];
  if (forwardTo === undefined)
    throw new CliError(
      'listen needs --forward-to <url>: your local webhook endpoint, such as http://localhost:3000/webhooks',
    );
  const { url, config } = sandboxOf(values, io);
  const { merchantId, apiKey } = listenCredentials(values, io.env, config);
  let signal = io.signal;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  if (!signal) {
    signal = stop.signal;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    return await listen({
      url,
      merchantId,
      apiKey,
      environment: environmentOf(values) ?? 'test',
      forwardTo,
      json: values.json === true,
      out: io.out,
      err: io.err,
      signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function environmentOf(values: Values): Environment | undefined {
  const e = values.environment;
  if (e === undefined) return undefined;
  if (e !== 'test' && e !== 'live') throw new CliError(`--environment must be test or live, got ${e}`);
  return e;
}

/** --merchant, else the first merchant the sandbox lists. */
async function merchantOf(ctx: Context, values: Values): Promise<string> {
  if (values.merchant !== undefined) return values.merchant;
  const { data } = await ctx.call(ctx.client.GET('/_sandbox/merchants'));
  const first = data[0];
  if (!first) throw new CliError(`the sandbox at ${ctx.url} has no merchants`);
  return first.merchantId;
}

function positiveInteger(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`--${name} must be a positive integer, got ${value}`);
  return n;
}

// ---------------------------------------------------------------------------------------------

/** The data file --data names, read and parsed (a fault in it is a CliError naming its line). */
function dataFileOf(values: Values): DataFileSource | undefined {
  if (values.data === undefined) return undefined;
  try {
    return readDataFile(values.data);
  } catch (err) {
    if (err instanceof DataFileError) throw new CliError(`the data file cannot be used:\n  ${err.lines.join('\n  ')}`);
    throw err;
  }
}

async function reset(ctx: Context, values: Values): Promise<number> {
  const environment = environmentOf(values);
  const file = dataFileOf(values);
  const body = {
    merchantId: values.merchant,
    environment,
    examples: values.examples === true,
    ...(file ? { data: file.data as Schemas['DataFile'] } : {}),
  };
  const result = await ctx.call(ctx.client.POST('/_sandbox/reset', { body }), file);
  ctx.print(result, () => {
    const what = [result.merchantId ?? 'every merchant', result.environment ?? 'test and live'].join(', ');
    const counts = Object.entries(result.deleted)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind}`);
    const examples = result.examples.map((s) => `${s.merchantId} (${s.environment})`);
    const data = (result.data ?? []).map((s) => `${s.merchantId} (${s.environment})`);
    return `reset ${what}: deleted ${counts.length > 0 ? counts.join(', ') : 'nothing'}${examples.length > 0 ? `; the contract's examples given to ${examples.join(', ')}` : ''}${data.length > 0 ? `; ${values.data} given to ${data.join(', ')}` : ''}`;
  });
  return 0;
}

async function seed(ctx: Context, values: Values): Promise<number> {
  const environment = environmentOf(values) ?? 'test';
  const file = dataFileOf(values);
  const merchantId = await merchantOf(ctx, values);
  if (file) return seedData(ctx, merchantId, environment, file);
  const result = await ctx.call(
    ctx.client.POST('/_sandbox/merchants/{merchantId}/examples', {
      params: { path: { merchantId } },
      body: { environment },
    }),
  );
  ctx.print(result, () =>
    [
      `${merchantId} (${environment}): the contract's examples, under their own ids`,
      ...objectRows(result.objects),
    ].join('\n'),
  );
  return 0;
}

/** What a seed made, a row each under its heading (indented beneath the scope's line). */
const objectRows = (objects: ReadonlyArray<{ kind: string; id: string; transId?: string; state?: string }>) =>
  table([
    ['KIND', 'ID', 'TRANSID', 'STATE'],
    ...objects.map((o) => [o.kind, o.id, o.transId ?? '-', o.state ?? '-']),
  ]).map((line) => `  ${line}`);

/** `seed --data`: the data file given to the merchant's scope, and what it made. */
async function seedData(
  ctx: Context,
  merchantId: string,
  environment: Environment,
  file: DataFileSource,
): Promise<number> {
  const result = await ctx.call(
    ctx.client.POST('/_sandbox/merchants/{merchantId}/data', {
      params: { path: { merchantId } },
      body: { environment, data: file.data as Schemas['DataFile'] },
    }),
    file,
  );
  ctx.print(result, () => [`${merchantId} (${environment}): ${file.path}`, ...objectRows(result.objects)].join('\n'));
  return 0;
}

const duration = (ms: number) => {
  const s = Math.floor(ms / 1000);
  const parts = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3_600), 'h'],
    [Math.floor((s % 3_600) / 60), 'm'],
    [s % 60, 's'],
  ] as const;
  const shown = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n}${unit}`);
  return shown.length > 0 ? shown.join(' ') : '0s';
};

async function clock(ctx: Context, values: Values, advance: boolean): Promise<number> {
  const environment = environmentOf(values) ?? 'test';
  const merchantId = await merchantOf(ctx, values);
  const params = { path: { merchantId, environment } };
  const scope = `${merchantId} (${environment})`;
  if (!advance) {
    const state = await ctx.call(ctx.client.GET('/_sandbox/clocks/{merchantId}/{environment}', { params }));
    ctx.print(
      state,
      () =>
        `${scope}: ${state.now}${state.offsetMs > 0 ? `, ${duration(state.offsetMs)} ahead of the wall clock` : ', the wall clock'}`,
    );
    return 0;
  }
  const given = (['seconds', 'hours', 'days', 'to'] as const).filter((name) => values[name] !== undefined);
  if (given.length !== 1) throw new CliError('clock advance takes exactly one of --seconds, --hours, --days or --to');
  const which = given[0]!;
  let body: Schemas['AdvanceRequest'];
  if (which === 'to') {
    const to = values.to!;
    if (Number.isNaN(Date.parse(to)) || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(to))
      throw new CliError(`--to must be an ISO 8601 date-time with its offset (2026-12-01T00:00:00Z), got ${to}`);
    body = { to: new Date(to).toISOString() };
  } else {
    body = { seconds: positiveInteger(which, values[which]!) * { seconds: 1, hours: 3_600, days: 86_400 }[which] };
  }
  const result = await ctx.call(
    ctx.client.POST('/_sandbox/clocks/{merchantId}/{environment}/advance', { params, body }),
  );
  ctx.print(result, () =>
    [
      `${scope}: ${result.from} → ${result.clock.now} (${duration(Date.parse(result.clock.now) - Date.parse(result.from))}; ${duration(result.clock.offsetMs)} ahead of the wall clock)`,
      ...result.captured.map(
        (c) => `  captured  ${c.payId}  ${c.amount.value} ${c.amount.currency} (minor units)  at ${c.at}`,
      ),
      ...result.billed.map((b) => `  billed    plan ${b.paymentPlanId} → ${b.payId} ${b.status}  at ${b.at}`),
      ...(result.captured.length + result.billed.length === 0 ? ['  nothing fell due'] : []),
      ...(result.webhooksDue > 0
        ? [`  ${result.webhooksDue} webhook retr${result.webhooksDue === 1 ? 'y' : 'ies'} now due`]
        : []),
    ].join('\n'),
  );
  return 0;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

const attemptText = (a: Schemas['WebhookAttempt']) =>
  `${a.at}  ${a.statusCode ?? a.error ?? '?'}  ${a.durationMs} ms${a.listenerId ? `  (via ${a.listenerId})` : ''}`;

async function deliveries(ctx: Context, values: Values): Promise<number> {
  const environment = environmentOf(values);
  const status = values.status;
  if (status !== undefined && !['PENDING', 'DELIVERED', 'DEAD'].includes(status))
    throw new CliError(`--status must be PENDING, DELIVERED or DEAD, got ${status}`);
  const query = {
    merchantId: values.merchant,
    environment,
    status: status as Schemas['DeliveryStatus'] | undefined,
    payId: values['pay-id'],
    limit: values.limit === undefined ? undefined : positiveInteger('limit', values.limit),
  };
  const { data } = await ctx.call(ctx.client.GET('/_sandbox/webhook-deliveries', { params: { query } }));
  ctx.print({ data }, () => {
    if (data.length === 0) return 'no webhook deliveries';
    const lines: string[] = [];
    const header = ['ID', 'PAY ID', 'MERCHANT', 'STATUS', 'ATTEMPTS', 'NEXT ATTEMPT', 'URL'];
    const rows = data.map((d) => [
      d.id,
      d.payId,
      `${d.scope.merchantId}/${d.scope.environment}`,
      d.status,
      String(d.attempts.length),
      d.status === 'PENDING' ? d.nextAttemptAt : '-',
      d.url,
    ]);
    const [head, ...body] = table([header, ...rows]);
    lines.push(head!);
    body.forEach((row, i) => {
      lines.push(row);
      for (const a of data[i]!.attempts) lines.push(`    ${attemptText(a)}`);
    });
    return lines.join('\n');
  });
  return 0;
}

async function resend(ctx: Context, id: string | undefined, count: number): Promise<number> {
  if (!id || count !== 2) throw new CliError('usage: deliveries resend <deliveryId>');
  const path = { params: { path: { deliveryId: id } } };
  const resent = await ctx.call(ctx.client.POST('/_sandbox/webhook-deliveries/{deliveryId}/resend', path));
  // The sandbox sends it at once: show the first new attempt (the resend itself has succeeded either way).
  const before = resent.resentAfterAttempts ?? resent.attempts.length;
  let latest = resent;
  const end = Date.now() + 15_000;
  while (latest.attempts.length <= before && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    latest = await ctx.call(ctx.client.GET('/_sandbox/webhook-deliveries/{deliveryId}', path));
  }
  ctx.print(latest, () => {
    const attempt = latest.attempts[before];
    return attempt
      ? `resent ${id} to ${latest.url}: ${attempt.statusCode ?? attempt.error} → ${latest.status}${latest.status === 'PENDING' ? `, next attempt at ${latest.nextAttemptAt}` : ''}`
      : `resent ${id} to ${latest.url}: queued, no attempt yet`;
  });
  return 0;
}

/** A shell-quoted value (single quotes; a quote inside closes, escapes and reopens). */
const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** `export` lines for the merchant the running sandbox wrote to its CLI config. */
function env(values: Values, io: Io): number {
  const path = io.configPath ?? cliConfigPath(values['cli-config'], io.env);
  const config = path === undefined ? undefined : readCliConfig(path);
  if (!config) throw new CliError(`no ${path ?? CLI_CONFIG_PATH}: start the sandbox first (${SERVE_COMMAND})`);
  const merchants = config.merchants ?? [];
  const merchant =
    values.merchant === undefined ? merchants[0] : merchants.find((m) => m.merchantId === values.merchant);
  if (!merchant)
    throw new CliError(`${path} holds no merchant${values.merchant === undefined ? '' : ` ${values.merchant}`}`);
  const root = environmentOf(values) === 'live' ? '/live/api/v2' : '/api/v2';
  const secret = Array.isArray(merchant.webhookSecret) ? merchant.webhookSecret[0] : merchant.webhookSecret;
  const lines = [
    ['PAYMENT_API_BASE_URL', `${config.url.replace(/\/+$/, '')}${root}`],
    ['MERCHANT_ID', merchant.merchantId],
    ['API_KEY', merchant.apiKey],
    ...(secret !== undefined ? [['WEBHOOK_SECRET', secret]] : []),
  ];
  for (const [name, value] of lines) io.out(`export ${name}=${quoted(value!)}`);
  return 0;
}

async function trigger(ctx: Context, values: Values, positionals: string[]): Promise<number> {
  const event = positionals[0];
  if (!event || positionals.length !== 1) throw new CliError(`usage: trigger <event>; events: ${EVENTS.join(', ')}`);
  if (!FIXTURES[event])
    throw new CliError(`unknown event ${JSON.stringify(event)}; known events: ${EVENTS.join(', ')}`);
  const environment = environmentOf(values) ?? 'test';
  const webhookUrl = values['webhook-url'];
  if (webhookUrl !== undefined && !/^https?:\/\/[^/]/.test(webhookUrl))
    throw new CliError(`--webhook-url must be an http(s) URL, got ${webhookUrl}`);
  const merchantId = await merchantOf(ctx, values);
  const apiKey =
    values['api-key'] ??
    ctx.io.env.SANDBOX_API_KEY ??
    ctx.config?.merchants?.find((m) => m.merchantId === merchantId)?.apiKey;
  if (!apiKey)
    throw new CliError(
      `no API key for merchant ${merchantId}: pass --api-key or SANDBOX_API_KEY (the sandbox stores only its hash)`,
    );
  const client = createPaymentClient({
    merchantId,
    apiKey,
    baseUrl: `${ctx.url}${environment === 'live' ? '/live/api/v2' : '/api/v2'}`,
    maxAttempts: 1,
  });
  const path = { merchantId, environment };
  try {
    const result = await runTrigger(event, {
      client,
      shopUrl: 'https://shop.example',
      webhookUrl,
      advanceClock: (by) =>
        ctx.call(
          ctx.client.POST('/_sandbox/clocks/{merchantId}/{environment}/advance', { params: { path }, body: by }),
        ),
    });
    ctx.print(result, () =>
      [
        `${event}: ${result.payId ? `payment ${result.payId}` : 'no payment'} (transId ${result.transId}${result.paymentPlanId ? `, plan ${result.paymentPlanId}` : ''}) is ${result.state}`,
        ...result.steps.map((s) => `  ${s}`),
      ].join('\n'),
    );
    return 0;
  } catch (err) {
    // The merchant API unreachable, or it refused the merchant's credentials: one line that says so.
    if (err instanceof PaymentError && err.name === 'PaymentNetworkError') throw unreachable(ctx.url, err.cause ?? err);
    if (err instanceof PaymentError && 'status' in err && err.status === 401)
      throw new CliError(`the sandbox refused merchant ${merchantId}'s API key (401): pass the right --api-key`);
    throw err;
  }
}
