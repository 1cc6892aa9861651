// The run's reports: JUnit XML (a testcase per check and operation, the check as its classname and
// the operationId in its name) for CI systems, Markdown for a job summary, and the text summary the
// command prints.
import { CHECK_NAMES, type CheckResult, type VerifyReport } from './types.js';

const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot carry these characters
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g,
      '',
    );

interface Row {
  check: string;
  operationId: string;
  passed: CheckResult[];
  failed: CheckResult[];
  skipped: CheckResult[];
}

/** The results grouped by (check, operation), in the checks' order. */
export function rows(report: VerifyReport): Row[] {
  const byKey = new Map<string, Row>();
  for (const r of report.results) {
    const key = `${r.check} ${r.operationId}`;
    const row = byKey.get(key) ?? { check: r.check, operationId: r.operationId, passed: [], failed: [], skipped: [] };
    row[r.outcome].push(r);
    byKey.set(key, row);
  }
  const order = (c: string) => CHECK_NAMES.indexOf(c as (typeof CHECK_NAMES)[number]);
  return [...byKey.values()].sort(
    (a, b) => order(a.check) - order(b.check) || a.operationId.localeCompare(b.operationId),
  );
}

const failureText = (f: CheckResult) =>
  `${f.title}\n  expected: ${f.expected}\n  actual:   ${f.actual}${f.curl ? `\n  reproduce: ${f.curl}` : ''}`;

export function renderJunit(report: VerifyReport): string {
  const all = rows(report);
  const suites = CHECK_NAMES.map((check) => all.filter((r) => r.check === check)).filter((list) => list.length > 0);
  const seconds = (report.summary.durationMs / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payment-verify" tests="${all.length}" failures="${all.filter((r) => r.failed.length).length}" time="${seconds}">`,
  ];
  for (const list of suites) {
    const check = list[0]!.check;
    const failures = list.filter((r) => r.failed.length > 0).length;
    const skipped = list.filter((r) => r.failed.length === 0 && r.passed.length === 0).length;
    lines.push(`  <testsuite name="${xml(check)}" tests="${list.length}" failures="${failures}" skipped="${skipped}">`);
    for (const r of list) {
      lines.push(`    <testcase classname="${xml(check)}" name="${xml(r.operationId)}">`);
      if (r.failed.length > 0)
        lines.push(
          `      <failure message="${xml(`${r.failed.length} failed: ${r.failed[0]!.actual}`.slice(0, 500))}">${xml(r.failed.map(failureText).join('\n\n'))}</failure>`,
        );
      else if (r.passed.length === 0)
        lines.push(`      <skipped message="${xml(r.skipped[0]?.actual ?? 'skipped')}"/>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

const md = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(report: VerifyReport): string {
  const { summary, coverage } = report;
  const verdict =
    summary.exitCode === 0
      ? '✅ the server keeps the contract'
      : summary.exitCode === 1
        ? '❌ the server breaks the contract'
        : '⚠️ nothing could be checked';
  const out = [
    `# payment-verify: ${verdict}`,
    '',
    `${summary.baseUrl} · run \`${summary.runId}\` · ${summary.requests} requests in ${(summary.durationMs / 1000).toFixed(1)} s · ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
    '',
    '| Check | Passed | Failed | Skipped |',
    '|---|---:|---:|---:|',
    ...summary.checks.map(
      (c) =>
        `| \`${c.check}\` | ${c.passed} | ${c.failed} | ${c.skipped}${c.skippedBecause ? ` (${md(c.skippedBecause)})` : ''} |`,
    ),
    '',
    `**Coverage**: ${coverage.percent} % of the (operation, status) pairs a client can provoke (${coverage.reachable.length - coverage.missing.length} of ${coverage.reachable.length}); ${coverage.operations.called} of ${coverage.operations.total} operations called.`,
    ...(coverage.missing.length ? ['', `Not exercised: ${coverage.missing.map((p) => `\`${p}\``).join(', ')}`] : []),
  ];
  const failed = report.results.filter((r) => r.outcome === 'failed');
  if (failed.length > 0) {
    out.push('', '## Failures', '', '| Check | Operation | Case | Expected | Actual |', '|---|---|---|---|---|');
    for (const f of failed)
      out.push(
        `| \`${f.check}\` | \`${f.operationId}\` | ${md(f.title)} | ${md(f.expected)} | ${md(f.actual.slice(0, 300))} |`,
      );
    out.push(
      '',
      '<details><summary>Reproduce</summary>',
      '',
      '```sh',
      ...failed.filter((f) => f.curl).map((f) => `# ${f.check} ${f.operationId}: ${f.title}\n${f.curl}`),
      '```',
      '',
      '</details>',
    );
  }
  out.push('');
  return out.join('\n');
}

/** The summary the command prints: per check its counts and the operations it judged (those that failed named), then coverage. */
export function renderText(report: VerifyReport): string {
  const { summary, coverage } = report;
  const byCheck = rows(report);
  const operationsOf = (check: string) => byCheck.filter((r) => r.check === check && r.operationId !== '-');
  const lines = [
    '',
    `${'check'.padEnd(22)} ${'passed'.padStart(7)} ${'failed'.padStart(7)} ${'skipped'.padStart(8)} ${'operations'.padStart(11)}`,
    ...summary.checks.flatMap((c) => {
      const ops = operationsOf(c.check);
      const failing = ops.filter((r) => r.failed.length > 0).map((r) => `${r.operationId} (${r.failed.length})`);
      return [
        `${c.check.padEnd(22)} ${String(c.passed).padStart(7)} ${String(c.failed).padStart(7)} ${String(c.skipped).padStart(8)} ${String(ops.length).padStart(11)}${c.skippedBecause ? `  ${c.skippedBecause}` : ''}`,
        ...(failing.length > 0 ? [`${''.padEnd(22)} failed on ${failing.join(', ')}`] : []),
      ];
    }),
    '',
    `coverage: ${coverage.percent} % of ${coverage.reachable.length} (operation, status) pairs a client can provoke; ${coverage.operations.called}/${coverage.operations.total} operations called`,
    ...(coverage.missing.length > 0 ? [`not exercised: ${coverage.missing.join(', ')}`] : []),
    `${summary.requests} requests in ${(summary.durationMs / 1000).toFixed(1)} s (run ${summary.runId})`,
  ];
  return lines.join('\n');
}
