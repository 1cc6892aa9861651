// payment-verify catches each planted bug: one sandbox in this process, the fault proxy in front of it
// (test/support/fault-proxy.ts), and for every fault of FAULTS a run narrowed to the checks that
// concern it, which must fail (exit 1) in one of the checks FAULTS says catch it. The same narrowed
// runs without a fault pass (exit 0), so that each failure is the fault's.
import { describe, expect, it } from 'vitest';
import { type CheckName, RESPONSE_CHECKS, type VerifyReport, verify } from '../../packages/verify/src/index.js';
import { FAULTS, type FaultName, sandboxBehindFaultProxy } from '../support/fault-proxy.js';

const suite = sandboxBehindFaultProxy();

const NAMES = Object.keys(FAULTS) as FaultName[];

/**
 * The checks a fault's run asks for: those that catch it, and when they are only response checks
 * (which judge what other checks send) `idempotency`, whose payments are created, refunded and
 * read: the requests those faults change, in a dozen requests rather than positive-acceptance's 80.
 */
function checksOf(fault: FaultName): CheckName[] {
  const catching = FAULTS[fault].caughtBy as CheckName[];
  return catching.every((c) => RESPONSE_CHECKS.includes(c)) ? [...catching, 'idempotency'] : catching;
}

/** A run through the proxy, as a provider would run it: both merchants, the secret, the hosted page, the live root. */
function run(checks: CheckName[]): Promise<VerifyReport> {
  const { t, proxy } = suite();
  return verify({
    baseUrl: `${proxy.url}/api/v2`,
    liveBaseUrl: `${proxy.url}/live/api/v2`,
    merchantId: t.merchant.merchantId,
    apiKey: t.merchant.apiKey,
    secondMerchantId: t.other.merchantId,
    secondApiKey: t.other.apiKey,
    webhookSecret: t.merchant.webhookSecret as string,
    hosted: true,
    checks,
  });
}

const failuresOf = (report: VerifyReport) =>
  report.results
    .filter((r) => r.outcome === 'failed')
    .map((r) => `${r.check} ${r.operationId}: ${r.title}: ${r.actual.slice(0, 160)}`);

describe('without a fault', () => {
  /** Each distinct set of checks the faults' runs ask for, once. */
  const sets = [...new Map(NAMES.map((n) => [[...checksOf(n)].sort().join(','), checksOf(n)])).values()];

  it.each(sets.map((checks) => [checks.join(', '), checks] as const))('--checks %s passes', async (_, checks) => {
    const report = await run(checks);
    expect(failuresOf(report), 'a failure without a fault is no fault’s').toEqual([]);
    expect(report.summary.exitCode).toBe(0);
  });
});

describe('each fault', () => {
  it.each(NAMES)('%s is caught by the checks FAULTS names', async (fault) => {
    suite().proxy.setFault(fault);
    const report = await run(checksOf(fault));
    const failures = failuresOf(report);
    const caught = report.results.filter((r) => r.outcome === 'failed' && FAULTS[fault].caughtBy.includes(r.check));
    expect(
      caught.length,
      `${fault} not caught by ${FAULTS[fault].caughtBy.join(' or ')} (--checks ${checksOf(fault).join(',')}); failures: ${failures.join('\n') || 'none'}`,
    ).toBeGreaterThan(0);
    expect(report.summary.exitCode).toBe(1);
  });
});
