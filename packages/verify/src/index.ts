// payment-verify as a library: `verify(options)` runs the named checks against a server and returns
// the report the command prints and writes. It judges from the contract alone (the bundle inside
// this package) and imports nothing of any server.
import { randomBytes } from 'node:crypto';
import { checkAuth } from './checks/auth.js';
import { checkIdempotency } from './checks/idempotency.js';
import { checkIsolation } from './checks/isolation.js';
import { checkLifecycle } from './checks/lifecycle.js';
import { negativeRejection } from './checks/negative.js';
import { positiveAcceptance } from './checks/positive.js';
import { checkWebhooks } from './checks/webhooks.js';
import { runWorkflows } from './checks/workflows.js';
import { Client, NoAnswerError, RequestBudgetError } from './client.js';
import { type RunContext, referenceMaker, seededRandom } from './context.js';
import type { Contract } from './contract.js';
import { FixtureError, Fixtures } from './fixtures.js';
import { bundleUrl, loadContract } from './paths.js';
import { Receiver } from './receiver.js';
import { Results } from './results.js';
import {
  CHECK_NAMES,
  type CheckName,
  RESPONSE_CHECKS,
  type VerifyOptions,
  type VerifyReport,
  VerifyUsageError,
} from './types.js';
import { SchemaValidator } from './validator.js';

export { renderJunit, renderMarkdown, renderText } from './reports.js';
export * from './types.js';

interface Stage {
  check: CheckName;
  run(ctx: RunContext, fx: Fixtures): Promise<void>;
}

/** The checks that send requests of their own, in the order they run; the response checks judge them all. */
const STAGES: Stage[] = [
  { check: 'positive-acceptance', run: positiveAcceptance },
  { check: 'negative-rejection', run: negativeRejection },
  { check: 'auth', run: checkAuth },
  { check: 'isolation', run: checkIsolation },
  { check: 'idempotency', run: checkIdempotency },
  { check: 'lifecycle', run: checkLifecycle },
  { check: 'webhooks', run: checkWebhooks },
  { check: 'workflows', run: runWorkflows },
];

function enabledChecks(options: VerifyOptions): Set<CheckName> {
  for (const name of [...(options.checks ?? []), ...(options.excludeChecks ?? [])])
    if (!CHECK_NAMES.includes(name))
      throw new VerifyUsageError(`unknown check ${name} (checks: ${CHECK_NAMES.join(', ')})`);
  const asked = options.checks?.length ? new Set(options.checks) : new Set(CHECK_NAMES);
  for (const name of options.excludeChecks ?? []) asked.delete(name);
  return asked;
}

function validateOptions(options: VerifyOptions, c: Contract): boolean {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new VerifyUsageError(`--base-url ${options.baseUrl} is not a URL`);
  }
  if (!/^https?:$/.test(url.protocol)) throw new VerifyUsageError(`--base-url ${options.baseUrl} is not http or https`);
  if (!options.merchantId || !options.apiKey) throw new VerifyUsageError('--merchant-id and --api-key are required');
  if (Boolean(options.secondMerchantId) !== Boolean(options.secondApiKey))
    throw new VerifyUsageError('--second-merchant-id and --second-api-key go together');
  const live = c.servers.find((s) => s.environment === 'live');
  const isLive = live !== undefined && options.baseUrl.replace(/\/$/, '') === live.url.replace(/\/$/, '');
  if (isLive && !options.allowLive)
    throw new VerifyUsageError(
      `--base-url is the contract's live server ${live.url}: add --allow-live (only reads then run)`,
    );
  return isLive;
}

/** Whether the server answers at all: one request to the token operation, unjudged. */
async function reachable(baseUrl: string, timeoutSeconds: number): Promise<void> {
  try {
    await fetch(`${baseUrl.replace(/\/$/, '')}/authorization/oauth/token`, {
      method: 'POST',
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
  } catch (error) {
    throw new VerifyUsageError(new NoAnswerError(baseUrl, error).message);
  }
}

/** Runs the checks against the server at `options.baseUrl` and reports what they found. */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const c = loadContract();
  const enabled = enabledChecks(options);
  const readOnly = validateOptions(options, c);
  const timeoutSeconds = options.timeoutSeconds ?? 15;
  await reachable(options.baseUrl, timeoutSeconds);
  const started = Date.now();
  const runId = `pv${started.toString(36)}${randomBytes(2).toString('hex')}`;
  const progress = options.onProgress ?? (() => {});
  const results = new Results(enabled, (f) => progress(`  ✗ ${f.check} ${f.operationId}: ${f.title}: ${f.actual}`));
  const validator = new SchemaValidator(bundleUrl(), c.document);
  const client = new Client(c, validator, results, {
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    maxRequests: options.maxRequests ?? 2000,
    ...(options.rate ? { rate: options.rate } : {}),
    timeoutSeconds,
  });
  const needsReceiver = enabled.has('webhooks') || enabled.has('workflows');
  const receiver = needsReceiver ? await Receiver.start(options.webhookPort, options.webhookUrl) : undefined;
  const ctx: RunContext = {
    contract: c,
    client,
    results,
    validator,
    runId,
    first: { merchantId: options.merchantId, apiKey: options.apiKey },
    ...(options.secondMerchantId && options.secondApiKey
      ? { second: { merchantId: options.secondMerchantId, apiKey: options.secondApiKey } }
      : {}),
    ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
    ...(receiver ? { receiver } : {}),
    hosted: options.hosted === true,
    ...(options.liveBaseUrl ? { liveBaseUrl: options.liveBaseUrl.replace(/\/$/, '') } : {}),
    readOnly,
    ref: referenceMaker(runId),
    random: seededRandom(options.seed ?? started),
    progress,
  };
  const fx = new Fixtures(ctx);
  try {
    for (const stage of STAGES) {
      if (!results.runs(stage.check) && !(stage.check === 'positive-acceptance' && onlyResponseChecks(enabled)))
        continue;
      progress(`${stage.check}…`);
      try {
        await stage.run(ctx, fx);
      } catch (error) {
        if (error instanceof RequestBudgetError) {
          results.skip(stage.check, '-', 'the rest of the run', error.message);
          break;
        }
        if (error instanceof FixtureError || error instanceof NoAnswerError) {
          results.fail(stage.check, {
            operationId: '-',
            title: 'what the check needed',
            expected: 'the server to make it',
            actual: error.message,
          });
          continue;
        }
        throw error;
      }
    }
    if (!readOnly) await cleanup(fx, results);
  } finally {
    await receiver?.stop();
  }
  return results.report(c, {
    runId,
    baseUrl: options.baseUrl,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
  });
}

/** The run's customers deleted; a failure to clean up is reported, not fatal (the verdicts stand). */
async function cleanup(fx: Fixtures, results: Results): Promise<void> {
  try {
    await fx.cleanup();
  } catch (error) {
    if (!(error instanceof RequestBudgetError || error instanceof NoAnswerError)) throw error;
    results.skip(
      'lifecycle',
      'deleteCustomer',
      'the customers this run made, deleted at its end',
      (error as Error).message,
    );
  }
}

/** Only response checks asked for: positive-acceptance's requests are what they judge. */
function onlyResponseChecks(enabled: Set<CheckName>): boolean {
  return [...enabled].every((c) => RESPONSE_CHECKS.includes(c));
}
