// The runs of faults.test.ts without a fault: one sandbox in this process behind the fault proxy
// (test/support/fault-proxy.ts) with none set, and each distinct set of checks a fault's run asks
// for passes (exit 0, no failure). A failure there is then the fault's, not the checks' or the
// sandbox's. A file of its own so that it runs beside faults.test.ts.
import { describe, expect, it } from 'vitest';
import { sandboxBehindFaultProxy } from '../support/fault-proxy.js';
import { checksOf, FAULT_NAMES, failuresOf, runThroughProxy } from '../support/fault-runs.js';

const suite = sandboxBehindFaultProxy();

describe('without a fault', () => {
  /** Each distinct set of checks the faults' runs ask for, once. */
  const sets = [...new Map(FAULT_NAMES.map((n) => [[...checksOf(n)].sort().join(','), checksOf(n)])).values()];

  it.each(sets.map((checks) => [checks.join(', '), checks] as const))('--checks %s passes', async (_, checks) => {
    const report = await runThroughProxy(suite(), checks);
    expect(failuresOf(report), 'a failure without a fault is no fault’s').toEqual([]);
    expect(report.summary.exitCode).toBe(0);
  });
});
