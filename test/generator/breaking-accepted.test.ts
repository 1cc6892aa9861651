// Each change once at its source line, and the accepted-changes file (openapi/accepted-changes.yaml)
// in the gate and the report: on a copy of openapi/ where `KIOSK` is added to Channel (breaking: a
// value responses carry) and a property to OperationResultCore (which five schemas include).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedEntry } from '../../generator/review/accepted.js';
import { type BreakingResult, checkBreaking } from '../../generator/review/breaking.js';
import { collectReport, renderReport, reportExitCode } from '../../generator/review/report.js';
import { bundleContract } from '../../generator/steps/bundle.js';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { NO_TARGET } from '../support/git.js';
import { loadBundle } from '../support/openapi.js';
import { runScript } from '../support/scripts.js';
import { tinyContract } from '../support/tiny-contract.js';

const KIOSK = 'enum-values-added@#/components/schemas/Channel/enum';
/** The change of the tiny contract (see tiny()): `B` dropped from a request's enum. */
const WITHOUT_B = 'enum-values-removed@#/paths/~1things/post/requestBody/content/application~1json/schema/enum';
const entry = (over: Partial<AcceptedEntry> = {}): AcceptedEntry => ({
  id: WITHOUT_B,
  reason: 'B was never accepted by the service.',
  approvedBy: 'Jane Doe (API owner)',
  file: 'openapi/accepted-changes.yaml',
  line: 2,
  ...over,
});

let dir: string;
let project: string;
let baseline: string;
let terminalIdLine: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'breaking-accepted-'));
  baseline = join(dir, 'baseline.json');
  await writeFile(baseline, JSON.stringify(loadBundle(), null, 2));
  project = join(dir, 'project');
  await cp(join(REPO_ROOT, 'openapi'), join(project, 'openapi'), { recursive: true });
  const edit = async (file: string, from: string, to: string) => {
    const path = join(project, 'openapi', file);
    const text = await readFile(path, 'utf8');
    expect(text).toContain(from);
    await writeFile(path, text.replace(from, to));
  };
  await edit('components/schemas/Channel.yaml', 'PAYBYLINK, POS]', 'PAYBYLINK, POS, KIOSK]');
  await edit(
    'components/schemas/OperationResultCore.yaml',
    '      merchantId:\n',
    '      terminalId:\n        type: string\n        description: Terminal of the operation.\n        maxLength: 8\n      merchantId:\n',
  );
  terminalIdLine =
    (await readFile(join(project, 'openapi', 'components', 'schemas', 'OperationResultCore.yaml'), 'utf8'))
      .split('\n')
      .indexOf('      terminalId:') + 1;
  await writeFile(join(project, 'openapi', 'accepted-changes.yaml'), 'accepted: []\n');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const root = () => join(project, 'openapi', 'openapi.yaml');

/** A minimal contract whose request enum loses `B`: [baseline, current]. */
async function tiny(): Promise<[string, string]> {
  const files: [string, string] = [join(dir, 'tiny-baseline.yaml'), join(dir, 'tiny-current.yaml')];
  await Promise.all([writeFile(files[0], tinyContract(['A', 'B'])), writeFile(files[1], tinyContract(['A']))]);
  return files;
}
const check = async (accepted?: Parameters<typeof checkBreaking>[0]['accepted']): Promise<BreakingResult> => {
  const [base, current] = await tiny();
  return checkBreaking({ baseline: base, current, ...(accepted ? { accepted } : {}) });
};

describe('each change once, at its source line', () => {
  it('a property added to a schema five others include: one change, at its line, with every place it shows', async () => {
    const r = await checkBreaking({ baseline, current: await bundleContract({ root: root() }), projects: [project] });
    const added = r.nonBreaking.filter((c) => c.path.endsWith('/terminalId'));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      id: 'Schema-added@#/components/schemas/OperationResultCore/allOf/1/properties/terminalId',
      location: { file: 'openapi/components/schemas/OperationResultCore.yaml', line: terminalIdLine, side: 'current' },
    });
    expect(added[0]!.paths.length).toBeGreaterThanOrEqual(5);
    // the breaking one: the enum value, at the enum's line, with the id a reviewer copies
    expect(r.breaking.map((c) => [c.id, `${c.location?.file}:${c.location?.line}`])).toEqual([
      [KIOSK, 'openapi/components/schemas/Channel.yaml:3'],
    ]);
    expect([...r.breaking, ...r.nonBreaking].map((c) => c.location?.line)).not.toContain(1);
    expect(r.ok).toBe(false);
  }, 120_000);
});

describe('accepted breaking changes', () => {
  it('an entry lets its change through and is listed with its reason and approver', async () => {
    const r = await check({ entries: [entry()] });
    expect(r.ok).toBe(true);
    expect(r.breaking.map((c) => c.id)).toEqual([WITHOUT_B]);
    expect(r.breaking[0]!.approval).toMatchObject({ approvedBy: 'Jane Doe (API owner)' });
    expect(r.approvals).toMatchObject({ used: [entry()], stale: [], expired: [], carried: [] });
    expect(r.reason).toMatch(/^no unapproved breaking changes since the base \(info\.version 1\.0\.0\): 1 approved/);
  });

  it('an entry that matches no breaking change fails the gate (stale)', async () => {
    const stale = entry({ id: 'operation-removed@#/paths/~1payments/post', line: 6 });
    const r = await check({ entries: [entry(), stale] });
    expect(r.ok).toBe(false);
    expect(r.approvals.stale).toEqual([stale]);
    expect(r.breaking[0]!.approval).toBeDefined();
    expect(r.reason).toContain('1 accepted change(s) match no breaking change (stale: remove them)');
  });

  it('an expired entry no longer accepts, and says so', async () => {
    const expired = entry({ expires: '2026-01-31' });
    const r = await check({ entries: [expired], today: '2026-02-01' });
    expect(r.ok).toBe(false);
    expect(r.breaking[0]!.approval).toBeUndefined();
    expect(r.approvals.expired).toEqual([expired]);
    expect(r.reason).toContain('1 accepted change(s) expired');
    // the day it names still holds
    expect((await check({ entries: [expired], today: '2026-01-31' })).ok).toBe(true);
  });

  it("an entry the base's file already holds approved an earlier change: carried, neither applied nor stale", async () => {
    const r = await check({ entries: [entry()], baseEntries: [entry()] });
    expect(r.approvals.carried).toEqual([entry()]);
    expect(r.breaking[0]!.approval).toBeUndefined();
    expect(r.ok).toBe(false);
    // edited in the pull request (a new reason for a new change with the same id): it applies
    const edited = entry({ reason: 'B and C were never accepted by the service.' });
    expect((await check({ entries: [edited], baseEntries: [entry()] })).ok).toBe(true);
  });
});

describe('the accepted-changes file in the commands', () => {
  const gate = (...args: string[]) =>
    runScript('check-breaking', ['--root', root(), '--base', baseline, ...args], { cwd: project, env: NO_TARGET });
  const accepted = (text: string) => writeFile(join(project, 'openapi', 'accepted-changes.yaml'), text);
  const ENTRY = [
    'accepted:',
    `  - id: ${KIOSK}`,
    '    reason: KIOSK is announced in the changelog; clients fall back on unknown channels.',
    '    approvedBy: Jane Doe (API owner)',
    '    expires: 2999-12-31',
    '',
  ].join('\n');

  it('npm run check:breaking: prints the id to approve, then passes with the entry and lists it', async () => {
    await accepted('accepted: []\n');
    const failing = await gate();
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toContain(
      `  openapi/components/schemas/Channel.yaml:3:1 major enum-values-added Enum of \`channel\` gained values: 'KIOSK'.\n      id: ${KIOSK}\n`,
    );
    expect(failing.stdout).toContain(`accepted:\n  - id: ${KIOSK}\n    reason: <`);
    await accepted(ENTRY);
    const passing = await gate();
    expect(passing.code, passing.stdout).toBe(0);
    expect(passing.stdout).toMatch(/^Breaking changes approved in openapi\/accepted-changes\.yaml \(1\):$/m);
    expect(passing.stdout).toContain(
      '      approved by Jane Doe (API owner) (openapi/accepted-changes.yaml:2, until 2999-12-31): KIOSK is announced',
    );
    expect(passing.stdout).not.toContain('BREAKING');
  }, 120_000);

  it('npm run check:breaking: a stale or an expired entry fails; a malformed file is an error at its line', async () => {
    await accepted(`${ENTRY}  - id: operation-removed@#/paths/~1payments/post\n    reason: x\n    approvedBy: y\n`);
    const stale = await gate();
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(
      /^STALE accepted changes: .*\n {2}openapi\/accepted-changes\.yaml:6 operation-removed@#\/paths\/~1payments\/post$/m,
    );
    await accepted(ENTRY.replace('2999-12-31', '2020-01-01'));
    const expired = await gate();
    expect(expired.code).toBe(1);
    expect(expired.stdout).toContain(
      `openapi/accepted-changes.yaml:2 ${KIOSK} expired after 2020-01-01: approve it again with a new date, or remove it`,
    );
    expect(expired.stdout).toMatch(/^BREAKING changes, not approved \(1\):$/m);
    await accepted(ENTRY.replace('    approvedBy: Jane Doe (API owner)\n', ''));
    const malformed = await gate();
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.trim()).toBe('openapi/accepted-changes.yaml:2: entry 1: field `approvedBy` is missing');
  }, 180_000);

  it('npm run report: lists the accepted ones; a stale one fails it', async () => {
    await accepted(ENTRY);
    const data = await collectReport({ base: baseline, root: root(), lint: false, drift: false });
    expect(reportExitCode(data)).toBe(0);
    const md = renderReport(data);
    expect(md).toContain('| Breaking changes | ✅ 1, approved in `openapi/accepted-changes.yaml` |');
    expect(md).toContain(
      `| \`openapi/components/schemas/Channel.yaml:3\` | \`${KIOSK}\` | KIOSK is announced in the changelog; clients fall back on unknown channels | Jane Doe (API owner) | 2999-12-31 | \`openapi/accepted-changes.yaml:2\` |`,
    );
    await accepted(`${ENTRY}  - id: operation-removed@#/paths/~1payments/post\n    reason: x\n    approvedBy: y\n`);
    const stale = await collectReport({ base: baseline, root: root(), lint: false, drift: false });
    expect(reportExitCode(stale)).toBe(1);
    expect(renderReport(stale)).toContain(
      '- ❌ `openapi/accepted-changes.yaml:6` `operation-removed@#/paths/~1payments/post` matches no breaking change: remove it.',
    );
  }, 120_000);
});
