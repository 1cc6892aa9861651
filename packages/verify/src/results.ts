// What a run found: every judgement, kept as it is made, and what it adds up to. Passes are many
// and alike, so each (check, operation) keeps a count of them and one example; every failure and
// every skip is kept whole, each with what was expected, what came and how to reproduce it.
import { type Contract, reachablePairs } from './contract.js';
import {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type CheckSummary,
  type Coverage,
  type VerifyReport,
} from './types.js';

export interface Judgement {
  operationId: string;
  title: string;
  expected: string;
  actual: string;
  curl?: string;
}

export class Results {
  readonly #failures: CheckResult[] = [];
  readonly #skips: CheckResult[] = [];
  /** `check operationId` → passes counted, with the first one as an example. */
  readonly #passes = new Map<string, { first: CheckResult; count: number }>();
  readonly #skippedChecks = new Map<CheckName, string>();
  readonly #exercised = new Set<string>();
  readonly #called = new Set<string>();
  #requests = 0;

  constructor(
    readonly enabled: ReadonlySet<CheckName>,
    private readonly onFailure: (result: CheckResult) => void = () => {},
  ) {}

  /** Whether a check is to run (asked for, and not excluded). */
  runs(check: CheckName): boolean {
    return this.enabled.has(check) && !this.#skippedChecks.has(check);
  }

  pass(check: CheckName, j: Judgement): void {
    if (!this.enabled.has(check)) return;
    const key = `${check} ${j.operationId}`;
    const entry = this.#passes.get(key);
    if (entry) entry.count++;
    else this.#passes.set(key, { first: { check, outcome: 'passed', ...j }, count: 1 });
  }

  fail(check: CheckName, j: Judgement): void {
    if (!this.enabled.has(check)) return;
    const result: CheckResult = { check, outcome: 'failed', ...j };
    this.#failures.push(result);
    this.onFailure(result);
  }

  /** One verdict: a pass when `problems` is empty, else a failure whose actual lists them. */
  judge(check: CheckName, j: Omit<Judgement, 'actual'> & { actual?: string }, problems: string[]): boolean {
    if (problems.length === 0) this.pass(check, { ...j, actual: j.actual ?? j.expected });
    else this.fail(check, { ...j, actual: problems.join('; ') });
    return problems.length === 0;
  }

  skip(check: CheckName, operationId: string, title: string, because: string): void {
    if (!this.enabled.has(check)) return;
    this.#skips.push({ check, operationId, outcome: 'skipped', title, expected: '-', actual: because });
  }

  /** A check that cannot run at all in this run (no second merchant, no webhook secret…). */
  skipCheck(check: CheckName, because: string): void {
    if (!this.enabled.has(check)) return;
    this.#skippedChecks.set(check, because);
    this.skip(check, '-', `${check} not run`, because);
  }

  /** A response of an operation seen: its (operation, status) pair counts for coverage. */
  saw(operationId: string, status: number): void {
    this.#requests++;
    this.#called.add(operationId);
    this.#exercised.add(`${operationId} ${status}`);
  }

  get requests(): number {
    return this.#requests;
  }

  get failures(): readonly CheckResult[] {
    return this.#failures;
  }

  summaries(): CheckSummary[] {
    return CHECK_NAMES.filter((c) => this.enabled.has(c)).map((check) => {
      const passed = [...this.#passes.values()].filter((p) => p.first.check === check).reduce((n, p) => n + p.count, 0);
      const because = this.#skippedChecks.get(check);
      return {
        check,
        passed,
        failed: this.#failures.filter((f) => f.check === check).length,
        skipped: this.#skips.filter((s) => s.check === check).length,
        ...(because ? { skippedBecause: because } : {}),
      };
    });
  }

  coverage(contract: Contract): Coverage {
    const reachable = reachablePairs(contract);
    const missing = reachable.filter((pair) => !this.#exercised.has(pair));
    const all = [...contract.operations.keys()];
    return {
      exercised: [...this.#exercised].sort(),
      reachable,
      missing,
      percent:
        reachable.length === 0 ? 0 : Math.round((1000 * (reachable.length - missing.length)) / reachable.length) / 10,
      operations: {
        called: all.filter((id) => this.#called.has(id)).length,
        total: all.length,
        notCalled: all.filter((id) => !this.#called.has(id)),
      },
    };
  }

  /** Every result: the passes as one entry per (check, operation) with their count, then failures and skips. */
  results(): CheckResult[] {
    const passes = [...this.#passes.values()].map(({ first, count }) => ({
      ...first,
      title: count === 1 ? first.title : `${first.title} (and ${count - 1} more)`,
    }));
    const order = (r: CheckResult) => CHECK_NAMES.indexOf(r.check);
    return [...passes, ...this.#failures, ...this.#skips].sort(
      (a, b) => order(a) - order(b) || a.operationId.localeCompare(b.operationId),
    );
  }

  /** Counts per (check, operation): what the JUnit and Markdown reports list. */
  table(): Array<{
    check: CheckName;
    operationId: string;
    passed: number;
    failed: CheckResult[];
    skipped: CheckResult[];
  }> {
    const rows = new Map<
      string,
      { check: CheckName; operationId: string; passed: number; failed: CheckResult[]; skipped: CheckResult[] }
    >();
    const row = (check: CheckName, operationId: string) => {
      const key = `${check} ${operationId}`;
      const found = rows.get(key);
      if (found) return found;
      const made = { check, operationId, passed: 0, failed: [], skipped: [] };
      rows.set(key, made);
      return made;
    };
    for (const { first, count } of this.#passes.values()) row(first.check, first.operationId).passed += count;
    for (const f of this.#failures) row(f.check, f.operationId).failed.push(f);
    for (const s of this.#skips) row(s.check, s.operationId).skipped.push(s);
    const order = (c: CheckName) => CHECK_NAMES.indexOf(c);
    return [...rows.values()].sort(
      (a, b) => order(a.check) - order(b.check) || a.operationId.localeCompare(b.operationId),
    );
  }

  report(
    contract: Contract,
    base: Omit<VerifyReport['summary'], 'requests' | 'passed' | 'failed' | 'skipped' | 'checks' | 'exitCode'>,
  ): VerifyReport {
    const checks = this.summaries();
    const passed = checks.reduce((n, c) => n + c.passed, 0);
    const failed = checks.reduce((n, c) => n + c.failed, 0);
    const skipped = checks.reduce((n, c) => n + c.skipped, 0);
    const exitCode = failed > 0 ? 1 : passed === 0 ? 2 : 0;
    return {
      summary: { ...base, requests: this.#requests, passed, failed, skipped, checks, exitCode },
      results: this.results(),
      coverage: this.coverage(contract),
    };
  }
}
