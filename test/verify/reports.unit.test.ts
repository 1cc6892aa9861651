// payment-verify's reports (packages/verify/src/reports.ts) from a report made by hand: the JUnit XML
// (a well-formed document whatever the results hold, a testsuite per check in the checks' order, a
// testcase per check and operation with its failures or its skip), the Markdown summary, and the
// `curl` each result carries (client.ts), whose credentials are masked.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { curlOf } from '../../packages/verify/src/client.js';
import { renderJunit, renderMarkdown, renderText } from '../../packages/verify/src/reports.js';
import type { CheckResult, CheckSummary, VerifyReport } from '../../packages/verify/src/types.js';

const NASTY = `get<Payment>&"it's"`;
const LONG = `${'y'.repeat(490)} <end of the message> ${'z'.repeat(100)}`;

const result = (r: Partial<CheckResult> & Pick<CheckResult, 'check' | 'operationId' | 'outcome'>): CheckResult => ({
  title: `${r.check} of ${r.operationId}`,
  expected: 'what the contract says',
  actual: 'what came',
  ...r,
});

/** Results in no particular order: the reports sort them by check, then operation. */
const RESULTS: CheckResult[] = [
  result({
    check: 'response-schema',
    operationId: NASTY,
    outcome: 'failed',
    title: 'a read <with> "quotes" & \'apostrophes\'',
    expected: 'the 200 body inside its schema',
    actual: '200 body /amount: required member value missing\u0001\u001b | a pipe',
    curl: "curl -i -X GET 'http://127.0.0.1:1/api/v2/x' -H 'Authorization: Basic ***'",
  }),
  result({
    check: 'response-schema',
    operationId: NASTY,
    outcome: 'failed',
    title: 'a second read',
    actual: 'line one\nline two',
  }),
  result({ check: 'negative-rejection', operationId: 'capturePayment', outcome: 'failed', actual: LONG }),
  result({ check: 'response-schema', operationId: 'createPayment', outcome: 'passed' }),
  result({ check: 'auth', operationId: 'listCustomers', outcome: 'passed' }),
  result({ check: 'auth', operationId: 'listCustomers', outcome: 'skipped', actual: 'no --live-base-url' }),
  result({ check: 'webhooks', operationId: '-', outcome: 'skipped', title: 'webhooks not run', actual: 'no --hosted' }),
  result({ check: 'status-declared', operationId: 'createPayment', outcome: 'passed', title: 'a create (and 4 more)' }),
];

const CHECKS: CheckSummary[] = [
  { check: 'status-declared', passed: 5, failed: 0, skipped: 0 },
  { check: 'response-schema', passed: 1, failed: 2, skipped: 0 },
  { check: 'negative-rejection', passed: 0, failed: 1, skipped: 0 },
  { check: 'auth', passed: 1, failed: 0, skipped: 1 },
  { check: 'webhooks', passed: 0, failed: 0, skipped: 1, skippedBecause: 'no --hosted | no page' },
];

function reportOf(results: CheckResult[], exitCode: 0 | 1 | 2 = 1): VerifyReport {
  return {
    summary: {
      runId: 'pvtest0001',
      baseUrl: 'http://127.0.0.1:4020/api/v2',
      startedAt: '2026-01-02T03:04:05.000Z',
      durationMs: 12_345,
      requests: 42,
      passed: 7,
      failed: 3,
      skipped: 2,
      checks: CHECKS,
      exitCode,
    },
    results,
    coverage: {
      exercised: ['createPayment 201', 'capturePayment 400'],
      reachable: ['createPayment 201', 'capturePayment 400', 'capturePayment 404', 'listCustomers 200'],
      missing: ['capturePayment 404', 'listCustomers 200'],
      percent: 50,
      operations: { called: 2, total: 3, notCalled: ['listCustomers'] },
    },
  };
}

type Parsed = Record<string, unknown>;
const parse = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    trimValues: false,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  }).parse(xml) as { testsuites: Parsed & { testsuite: Array<Parsed & { testcase: Parsed[] }> } };

describe('renderJunit', () => {
  const xml = renderJunit(reportOf(RESULTS));
  const { testsuites } = parse(xml);

  it('is well-formed XML whatever the names and messages hold: markup escaped, control characters left out', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    for (const control of ['\u0001', '\u001b']) expect(xml).not.toContain(control);
    expect(xml).toContain('name="get&lt;Payment&gt;&amp;&quot;it&apos;s&quot;"');
  });

  it('has a testsuite per check that has results, in the checks’ order, with its counts', () => {
    expect(testsuites).toMatchObject({ name: 'payment-verify', tests: '6', failures: '2', time: '12.345' });
    expect(testsuites.testsuite.map((s) => [s.name, s.tests, s.failures, s.skipped])).toEqual([
      ['status-declared', '1', '0', '0'],
      ['response-schema', '2', '1', '0'],
      ['negative-rejection', '1', '1', '0'],
      ['auth', '1', '0', '0'],
      ['webhooks', '1', '0', '1'],
    ]);
  });

  it('has a testcase per (check, operation), the check as its classname and the operation as its name', () => {
    const cases = testsuites.testsuite.flatMap((s) => s.testcase.map((c) => [s.name, c.classname, c.name]));
    expect(cases).toEqual([
      ['status-declared', 'status-declared', 'createPayment'],
      ['response-schema', 'response-schema', 'createPayment'],
      ['response-schema', 'response-schema', NASTY],
      ['negative-rejection', 'negative-rejection', 'capturePayment'],
      ['auth', 'auth', 'listCustomers'],
      ['webhooks', 'webhooks', '-'],
    ]);
  });

  it('a failed testcase carries every failure: the first in its message, each with what was expected, what came and the curl', () => {
    const testcase = testsuites.testsuite[1]!.testcase[1]!;
    const failure = testcase.failure as { message: string; '#text': string };
    expect(failure.message).toBe('2 failed: 200 body /amount: required member value missing | a pipe');
    expect(failure['#text']).toBe(
      [
        'a read <with> "quotes" & \'apostrophes\'',
        '  expected: the 200 body inside its schema',
        '  actual:   200 body /amount: required member value missing | a pipe',
        "  reproduce: curl -i -X GET 'http://127.0.0.1:1/api/v2/x' -H 'Authorization: Basic ***'",
        '',
        'a second read',
        '  expected: what the contract says',
        '  actual:   line one\nline two',
      ].join('\n'),
    );
    expect(testcase.skipped).toBeUndefined();
  });

  it('a failure message is at most 500 characters', () => {
    const failure = testsuites.testsuite[2]!.testcase[0]!.failure as { message: string; '#text': string };
    expect(failure.message).toBe(`1 failed: ${LONG}`.slice(0, 500));
    expect(failure['#text']).toContain(LONG);
  });

  it('a testcase with skips alone is skipped, with the reason; one that also passed is not', () => {
    expect(testsuites.testsuite[4]!.testcase[0]!.skipped).toEqual({ message: 'no --hosted' });
    const passedAndSkipped = testsuites.testsuite[3]!.testcase[0]!;
    expect(passedAndSkipped).not.toHaveProperty('skipped');
    expect(passedAndSkipped).not.toHaveProperty('failure');
  });

  it('an empty run is an empty, well-formed document', () => {
    const empty = renderJunit(reportOf([], 2));
    expect(XMLValidator.validate(empty)).toBe(true);
    expect(parse(empty).testsuites).toMatchObject({ tests: '0', failures: '0' });
  });
});

describe('renderMarkdown', () => {
  const markdown = renderMarkdown(reportOf(RESULTS));

  it('gives the verdict of the exit code', () => {
    expect(markdown.split('\n')[0]).toBe('# payment-verify: ❌ the server breaks the contract');
    expect(renderMarkdown(reportOf([], 0)).split('\n')[0]).toBe('# payment-verify: ✅ the server keeps the contract');
    expect(renderMarkdown(reportOf([], 2)).split('\n')[0]).toBe('# payment-verify: ⚠️ nothing could be checked');
  });

  it('has the run, a row per check with its counts and why it was skipped, and the coverage', () => {
    expect(markdown).toContain(
      'http://127.0.0.1:4020/api/v2 · run `pvtest0001` · 42 requests in 12.3 s · 7 passed, 3 failed, 2 skipped',
    );
    expect(markdown).toContain('| Check | Passed | Failed | Skipped |\n|---|---:|---:|---:|\n');
    expect(markdown).toContain('| `status-declared` | 5 | 0 | 0 |');
    expect(markdown).toContain('| `response-schema` | 1 | 2 | 0 |');
    expect(markdown).toContain('| `webhooks` | 0 | 0 | 1 (no --hosted \\| no page) |');
    expect(markdown).toContain(
      '**Coverage**: 50 % of the (operation, status) pairs a client can provoke (2 of 4); 2 of 3 operations called.',
    );
    expect(markdown).toContain('Not exercised: `capturePayment 404`, `listCustomers 200`');
  });

  it('lists each failure in a table cell-safe (pipes escaped, lines joined, the actual cut at 300) and how to reproduce it', () => {
    const failures = markdown.slice(markdown.indexOf('## Failures'));
    const rows = failures.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toEqual([
      `| \`response-schema\` | \`${NASTY}\` | a read <with> "quotes" & 'apostrophes' | the 200 body inside its schema | 200 body /amount: required member value missing\u0001\u001b \\| a pipe |`,
      `| \`response-schema\` | \`${NASTY}\` | a second read | what the contract says | line one line two |`,
      `| \`negative-rejection\` | \`capturePayment\` | negative-rejection of capturePayment | what the contract says | ${LONG.slice(0, 300)} |`,
    ]);
    expect(failures).toContain(
      `<details><summary>Reproduce</summary>\n\n\`\`\`sh\n# response-schema ${NASTY}: a read <with> "quotes" & 'apostrophes'\ncurl -i -X GET 'http://127.0.0.1:1/api/v2/x' -H 'Authorization: Basic ***'\n\`\`\`\n`,
    );
  });

  it('has no failures section when nothing failed', () => {
    const passed = renderMarkdown(
      reportOf(
        RESULTS.filter((r) => r.outcome !== 'failed'),
        0,
      ),
    );
    expect(passed).not.toContain('## Failures');
    expect(passed).not.toContain('Reproduce');
  });
});

describe('renderText', () => {
  it('prints a line per check with its counts, the operations it judged and those that failed, and the coverage', () => {
    const lines = renderText(reportOf(RESULTS)).split('\n');
    expect(lines).toContain('webhooks                     0       0        1           0  no --hosted | no page');
    expect(lines).toContain('response-schema              1       2        0           2');
    expect(lines).toContain(`${''.padEnd(22)} failed on ${NASTY} (2)`);
    expect(lines).toContain(`${''.padEnd(22)} failed on capturePayment (1)`);
    expect(lines).toContain(
      'coverage: 50 % of 4 (operation, status) pairs a client can provoke; 2/3 operations called',
    );
    expect(lines).toContain('42 requests in 12.3 s (run pvtest0001)');
  });
});

describe('curlOf', () => {
  const basic = `Basic ${Buffer.from('shop_1:sk_test_secret').toString('base64')}`;

  it('masks Basic credentials, bearer tokens and API keys, in any case of the header name', () => {
    const curl = curlOf(
      'POST',
      'http://127.0.0.1:4020/api/v2/payments',
      {
        Authorization: basic,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'key-1',
      },
      '{"transId":"T-1"}',
    );
    expect(curl).toBe(
      "curl -i -X POST 'http://127.0.0.1:4020/api/v2/payments' -H 'Authorization: Basic ***' -H 'Content-Type: application/json' -H 'Idempotency-Key: key-1' --data-raw '{\"transId\":\"T-1\"}'",
    );
    expect(curlOf('GET', 'http://h/x', { authorization: 'Bearer eyJhbGciOi.secret.token' }, undefined)).toBe(
      "curl -i -X GET 'http://h/x' -H 'authorization: Bearer ***'",
    );
    expect(curlOf('GET', 'http://h/x', { 'X-API-Key': 'sk_test_secret' }, undefined)).toBe(
      "curl -i -X GET 'http://h/x' -H 'X-API-Key: ***'",
    );
    expect(curlOf('GET', 'http://h/x', { AUTHORIZATION: 'sk_test_secret' }, undefined)).toBe(
      "curl -i -X GET 'http://h/x' -H 'AUTHORIZATION: ***'",
    );
    for (const c of [curl]) {
      expect(c).not.toContain('sk_test_secret');
      expect(c).not.toContain(basic.slice('Basic '.length));
    }
  });

  it('quotes for a POSIX shell: a single quote closed, escaped and reopened', () => {
    expect(curlOf('POST', "http://h/x?q=it's", {}, `{"note":"it's"}`)).toBe(
      `curl -i -X POST 'http://h/x?q=it'\\''s' --data-raw '{"note":"it'\\''s"}'`,
    );
  });

  it('sends no body when there is none, and an empty one when it is empty', () => {
    expect(curlOf('DELETE', 'http://h/x', {}, undefined)).toBe("curl -i -X DELETE 'http://h/x'");
    expect(curlOf('POST', 'http://h/x', {}, '')).toBe("curl -i -X POST 'http://h/x' --data-raw ''");
  });
});
