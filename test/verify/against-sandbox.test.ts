// payment-verify against a sandbox that keeps the contract: the command (`main()` in this process)
// runs every check with everything they need and passes them all, calls every operation and writes
// its three reports; and it exits 2 with one line naming the problem when it cannot verify at all
// (bad arguments, no server, the live server unasked, nothing it could run). Its check lists narrow
// the run, and a check that lacks an input skips what it cannot judge rather than failing it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../packages/verify/src/cli.js';
import { CHECK_NAMES, RESPONSE_CHECKS, type VerifyReport } from '../../packages/verify/src/index.js';
import { loadBundle } from '../support/openapi.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

let t: TestSandbox;
const dir = mkdtempSync(join(tmpdir(), 'payment-verify-'));

beforeAll(async () => {
  t = await startTestSandbox();
});

afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  out: string[];
  err: string[];
}

/** The command in this process: its exit code and the lines it printed to stdout and stderr. */
async function cli(argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out, err };
}

/** The first merchant against the sandbox's test root. */
const first = () => ['--base-url', t.baseUrl, '--merchant-id', t.merchant.merchantId, '--api-key', t.merchant.apiKey];

const failuresOf = (report: VerifyReport) =>
  report.results
    .filter((r) => r.outcome === 'failed')
    .map((r) => `${r.check} ${r.operationId}: ${r.title}: ${r.actual.slice(0, 200)}`);

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as VerifyReport;

describe('a full run', () => {
  const files = {
    junit: join(dir, 'full', 'junit.xml'),
    markdown: join(dir, 'full', 'summary.md'),
    json: join(dir, 'full', 'report.json'),
  };
  let run: Run;
  let report: VerifyReport;

  beforeAll(async () => {
    run = await cli([
      ...first(),
      '--second-merchant-id',
      t.other.merchantId,
      '--second-api-key',
      t.other.apiKey,
      '--webhook-secret',
      t.merchant.webhookSecret as string,
      '--hosted',
      '--live-base-url',
      t.liveBaseUrl,
      '--junit',
      files.junit,
      '--markdown',
      files.markdown,
      '--json',
      files.json,
    ]);
    report = readJson(files.json);
  }, 120_000);

  it('exits 0: every check that ran passed', () => {
    expect(failuresOf(report), 'the failures').toEqual([]);
    expect(run.err).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.summary.exitCode).toBe(0);
  });

  it('runs each of the 13 checks, none skipped as a whole', () => {
    expect(report.summary.checks.map((c) => c.check)).toEqual([...CHECK_NAMES]);
    expect(CHECK_NAMES).toHaveLength(13);
    for (const c of report.summary.checks) {
      expect(c.skippedBecause, `${c.check} skipped: ${c.skippedBecause}`).toBeUndefined();
      expect(c.passed, `${c.check} passed nothing`).toBeGreaterThan(0);
    }
  });

  it('calls every operation of the contract and covers 90 % of the pairs a client can provoke', () => {
    const { operations, percent, missing } = report.coverage;
    expect(operations.notCalled).toEqual([]);
    expect(operations.called).toBe(operations.total);
    expect(operations.total).toBeGreaterThanOrEqual(32);
    expect(percent, `not exercised: ${missing.join(', ')}`).toBeGreaterThanOrEqual(90);
  });

  it('writes JUnit XML with a testcase per (check, operation), the check as its classname', () => {
    const xml = readFileSync(files.junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => name === 'testsuite' || name === 'testcase',
    }).parse(xml);
    type Testcase = { classname: string; name: string; failure?: unknown; skipped?: unknown };
    const suites = parsed.testsuites.testsuite as Array<{ name: string; testcase: Testcase[] }>;
    const cases = suites.flatMap((s) => s.testcase.map((c) => ({ suite: s.name, ...c })));
    for (const c of cases) expect(c.classname).toBe(c.suite);
    const pairs = new Set(report.results.map((r) => `${r.check} ${r.operationId}`));
    expect(cases.map((c) => `${c.classname} ${c.name}`).sort()).toEqual([...pairs].sort());
    expect(cases.filter((c) => 'failure' in c || 'skipped' in c)).toEqual([]);
    expect(new Set(cases.map((c) => c.classname))).toEqual(new Set(CHECK_NAMES));
  });

  it('writes Markdown naming every check, and JSON with the summary, the results and the coverage', () => {
    const markdown = readFileSync(files.markdown, 'utf8');
    expect(markdown).toMatch(/^# payment-verify: ✅/);
    for (const check of CHECK_NAMES) expect(markdown).toContain(`| \`${check}\` |`);
    const json = readJson(files.json);
    expect(Object.keys(json).sort()).toEqual(['coverage', 'results', 'summary']);
    expect(json.results.length).toBeGreaterThan(0);
  });
});

describe('exit 2 with one line naming the problem', () => {
  /** A port nothing listens on: one the system gave and took back. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  const liveServer = () => {
    const servers = loadBundle().servers as Array<{ url: string; 'x-environment'?: string }>;
    const live = servers.find((s) => s['x-environment'] === 'live');
    if (!live) throw new Error('the contract names no live server');
    return live.url;
  };

  it.each([
    ['no --base-url', () => ['--merchant-id', 'm', '--api-key', 'k'], /^payment-verify: --base-url is required$/],
    [
      'an unknown check',
      () => [...first(), '--checks', 'auth,telepathy'],
      /^payment-verify: --checks: unknown check telepathy \(checks: /,
    ],
    [
      'a --rate that is no number',
      () => [...first(), '--rate', 'fast'],
      /^payment-verify: --rate fast is not a positive number$/,
    ],
    [
      "the contract's live server without --allow-live",
      () => ['--base-url', liveServer(), '--merchant-id', 'm', '--api-key', 'k', '--timeout', '2'],
      /^payment-verify: --base-url is the contract's live server https:\/\/\S+: add --allow-live/,
    ],
  ])('%s', async (_, argv, message) => {
    const run = await cli(argv());
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toMatch(message);
    expect(run.code).toBe(2);
  });

  it('a server that does not answer (a closed port)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api/v2`;
    const run = await cli(['--base-url', url, '--merchant-id', 'm', '--api-key', 'k', '--timeout', '5']);
    expect(run.err).toEqual([`payment-verify: no answer from ${url}: ECONNREFUSED`]);
    expect(run.code).toBe(2);
  });

  it('a run in which no check could run (isolation without a second merchant)', async () => {
    const json = join(dir, 'nothing', 'report.json');
    const run = await cli([...first(), '--checks', 'isolation', '--json', json]);
    expect(run.err).toEqual(['payment-verify: no check could run (every check was skipped)']);
    expect(run.code).toBe(2);
    const report = readJson(json);
    expect(report.summary.checks).toEqual([
      expect.objectContaining({
        check: 'isolation',
        passed: 0,
        failed: 0,
        skippedBecause: expect.stringMatching(/second merchant/),
      }),
    ]);
    expect(run.out.join('\n')).toMatch(/isolation .* no second merchant/);
  });
});

describe('narrowing', () => {
  it('--checks runs only the checks it names', async () => {
    const json = join(dir, 'checks', 'report.json');
    const run = await cli([...first(), '--checks', 'idempotency,lifecycle', '--json', json]);
    const report = readJson(json);
    expect(failuresOf(report)).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.summary.checks.map((c) => c.check)).toEqual(['idempotency', 'lifecycle']);
    expect(new Set(report.results.map((r) => r.check))).toEqual(new Set(['idempotency', 'lifecycle']));
  });

  it('--exclude-checks runs all the others', async () => {
    const excluded = CHECK_NAMES.filter((c) => !RESPONSE_CHECKS.includes(c) && c !== 'idempotency');
    const json = join(dir, 'exclude', 'report.json');
    const run = await cli([...first(), '--exclude-checks', excluded.join(','), '--json', json]);
    const report = readJson(json);
    expect(failuresOf(report)).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.summary.checks.map((c) => c.check)).toEqual([...RESPONSE_CHECKS, 'idempotency']);
    for (const c of report.summary.checks) expect(c.passed, c.check).toBeGreaterThan(0);
    expect(report.results.filter((r) => excluded.includes(r.check))).toEqual([]);
  });

  it('webhooks without --webhook-secret: each signature skipped, not failed, and the rest judged', async () => {
    const json = join(dir, 'no-secret', 'report.json');
    const run = await cli([...first(), '--checks', 'webhooks', '--hosted', '--json', json]);
    const report = readJson(json);
    expect(failuresOf(report)).toEqual([]);
    expect(run.code).toBe(0);
    const [webhooks] = report.summary.checks;
    expect(webhooks).toMatchObject({ check: 'webhooks', failed: 0 });
    expect(webhooks!.skippedBecause).toBeUndefined();
    expect(webhooks!.passed).toBeGreaterThan(0);
    const skipped = report.results.filter((r) => r.outcome === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    for (const s of skipped) {
      expect(s.title).toMatch(/^the signature of a notification of /);
      expect(s.actual).toBe('no --webhook-secret');
    }
  });
});
