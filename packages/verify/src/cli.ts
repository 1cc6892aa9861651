#!/usr/bin/env node
// payment-verify: checks a running server against the Payment Service API v2 contract. Exit 0 when
// every check that ran passed, 1 when one failed, 2 on bad arguments, an unreachable server or a
// run in which no check could run.
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { verify } from './index.js';
import { loadContract } from './paths.js';
import { renderJunit, renderMarkdown, renderText } from './reports.js';
import { CHECK_NAMES, type CheckName, type VerifyOptions, VerifyUsageError } from './types.js';

/** The verifier's version: the contract's info.version it carries. */
const VERSION = loadContract().version;

export const USAGE = `usage: payment-verify --base-url <url> --merchant-id <id> --api-key <key> [options]

  --base-url <url>            the API root under test (e.g. http://127.0.0.1:4020/api/v2)
  --merchant-id, --api-key    the merchant the checks act as
  --second-merchant-id, --second-api-key
                              a second merchant, for the isolation checks (skipped without)
  --webhook-secret <secret>   the first merchant's, to check webhook signatures (skipped without)
  --webhook-url <url>         the public URL of the verifier's receiver (default: its address)
  --webhook-port <n>          where the receiver listens (default: a free port on 127.0.0.1)
  --hosted                    pay on the hosted page (the sandbox's), so that webhooks are sent
  --live-base-url <url>       the live root: a test token must be refused there
  --allow-live                allow the contract's live server as --base-url (reads only)
  --checks <a,b>              only these checks; --exclude-checks <a,b> all but these
                              (${CHECK_NAMES.join(', ')})
  --junit <file>, --markdown <file>, --json <file>   reports
  --seed <n>                  seeds the generated data
  --max-requests <n>          at most n requests (default 2000)
  --rate <n>                  at most n requests per second
  --timeout <s>               per request (default 15)
  -v, --version               this verifier's version (the contract's info.version)
  -h, --help`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'merchant-id': { type: 'string' },
  'api-key': { type: 'string' },
  'second-merchant-id': { type: 'string' },
  'second-api-key': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-port': { type: 'string' },
  hosted: { type: 'boolean', default: false },
  'live-base-url': { type: 'string' },
  'allow-live': { type: 'boolean', default: false },
  checks: { type: 'string' },
  'exclude-checks': { type: 'string' },
  junit: { type: 'string' },
  markdown: { type: 'string' },
  json: { type: 'string' },
  seed: { type: 'string' },
  'max-requests': { type: 'string' },
  rate: { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

function positive(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new VerifyUsageError(`--${name} ${text} is not a positive number`);
  return n;
}

function checkList(name: string, text: string | undefined): CheckName[] | undefined {
  if (text === undefined) return undefined;
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = list.filter((c) => !CHECK_NAMES.includes(c as CheckName));
  if (unknown.length > 0)
    throw new VerifyUsageError(`--${name}: unknown check ${unknown.join(', ')} (checks: ${CHECK_NAMES.join(', ')})`);
  return list as CheckName[];
}

/** The options of a command line, or a VerifyUsageError naming what is wrong. */
export function optionsOf(
  argv: string[],
  onProgress: (line: string) => void,
): VerifyOptions & { reports: Record<string, string | undefined> } {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false }));
  } catch (error) {
    throw new VerifyUsageError((error as Error).message);
  }
  if (values.help) throw new VerifyUsageError('');
  if (values.version) throw new VerifyUsageError('version');
  for (const required of ['base-url', 'merchant-id', 'api-key'] as const)
    if (!values[required]) throw new VerifyUsageError(`--${required} is required`);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new VerifyUsageError(`--seed ${values.seed} is not an integer`);
  const port = positive('webhook-port', values['webhook-port']);
  const checks = checkList('checks', values.checks);
  const excludeChecks = checkList('exclude-checks', values['exclude-checks']);
  const maxRequests = positive('max-requests', values['max-requests']);
  const rate = positive('rate', values.rate);
  const timeoutSeconds = positive('timeout', values.timeout);
  return {
    baseUrl: values['base-url']!,
    merchantId: values['merchant-id']!,
    apiKey: values['api-key']!,
    ...(values['second-merchant-id'] ? { secondMerchantId: values['second-merchant-id'] } : {}),
    ...(values['second-api-key'] ? { secondApiKey: values['second-api-key'] } : {}),
    ...(values['webhook-secret'] ? { webhookSecret: values['webhook-secret'] } : {}),
    ...(values['webhook-url'] ? { webhookUrl: values['webhook-url'] } : {}),
    ...(port ? { webhookPort: port } : {}),
    hosted: values.hosted === true,
    ...(values['live-base-url'] ? { liveBaseUrl: values['live-base-url'] } : {}),
    allowLive: values['allow-live'] === true,
    ...(checks ? { checks } : {}),
    ...(excludeChecks ? { excludeChecks } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(maxRequests ? { maxRequests } : {}),
    ...(rate ? { rate } : {}),
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
    onProgress,
    reports: { junit: values.junit, markdown: values.markdown, json: values.json },
  };
}

/** Writes a report whole or not at all (a temporary file renamed into place). */
function writeReport(path: string, text: string): void {
  const target = resolve(path);
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, target);
}

/** Runs the command; resolves to its exit code. */
export async function main(
  argv: string[],
  out = (l: string) => console.log(l),
  err = (l: string) => console.error(l),
): Promise<number> {
  try {
    const { reports, ...options } = optionsOf(argv, out);
    const report = await verify(options);
    out(renderText(report));
    if (reports.junit) writeReport(reports.junit, renderJunit(report));
    if (reports.markdown) writeReport(reports.markdown, renderMarkdown(report));
    if (reports.json) writeReport(reports.json, `${JSON.stringify(report, null, 2)}\n`);
    if (report.summary.exitCode === 2) err('payment-verify: no check could run (every check was skipped)');
    else if (report.summary.exitCode === 1)
      err(
        `payment-verify: the server breaks the contract: ${report.summary.failed} failed (${report.summary.checks
          .filter((c) => c.failed > 0)
          .map((c) => `${c.check} ${c.failed}`)
          .join(', ')})`,
      );
    return report.summary.exitCode;
  } catch (error) {
    if (!(error instanceof VerifyUsageError)) {
      // Not a verdict on the server: a CI gate must not read the verifier's own failure as one (exit 1).
      err(`payment-verify: the verifier failed, not the server: ${(error as Error)?.stack ?? String(error)}`);
      return 2;
    }
    if (error.message === 'version') {
      out(VERSION);
      return 0;
    }
    if (error.message === '') {
      out(USAGE);
      return 0;
    }
    err(`payment-verify: ${error.message}`);
    return 2;
  }
}

/** Whether this module is the program being run (the bin, through npm's symlink, or `tsx …/cli.ts`). */
function isProgram(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isProgram()) process.exitCode = await main(process.argv.slice(2));
