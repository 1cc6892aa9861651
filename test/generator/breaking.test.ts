// The breaking-change gate (generator/review/breaking.ts, `npm run check:breaking`): variants of the
// bundled contract, each a deep copy with one edit, written to temp files and compared with the
// unchanged contract by `redocly diff`. The comparisons are independent child processes
// (~0.5-0.7 s each), so they run concurrently.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACCEPTED_FILE, loadAcceptedChanges } from '../../generator/review/accepted.js';
import {
  type BreakingResult,
  checkBreaking,
  DiffError,
  latestRelease,
  listReleases,
  RELEASES_DIR,
  ReleaseExistsError,
  recordRelease,
  verdict,
} from '../../generator/review/breaking.js';
import { REDOCLY_CONFIG, REPO_ROOT } from '../../generator/support/paths.js';
import { NO_TARGET } from '../support/git.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import { runScript } from '../support/scripts.js';
import { tinyContract } from '../support/tiny-contract.js';

const doc = loadBundle();
/** The next major version after the contract's info.version (3.0.0 for 2.x). */
const nextMajor = `${Number(String((doc.info as JsonObject).version).split('.')[0]) + 1}.0.0`;
let dir: string;
let baseline: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'breaking-test-'));
  baseline = join(dir, 'baseline.json');
  await writeFile(baseline, JSON.stringify(doc, null, 2));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const schemas = (d: JsonObject) => (d.components as JsonObject).schemas as JsonObject;
const schema = (d: JsonObject, name: string) => {
  const s = schemas(d)[name] as JsonObject | undefined;
  if (!s) throw new Error(`no schema ${name} in the contract`);
  return s;
};

/** Deep copy of the contract, edited by `edit`, written to <tmp>/<name>.json. */
async function variant(name: string, edit: (d: JsonObject) => void): Promise<string> {
  const copy = structuredClone(doc);
  edit(copy);
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(copy, null, 2));
  return file;
}

const against = async (name: string, edit: (d: JsonObject) => void): Promise<BreakingResult> =>
  checkBreaking({ current: await variant(name, edit), baseline });

const rules = (r: BreakingResult) =>
  r.breaking.flatMap((c) => c.findings.filter((f) => f.impact === 'major').map((f) => f.ruleId));

const removePos = (d: JsonObject) => {
  const channel = schema(d, 'Channel');
  expect(channel.enum).toContain('POS');
  channel.enum = (channel.enum as string[]).filter((v) => v !== 'POS');
};

// Each diff is CPU-bound (Redocly over the whole contract, several at once): on a loaded machine a
// run takes several times its idle time, and only a hang should fail it.
describe.concurrent('breaking-change gate: redocly diff on contract variants', { timeout: 120_000 }, () => {
  it('catches a removed operation (POST /payments/{id}/captures)', async () => {
    const r = await against('removed-operation', (d) => {
      const item = (d.paths as JsonObject)['/payments/{id}/captures'] as JsonObject;
      expect(item.post).toBeDefined();
      delete item.post;
    });
    expect(r.ok).toBe(false);
    expect(r.accepted).toBe(false);
    expect(rules(r)).toEqual(['operation-removed']);
    const [change] = r.breaking;
    expect(change!.path).toBe('#/paths/~1payments~1{id}~1captures/post');
    // A removed node is located in the baseline file, with its line.
    expect(change!.location).toMatchObject({ side: 'baseline', pointer: '#/paths/~1payments~1{id}~1captures/post' });
    expect(change!.location!.line).toBeGreaterThan(1);
    expect(r.reason).toContain(`1 breaking change(s)`);
    expect(r.reason).toContain(`info.version ${nextMajor}`);
  });

  it('catches a newly required request field (refNr in the plan charge request)', async () => {
    const r = await against('required-refNr', (d) => {
      const s = schema(d, 'PlanChargeRequest');
      expect(s.required).not.toContain('refNr');
      expect(s.properties).toHaveProperty('refNr');
      s.required = [...((s.required as string[]) ?? []), 'refNr'];
    });
    expect(r.ok).toBe(false);
    expect(rules(r)).toEqual(['required-properties-added']);
    expect(r.breaking[0]!.message).toContain('`refNr`');
    expect(r.breaking[0]!.path).toMatch(/^#\/paths\/~1payment-plans~1\{paymentPlanId\}~1charge\/post\/requestBody\//);
  });

  it('catches a removed enum value (POS from Channel)', async () => {
    const r = await against('enum-without-POS', removePos);
    expect(r.ok).toBe(false);
    expect(rules(r)).toEqual(['enum-values-removed']);
    expect(r.breaking[0]!.message).toContain("'POS'");
    // A changed node is located in the current document, at the changed keyword.
    expect(r.breaking[0]!.location).toMatchObject({
      side: 'current',
      pointer: '#/components/schemas/Channel/enum',
      file: expect.stringMatching(/enum-without-POS\.json$/),
    });
  });

  it('passes an allOf restructure that keeps the meaning, and still catches a real change made inside it', async () => {
    // Move a composed schema's own properties into an allOf member of their own (the contract's
    // shape rule), first as it is, then with a newly required field in the member.
    const restructure = (d: JsonObject, extraRequired: string[]) => {
      const s = schema(d, 'PlanChargeRequest');
      const { properties, required, ...rest } = s;
      for (const k of Object.keys(s)) delete s[k];
      Object.assign(s, rest, {
        allOf: [{ type: 'object', required: [...((required as string[]) ?? []), ...extraRequired], properties }],
      });
    };
    expect(await against('restructured', (d) => restructure(d, []))).toMatchObject({ ok: true, breaking: [] });
    const changed = await against('restructured-required', (d) => restructure(d, ['refNr']));
    expect(changed.ok).toBe(false);
    expect(rules(changed)).toEqual(['required-properties-added']);
  }, 90_000); // two diffs of the whole contract

  it('accepts a purely additive change: a new optional request property and a new operation (non-breaking)', async () => {
    const r = await against('additive', (d) => {
      const s = schema(d, 'PlanChargeRequest');
      (s.properties as JsonObject).customerNote = { type: 'string', maxLength: 100, description: 'A note.' };
      (d.paths as JsonObject)['/payments/{id}/notes'] = {
        get: {
          operationId: 'listPaymentNotes',
          summary: 'List notes',
          responses: { '200': { description: 'The notes.' } },
        },
      };
    });
    expect(r).toMatchObject({ ok: true, accepted: false, breaking: [] });
    expect(r.nonBreaking).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          impact: 'minor',
          kind: 'added',
          path: expect.stringMatching(/\/properties\/customerNote$/),
        }),
        expect.objectContaining({ impact: 'minor', kind: 'added', path: '#/paths/~1payments~1{id}~1notes' }),
      ]),
    );
    expect(r.nonBreaking).toHaveLength(2);
  });

  it(`accepts a breaking change when info.version starts a new major version (${nextMajor})`, async () => {
    const r = await against('major-bump', (d) => {
      removePos(d);
      (d.info as JsonObject).version = nextMajor;
    });
    expect(rules(r)).toEqual(['enum-values-removed']);
    expect(r).toMatchObject({ ok: true, accepted: true, versions: { current: nextMajor } });
    expect(r.reason).toMatch(/accepted/);
  });

  it('the contract has no breaking change against the latest committed release but those its accepted-changes file approves', async () => {
    const release = await latestRelease();
    expect(release, `no release in ${RELEASES_DIR}`).toBeDefined();
    // A release file is named by its info.version.
    const recorded = parse(await readFile(release!.file, 'utf8')) as JsonObject;
    expect((recorded.info as JsonObject).version).toBe(release!.version);
    const entries = await loadAcceptedChanges(join(REPO_ROOT, 'openapi', ACCEPTED_FILE));
    const r = await checkBreaking({ current: doc, baseline: release!.file, accepted: { entries } });
    expect(r.breaking.filter((c) => !c.approval).map((c) => c.message)).toEqual([]);
    // every entry approves one change: none is stale
    expect(r.breaking.map((c) => c.id).sort()).toEqual(entries.map((e) => e.id).sort());
    expect(r.ok).toBe(true);
  });

  // The next two use a tiny document: they test the plumbing, not Redocly's rules.
  it('refuses to run with a config without diff rules (redocly.yaml would rate everything patch)', async () => {
    const [base, current] = await tiny('config', ['A']);
    await expect(checkBreaking({ current, baseline: base, config: REDOCLY_CONFIG })).rejects.toThrow(
      /without diff rules/,
    );
    await expect(checkBreaking({ current, baseline: base, config: REDOCLY_CONFIG })).rejects.toBeInstanceOf(DiffError);
  });

  it('npm run check:breaking exits 1 and prints each breaking change with its location', async () => {
    const [base, current] = await tiny('script', ['A']);
    const run = await script(['--current', current, '--baseline', base]);
    expect(run.code, run.stderr).toBe(1);
    // The enum is on line 11 of the revision (see tiny()).
    expect(run.stdout).toMatch(
      /tiny-script-current\.yaml:11:\d+ major enum-values-removed Enum (of `.*` )?lost values: 'B'\./,
    );
    expect(run.stdout).toMatch(/^FAILED: 1 breaking change/m);
  });

  it('npm run check:breaking -- --base <git ref> compares with the contract in that commit', async () => {
    const [baseText, currentText] = await Promise.all((await tiny('git', ['A'])).map((f) => readFile(f, 'utf8')));
    const project = await mkdtemp(join(dir, 'git-base-'));
    const root = join(project, 'openapi', 'openapi.yaml');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
        cwd: project,
        stdio: 'pipe',
      }).toString();
    await mkdir(dirname(root), { recursive: true });
    await writeFile(root, baseText);
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'the released contract');
    await writeFile(root, currentText);
    const run = await script(['--root', root, '--base', 'main']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^base: `main` at [0-9a-f]{7}, info\.version 1\.0\.0\n {2}why: --base main$/m);
    expect(run.stdout).toMatch(/major enum-values-removed/);
    const unknown = await script(['--root', root, '--base', 'no-such-branch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("'no-such-branch' is neither a recorded release, a file, nor a git ref");
  }, 60_000);

  it('npm run check:breaking exits 2 with a clear message when no release is recorded (outside git)', async () => {
    const empty = await mkdtemp(join(dir, 'no-releases-'));
    const [, current] = await tiny('no-releases', ['A']);
    const run = await script(['--root', current, '--releases', empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /is not in a git checkout, so the last release, but no release is recorded in .*no-releases-.*npm run check:breaking -- --record/s,
    );
  });
});

describe("breaking-change gate: redocly diff's reports kept by content", () => {
  it('serves a pair compared before from the kept report, its locations in the files of this run', async () => {
    const cache = join(dir, 'kept');
    const [base, current] = await tiny('kept', ['A']);
    const made = await checkBreaking({ current, baseline: base, cache });
    expect(made.breaking).toHaveLength(1);
    expect(made.breaking[0]!.location).toMatchObject({ side: 'current', file: expect.stringMatching(/kept/) });
    expect(await checkBreaking({ current, baseline: base, cache }), 'the same result, its lines too').toEqual(made);

    const entries = (await readdir(join(cache, 'redocly-diff'))).filter((e) => !e.startsWith('.'));
    expect(entries).toHaveLength(1);
    const file = join(cache, 'redocly-diff', entries[0]!, '0');
    const report = JSON.parse(await readFile(file, 'utf8')) as { changes: unknown[] };
    expect(JSON.stringify(report), "the kept report names no run's temp files").not.toContain('contract-diff-');
    // the kept report emptied: the next check reads it, and one without the cache runs Redocly
    await writeFile(file, JSON.stringify({ ...report, changes: [] }));
    expect((await checkBreaking({ current, baseline: base, cache })).breaking).toEqual([]);
    expect((await checkBreaking({ current, baseline: base, cache: false })).breaking).toEqual(made.breaking);
  }, 60_000);
});

describe('breaking-change gate: releases and versions', () => {
  it('picks the latest release by semver, ignoring other files', async () => {
    const releases = await mkdtemp(join(dir, 'releases-'));
    for (const name of [
      '2.0.0.yaml',
      '10.0.0-rc.1.yaml',
      '2.10.0.yaml',
      '9.1.0.yaml',
      'README.md',
      '11.0.yaml',
      '.10.1.0.yaml.123.ab.tmp',
    ]) {
      await writeFile(join(releases, name), 'openapi: 3.1.1\n');
    }
    expect((await listReleases(releases)).map((r) => r.version)).toEqual(['2.0.0', '2.10.0', '9.1.0', '10.0.0-rc.1']);
    expect((await latestRelease(releases))?.version).toBe('10.0.0-rc.1');
    await writeFile(join(releases, '10.0.0.yaml'), 'openapi: 3.1.1\n');
    expect((await latestRelease(releases))?.version).toBe('10.0.0');
    expect(await latestRelease(join(releases, 'missing'))).toBeUndefined();
  });

  it('accepts breaking changes only with a greater major version', () => {
    const v = (baseline: string, current: string) => verdict(1, 0, { baseline, current }).accepted;
    expect(v('2.0.0', '3.0.0')).toBe(true);
    expect(v('9.4.1', '10.0.0')).toBe(true);
    expect(v('2.0.0', '3.0.0-rc.1')).toBe(true);
    expect(v('2.0.0', '2.1.0')).toBe(false);
    expect(v('2.0.0', '2.0.0')).toBe(false);
    expect(v('2.0.0', 'v3')).toBe(false);
    expect(verdict(0, 2, { baseline: '2.0.0', current: '2.0.0' })).toMatchObject({
      accepted: false,
      reason: expect.stringMatching(/no breaking changes/),
    });
  });

  it('records <info.version>.yaml once, and replaces it only with force', async () => {
    const releases = join(dir, 'recorded');
    const copy = structuredClone(doc);
    (copy.info as JsonObject).version = '2.3.4';
    const first = await recordRelease({ document: copy }, { dir: releases });
    expect(first).toMatchObject({ version: '2.3.4', file: join(releases, '2.3.4.yaml'), replaced: false });
    const text = await readFile(first.file, 'utf8');
    expect(text).toMatch(/^# Release 2\.3\.4 of the contract/);
    expect(parse(text)).toEqual(copy);
    await expect(recordRelease({ document: copy }, { dir: releases })).rejects.toThrow(ReleaseExistsError);
    expect((await recordRelease({ document: copy }, { dir: releases, force: true })).replaced).toBe(true);
    (copy.info as JsonObject).version = 'next';
    await expect(recordRelease({ document: copy }, { dir: releases })).rejects.toThrow(/not a semver version/);
  });
});

/** A minimal contract whose request enum is [A, B] in the baseline and `values` in the current one. */
async function tiny(name: string, values: string[]): Promise<[string, string]> {
  const base = join(dir, `tiny-${name}-baseline.yaml`);
  const current = join(dir, `tiny-${name}-current.yaml`);
  await Promise.all([writeFile(base, tinyContract(['A', 'B'])), writeFile(current, tinyContract(values))]);
  return [base, current];
}

function script(args: string[]) {
  return runScript('check-breaking', args, { cwd: REPO_ROOT, env: NO_TARGET });
}
