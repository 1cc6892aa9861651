// payment-verify catches each planted bug: one sandbox in this process, the fault proxy in front of it
// (test/support/fault-proxy.ts), and for every fault of FAULTS a run narrowed to the checks that
// concern it, which must fail (exit 1) in one of the checks FAULTS says catch it. The same narrowed
// runs without a fault pass (without-fault.test.ts), so that each failure is the fault's.
import { describe, expect, it } from 'vitest';
import { FAULTS, sandboxBehindFaultProxy } from '../support/fault-proxy.js';
import { checksOf, FAULT_NAMES, failuresOf, runThroughProxy } from '../support/fault-runs.js';

const suite = sandboxBehindFaultProxy();

describe('each fault', () => {
  it.each(FAULT_NAMES)('%s is caught by the checks FAULTS names', async (fault) => {
    suite().proxy.setFault(fault);
    const report = await runThroughProxy(suite(), checksOf(fault));
    const failures = failuresOf(report);
    const caught = report.results.filter((r) => r.outcome === 'failed' && FAULTS[fault].caughtBy.includes(r.check));
    expect(
      caught.length,
      `${fault} not caught by ${FAULTS[fault].caughtBy.join(' or ')} (--checks ${checksOf(fault).join(',')}); failures: ${failures.join('\n') || 'none'}`,
    ).toBeGreaterThan(0);
    expect(report.summary.exitCode).toBe(1);
  });
});
