// payment-verify's runs against a sandbox behind the fault proxy (fault-proxy.ts), narrowed to the
// checks that concern a fault: what the fault files of test/verify/ share, the runs with each fault
// (each must fail in a check FAULTS names) and the same runs without one (each must pass).
import { type CheckName, RESPONSE_CHECKS, type VerifyReport, verify } from '../../packages/verify/src/index.js';
import { FAULTS, type FaultName, type FaultProxy } from './fault-proxy.js';
import type { TestSandbox } from './sandbox.js';

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

/**
 * The checks a fault's run asks for: those that catch it, and when they are only response checks
 * (which judge what other checks send) `idempotency`, whose payments are created, refunded and
 * read: the requests those faults change, in a dozen requests rather than positive-acceptance's 80.
 */
export function checksOf(fault: FaultName): CheckName[] {
  const catching = FAULTS[fault].caughtBy as CheckName[];
  return catching.every((c) => RESPONSE_CHECKS.includes(c)) ? [...catching, 'idempotency'] : catching;
}

/** A run through the proxy, as a provider would run it: both merchants, the secret, the hosted page, the live root. */
export function runThroughProxy({ t, proxy }: { t: TestSandbox; proxy: FaultProxy }, checks: CheckName[]) {
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

/** A run's failures, one line each. */
export const failuresOf = (report: VerifyReport) =>
  report.results
    .filter((r) => r.outcome === 'failed')
    .map((r) => `${r.check} ${r.operationId}: ${r.title}: ${r.actual.slice(0, 160)}`);
