// npm run check:breaking [-- --json] [-- --root <file>] [-- --current <bundled file>]
//                        [-- --base <release | file | git ref> | -- --target <branch>]
//                        [-- --accepted <file>] [-- --releases <dir>]
// npm run check:breaking -- --record [--force] [--root <file>] [--releases <dir>]
//
// The breaking-change gate: compares the contract (bundled in memory from openapi/openapi.yaml)
// with its base using `redocly diff`. The base (generator/review/base.ts): the merge base of HEAD
// and the pull request's target branch (--target, else GITHUB_BASE_REF or
// CI_MERGE_REQUEST_TARGET_BRANCH_NAME); with no target, the merge base with the default branch when
// HEAD is another branch; on the default branch itself or outside git, the latest release in
// openapi/releases/. --base names one the way `npm run report` does: a version, a bundled file, or a
// git ref whose tree is bundled. Breaking changes pass when openapi/accepted-changes.yaml approves
// them (generator/review/accepted.ts) or info.version starts a new major version. Exit codes:
//   0  no breaking change, or each approved or accepted by a major version bump, and no stale or
//      expired approval;
//   1  breaking changes, or stale or expired approvals;
//   2  nothing to compare with, or the comparison could not run (usage, bundle, diff errors, a
//      malformed accepted-changes file).
// --record writes openapi/releases/<info.version>.yaml from the bundle (never overwrites an
// existing release without --force).
import { dirname, join, relative, resolve } from 'node:path';
import {
  ACCEPTED_FILE,
  AcceptedChangesError,
  type AcceptedEntry,
  entryAt,
  loadAcceptedChanges,
  loadAcceptedPair,
} from '../generator/review/accepted.js';
import { BaseError, baseFileOf, loadBase } from '../generator/review/base.js';
import {
  type Change,
  checkBreaking,
  DiffError,
  formatLocation,
  RELEASES_DIR,
  ReleaseExistsError,
  recordRelease,
} from '../generator/review/breaking.js';
import { BundleError, bundleContract } from '../generator/steps/bundle.js';
import { commandOptions } from '../generator/support/command-line.js';
import { DEFAULT_ROOT } from '../generator/support/paths.js';

const USAGE = `usage: tsx scripts/check-breaking.ts [--json] [--root openapi/openapi.yaml | --current <bundled file>]
                                    [--base <version | bundled file | git ref> | --target <branch>]
                                    [--accepted openapi/accepted-changes.yaml] [--releases openapi/releases]
       tsx scripts/check-breaking.ts --record [--force] [--root openapi/openapi.yaml] [--releases openapi/releases]`;

const values = commandOptions(
  {
    options: {
      record: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      root: { type: 'string' },
      current: { type: 'string' },
      base: { type: 'string' },
      target: { type: 'string' },
      accepted: { type: 'string' },
      // the earlier name of --base <file>
      baseline: { type: 'string' },
      releases: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);
const rel = (p: string) => relative(process.cwd(), p) || '.';
const root = values.root ? resolve(values.root) : DEFAULT_ROOT;
const releasesDir = values.releases ? resolve(values.releases) : RELEASES_DIR;
const acceptedFile = values.accepted ? resolve(values.accepted) : join(dirname(root), ACCEPTED_FILE);
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};

const baseSpec = values.base ?? values.baseline;
if ((values.record || values.force) && (values.current || baseSpec))
  fail(`--record takes the bundle of --root, not --current/--base\n${USAGE}`);
if (values.force && !values.record) fail(`--force only applies to --record\n${USAGE}`);
if (values.current && values.root)
  fail(`give --root (bundled here) or --current (already bundled), not both\n${USAGE}`);
if (values.base && values.baseline) fail(`give --base (or its earlier name --baseline), not both\n${USAGE}`);
if (values.target && baseSpec)
  fail(`give --base (compare with exactly that) or --target (its merge base), not both\n${USAGE}`);

async function bundle() {
  try {
    return await bundleContract({ root });
  } catch (err) {
    if (err instanceof BundleError) return fail(`${err.message}\nbundle failed: cannot check for breaking changes`);
    throw err;
  }
}

if (values.record) {
  try {
    const { version, file, replaced } = await recordRelease(await bundle(), { dir: releasesDir, force: values.force });
    console.log(`${replaced ? 'replaced' : 'recorded'} release ${version}: ${rel(file)}`);
    const entries = await loadAcceptedChanges(acceptedFile).catch(() => []);
    if (entries.length > 0)
      console.log(
        `${rel(acceptedFile)} lists ${entries.length} accepted change(s): the release holds them now, so empty its list in the same commit (the gate against this release would call them stale)`,
      );
    process.exit(0);
  } catch (err) {
    if (err instanceof ReleaseExistsError) fail(err.message);
    fail(`cannot record the release: ${(err as Error).message}`);
  }
}

let base: Awaited<ReturnType<typeof loadBase>>;
try {
  base = await loadBase(baseSpec, { root, releasesDir, target: values.target });
} catch (err) {
  if (!(err instanceof BaseError) && !(err instanceof BundleError)) throw err;
  const record = /no release is recorded/.test(err.message)
    ? '\nRecord the released contract with `npm run check:breaking -- --record`.'
    : '';
  fail(`${err.message}${record}`);
}

const t0 = performance.now();
let result: Awaited<ReturnType<typeof checkBreaking>>;
try {
  const accepted = await loadAcceptedPair(acceptedFile, baseFileOf(base!, root, acceptedFile));
  result = await checkBreaking({
    current: values.current ? resolve(values.current) : await bundle(),
    baseline: base!.input,
    projects: [base!.checkout, dirname(dirname(root))],
    accepted,
  });
} catch (err) {
  if (err instanceof DiffError || err instanceof AcceptedChangesError) fail(err.message);
  throw err;
} finally {
  await base!.dispose();
}
const ms = Math.round(performance.now() - t0);

if (values.json) {
  console.log(JSON.stringify({ base: { label: base!.label, reason: base!.reason }, ...result }, null, 2));
} else {
  const approval = (a: AcceptedEntry) =>
    `approved by ${a.approvedBy} (${entryAt(a)}${a.expires ? `, until ${a.expires}` : ''}): ${a.reason}`;
  const line = (c: Change, withId: boolean) => {
    const findings = c.findings.length > 0 ? c.findings : [{ ruleId: '', message: c.message, location: c.location }];
    const more = c.paths.length > 1 ? ` (and ${c.paths.length - 1} more place(s))` : '';
    return findings
      .map((f) =>
        [
          `  ${formatLocation(f.location ?? c.location)} ${c.impact}${f.ruleId ? ` ${f.ruleId}` : ''} ${f.message}`,
          ...(withId ? [`      id: ${c.id}`] : []),
          ...(c.approval ? [`      ${approval(c.approval)}`] : []),
          `      shows at ${c.path}${more}`,
        ].join('\n'),
      )
      .join('\n');
  };
  const { approvals } = result;
  const unapproved = result.breaking.filter((c) => !c.approval);
  const approved = result.breaking.filter((c) => c.approval);
  console.log(`base: ${base!.label}, info.version ${result.versions.baseline}\n  why: ${base!.reason}`);
  console.log(`head: ${result.files.current}, info.version ${result.versions.current}`);
  const carried = approvals.carried.length > 0 ? `, ${approvals.carried.length} carried from the base` : '';
  console.log(`accepted changes: ${rel(acceptedFile)} (${approvals.used.length} used${carried})`);
  if (unapproved.length > 0) {
    console.log(
      `\n${result.accepted ? 'Breaking changes, accepted by the major version bump' : 'BREAKING changes, not approved'} (${unapproved.length}):`,
    );
    for (const c of unapproved) console.log(line(c, true));
  }
  if (approved.length > 0) {
    console.log(`\nBreaking changes approved in ${rel(acceptedFile)} (${approved.length}):`);
    for (const c of approved) console.log(line(c, true));
  }
  if (approvals.stale.length > 0) {
    console.log(`\nSTALE accepted changes: they match no breaking change, remove them (${approvals.stale.length}):`);
    for (const a of approvals.stale) console.log(`  ${entryAt(a)} ${a.id}`);
  }
  if (approvals.expired.length > 0) {
    console.log(`\nEXPIRED accepted changes: they approve nothing any more (${approvals.expired.length}):`);
    for (const a of approvals.expired)
      console.log(`  ${entryAt(a)} ${a.id} expired after ${a.expires}: approve it again with a new date, or remove it`);
  }
  if (result.nonBreaking.length > 0) {
    console.log(`\nNon-breaking changes (${result.nonBreaking.length}):`);
    for (const c of result.nonBreaking) console.log(line(c, false));
  }
  if (unapproved.length > 0 && !result.accepted) {
    const [first] = unapproved;
    console.log(
      [
        `\nTo let a breaking change through, add its id to ${rel(acceptedFile)} in this pull request, with the reason and`,
        'the approver (see docs/breaking-gate.md); a reviewer approves it by approving the pull request:',
        'accepted:',
        `  - id: ${first!.id}`,
        '    reason: <why no client breaks, or how clients were told>',
        '    approvedBy: <who approves it>',
        '    expires: <YYYY-MM-DD, optional: the last day the approval holds>',
      ].join('\n'),
    );
  }
  console.log(`\n${result.ok ? 'OK' : 'FAILED'}: ${result.reason} (${ms} ms)`);
}
// exitCode, not process.exit(): exiting at once would cut a long report written to a pipe at
// the pipe's buffer size (64 KiB), e.g. `--json | jq`.
process.exitCode = result.ok ? 0 : 1;
