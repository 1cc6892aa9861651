import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { isObject, type JsonObject, parsePointer } from '../../tooling/openapi/walker.js';
import { generate } from '../generate.js';
import { type LintProblem, type LintResult, lintContract } from '../lint/lint.js';
import { bundleContract } from '../steps/bundle.js';
import { DEFAULT_OUT, DEFAULT_ROOT } from '../support/paths.js';
import { ACCEPTED_FILE, type AcceptedEntry, loadAcceptedPair } from './accepted.js';
import { type Base, baseFileOf, loadBase } from './base.js';
import { type BreakingResult, type Change, type ChangeLocation, checkBreaking, parseSemver } from './breaking.js';
import { type Changelog, changelog } from './changelog.js';
import { countProvenance, type ProvenanceCounts, TALLY_LABELS } from './provenance.js';

// The pull-request report (`npm run report`): everything a reviewer of a contract change needs in
// one Markdown comment. collectReport() gathers the facts (I/O: bundling, `redocly diff`, lint,
// regeneration); renderReport() and reportExitCode() are pure, so tests feed them fixtures.

export interface DriftEntry {
  /** Relative to the generated folder, `/`-separated. */
  path: string;
  /** differs; missing: generated but not committed; stale: committed but no longer generated. */
  status: 'differs' | 'missing' | 'stale';
}

export interface Drift {
  /** The committed folder, as named in the report (`generated/`). */
  dir: string;
  files: DriftEntry[];
  /** Set when regenerating failed; files is then empty. */
  error?: string;
}

export interface ReportData {
  /** reason: why this base (see generator/review/base.ts). */
  base: { label: string; version: string; reason?: string };
  /** The accepted-changes file, as named to the reader. */
  acceptedFile?: string;
  head: { label: string; version: string };
  /** undefined: not run. */
  lint?: LintResult;
  breaking: BreakingResult;
  changelog: Changelog;
  provenance: { before: ProvenanceCounts; after: ProvenanceCounts };
  /** undefined: not checked. */
  drift?: Drift;
}

/** 1 when a breaking change is neither approved nor accepted by a major version bump, or an approval is stale or expired; else 0. */
export function reportExitCode(data: Pick<ReportData, 'breaking'>): 0 | 1 {
  return data.breaking.ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// Gathering

export interface CollectOptions {
  /** A git ref, a version or a released file (see generator/review/base.ts); default: see defaultBase() there. */
  base?: string;
  /** The pull request's target branch: the base is its merge base with HEAD (default from the CI environment). */
  target?: string;
  /** The accepted-changes file (default accepted-changes.yaml beside the root). */
  accepted?: string;
  /** The head's source root (default openapi/openapi.yaml, the working tree). */
  root?: string;
  /** The committed generated folder to check for drift (default generated/). */
  generated?: string;
  releasesDir?: string;
  /** false skips the lint (default true). */
  lint?: boolean;
  /** false skips regenerating (default true). */
  drift?: boolean;
}

export async function collectReport(options: CollectOptions = {}): Promise<ReportData> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const generated = resolve(options.generated ?? DEFAULT_OUT);
  const heading = bundleContract({ root });
  heading.catch(() => undefined); // awaited below
  const acceptedFile = resolve(options.accepted ?? join(dirname(root), ACCEPTED_FILE));
  const base: Base = await loadBase(options.base, {
    root,
    releasesDir: options.releasesDir || undefined,
    target: options.target || undefined,
  });
  try {
    const acceptedName = relative(dirname(dirname(root)), acceptedFile)
      .split('\\')
      .join('/');
    const accepted = await loadAcceptedPair(acceptedFile, baseFileOf(base, root, acceptedFile), acceptedName);
    const head = await heading;
    const [breaking, lint, drift] = await Promise.all([
      checkBreaking({
        baseline: base.input,
        current: head,
        projects: [base.checkout, dirname(dirname(root))],
        accepted,
      }),
      options.lint === false ? undefined : lintContract({ root, out: generated, bundle: heading }),
      options.drift === false ? undefined : generatedDrift({ root, generated }),
    ]);
    const version = (d: JsonObject) => String(isObject(d.info) ? (d.info.version ?? '') : '');
    return {
      base: { label: base.label, version: version(base.document), reason: base.reason },
      acceptedFile: acceptedName,
      head: { label: root === DEFAULT_ROOT ? 'the working tree' : `\`${rel(root)}\``, version: version(head.document) },
      lint,
      breaking,
      changelog: changelog(base.document, head.document),
      provenance: { before: countProvenance(base.document), after: countProvenance(head.document) },
      drift,
    };
  } finally {
    await base.dispose();
  }
}

/** Regenerates into a temporary folder (without the lint step) and compares with the committed folder. */
export async function generatedDrift(options: { root?: string; generated?: string } = {}): Promise<Drift> {
  const committed = resolve(options.generated ?? DEFAULT_OUT);
  const dir = `${rel(committed)}/`;
  const out = await mkdtemp(join(tmpdir(), 'report-generate-'));
  try {
    const log: string[] = [];
    const ok = await generate({ root: options.root ?? DEFAULT_ROOT, out, lint: false, log: (l) => log.push(l) });
    if (!ok) return { dir, files: [], error: log.join('\n') };
    return { dir, files: await compareTrees(out, committed) };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** The files that differ between what was generated and what is committed, by path. */
export async function compareTrees(fresh: string, committed: string): Promise<DriftEntry[]> {
  const [a, b] = await Promise.all([snapshot(fresh), snapshot(committed)]);
  return [...new Set([...a.keys(), ...b.keys()])].sort().flatMap((path): DriftEntry[] => {
    const [x, y] = [a.get(path), b.get(path)];
    if (!y) return [{ path, status: 'missing' }];
    if (!x) return [{ path, status: 'stale' }];
    return x.equals(y) ? [] : [{ path, status: 'differs' }];
  });
}

async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    const full = join(e.parentPath, e.name);
    files.set(relative(dir, full).split('\\').join('/'), await readFile(full));
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// Markdown

/** Lint problems and changelog entries listed before the rest is summed up (a PR comment has a size limit). */
const LIST_LIMIT = 100;

export function renderReport(data: ReportData): string {
  const out: string[] = [];
  const { breaking, changelog: log } = data;
  const major = bumpsMajor(data.base.version, data.head.version);
  out.push('<!-- contract-report -->', '## Contract report', '');
  out.push(`Base: ${data.base.label}. Head: ${data.head.label}.`, '');
  if (data.base.reason) out.push(`Why this base: ${data.base.reason}.`, '');

  const unapproved = breaking.breaking.filter((c) => !c.approval);
  const approved = breaking.breaking.filter((c) => c.approval);
  const file = `\`${data.acceptedFile ?? 'accepted-changes.yaml'}\``;
  const andApproved = approved.length > 0 ? `; ${approved.length} approved in ${file}` : '';
  const verdict =
    breaking.breaking.length === 0
      ? '✅ none'
      : unapproved.length === 0
        ? `✅ ${approved.length}, approved in ${file}`
        : breaking.accepted
          ? `⚠️ ${unapproved.length}, accepted by the major version bump${andApproved}`
          : `❌ ${unapproved.length}, not accepted${andApproved}`;
  const { stale, expired } = breaking.approvals;
  const approvalsCell =
    stale.length + expired.length > 0
      ? `❌ ${[stale.length ? `${stale.length} stale` : '', expired.length ? `${expired.length} expired` : ''].filter(Boolean).join(', ')}`
      : `✅ ${breaking.approvals.used.length} used`;
  const lintCell = !data.lint
    ? '➖ not run'
    : data.lint.ok
      ? '✅ 0 errors, 0 warnings'
      : `❌ ${data.lint.errors} error(s), ${data.lint.warnings} warning(s)`;
  const driftCell = !data.drift
    ? '➖ not checked'
    : data.drift.error
      ? '❌ regenerating failed'
      : data.drift.files.length === 0
        ? '✅ up to date'
        : `⚠️ ${data.drift.files.length} file(s) differ`;
  out.push(
    '| Check | Result |',
    '|---|---|',
    `| Version | \`${data.base.version}\` → \`${data.head.version}\`${major ? ' (major bump)' : ''} |`,
    `| Breaking changes | ${verdict} |`,
    `| Accepted changes | ${approvalsCell} |`,
    `| Changelog | ${log.entries.length === 0 ? 'no changes' : counts(log)} |`,
    `| Lint | ${lintCell} |`,
    `| Generated code | ${driftCell} |`,
    '',
    `**${reportExitCode(data) === 0 ? 'OK' : 'FAILED'}**: ${reportSummary(data)}`,
    '',
  );

  out.push('### Breaking changes', '');
  if (unapproved.length === 0) out.push(approved.length > 0 ? 'None that is not approved.' : 'None.', '');
  else {
    out.push('| Where | Rule | Change | Shows at | Id |', '|---|---|---|---|---|');
    for (const c of unapproved) out.push(...breakingRows(c));
    out.push('');
    if (!breaking.accepted)
      out.push(
        `To let one through, add its id to ${file} with the reason and the approver, in this pull request (see docs/breaking-gate.md).`,
        '',
      );
  }

  out.push('### Accepted breaking changes', '');
  if (approved.length === 0 && stale.length === 0 && expired.length === 0) out.push(`None in ${file}.`, '');
  else {
    if (approved.length > 0) {
      out.push('| Where | Id | Reason | Approved by | Expires | Entry |', '|---|---|---|---|---|---|');
      for (const c of approved) out.push(approvedRow(c, c.approval!));
      out.push('');
    }
    for (const e of stale) out.push(`- ❌ \`${e.file}:${e.line}\` \`${e.id}\` matches no breaking change: remove it.`);
    for (const e of expired)
      out.push(
        `- ❌ \`${e.file}:${e.line}\` \`${e.id}\` expired after ${e.expires}: approve it again with a new date, or remove it.`,
      );
    if (stale.length + expired.length > 0) out.push('');
  }

  out.push('### Changelog', '');
  if (log.entries.length === 0)
    out.push(
      'No changes to operations, security, parameters, fields, constraints, enum values, statuses or headers.',
      '',
    );
  else out.push(...renderChangelog(log), '');

  out.push('### Provenance', '', ...renderProvenance(data.provenance.before, data.provenance.after), '');

  out.push('### Lint', '');
  if (!data.lint) out.push('Not run.', '');
  else if (data.lint.problems.length === 0) out.push('No problems.', '');
  else {
    const shown = data.lint.problems.slice(0, LIST_LIMIT);
    out.push(...shown.map(lintLine));
    if (data.lint.problems.length > shown.length)
      out.push(`- … and ${data.lint.problems.length - shown.length} more (\`npm run lint\`)`);
    out.push('');
  }

  out.push('### Generated code', '');
  if (!data.drift) out.push('Not checked.', '');
  else if (data.drift.error) out.push(`Regenerating failed:`, '', '```', data.drift.error, '```', '');
  else if (data.drift.files.length === 0)
    out.push(`\`${data.drift.dir}\` is what \`npm run generate\` makes from this contract.`, '');
  else {
    out.push(
      `\`${data.drift.dir}\` is not what \`npm run generate\` makes from this contract: run \`npm run generate\` and commit the result.`,
      '',
    );
    const words = { differs: 'differs', missing: 'not committed', stale: 'no longer generated' };
    out.push(...data.drift.files.map((f) => `- \`${data.drift!.dir}${f.path}\`: ${words[f.status]}`), '');
  }
  return out.join('\n');
}

/** One sentence: the verdict on breaking changes. */
export function reportSummary({ breaking, base, head }: Pick<ReportData, 'breaking' | 'base' | 'head'>): string {
  const n = breaking.breaking.filter((c) => !c.approval).length;
  const approved = breaking.approvals.used.length;
  const { stale, expired } = breaking.approvals;
  const problems = [
    stale.length ? `${stale.length} accepted change(s) match nothing (stale)` : '',
    expired.length ? `${expired.length} accepted change(s) expired` : '',
  ].filter(Boolean);
  const tail = problems.length > 0 ? ` And ${problems.join(', ')}: remove or renew them.` : '';
  const ok = approved > 0 ? ` (${breaking.breaking.length - n} approved)` : '';
  if (n === 0) return `no breaking changes${approved > 0 ? ' that are not approved' : ''}${ok}.${tail}`;
  if (breaking.accepted)
    return `${n} breaking change(s)${ok}, accepted: info.version \`${head.version}\` is a new major version over \`${base.version}\`.${tail}`;
  return `${n} breaking change(s)${ok} while info.version \`${head.version}\` keeps the major version of \`${base.version}\`: restore compatibility, approve them, or release a new major version.${tail}`;
}

const bumpsMajor = (base: string, head: string) => {
  const [b, h] = [parseSemver(base), parseSemver(head)];
  return b !== undefined && h !== undefined && h.major > b.major;
};

/** Text safe in a table cell: one line, pipes escaped. */
const cell = (text: string) =>
  text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/\.$/, '');

function where(loc: ChangeLocation | undefined): string {
  if (!loc) return '';
  const side = loc.side === 'baseline' ? ' (base)' : '';
  if (!loc.file) return `\`${loc.pointer}\`${side}`;
  return `\`${loc.file}:${loc.line ?? 1}\`${side}`;
}

/** `POST /payments` request body … for `#/paths/~1payments/post/requestBody/…`. */
function showsAt(pointer: string): string {
  let tokens: string[];
  try {
    tokens = parsePointer(pointer);
  } catch {
    return `\`${pointer}\``;
  }
  if ((tokens[0] === 'paths' || tokens[0] === 'webhooks') && tokens.length >= 2) {
    const [section, key, method, ...rest] = tokens;
    const op = method
      ? section === 'webhooks'
        ? `webhook ${key} ${method.toUpperCase()}`
        : `${method.toUpperCase()} ${key}`
      : `${key}`;
    return `\`${op}\`${rest.length ? ` ${rest.join(' › ')}` : ''}`;
  }
  return `\`${pointer}\``;
}

function breakingRows(c: Change): string[] {
  const majors = c.findings.filter((f) => f.impact === 'major');
  const findings = majors.length > 0 ? majors : [{ ruleId: '', message: c.message, location: c.location }];
  const more = c.paths.length > 1 ? ` and ${c.paths.length - 1} more` : '';
  return findings.map(
    (f) =>
      `| ${where(f.location ?? c.location)} | ${f.ruleId ? `\`${f.ruleId}\`` : ''} | ${cell(f.message)} | ${cell(showsAt(c.path))}${more} | \`${cell(c.id)}\` |`,
  );
}

function approvedRow(c: Change, e: AcceptedEntry): string {
  return `| ${where(c.location)} | \`${cell(c.id)}\` | ${cell(e.reason)} | ${cell(e.approvedBy)} | ${e.expires ?? '—'} | \`${e.file}:${e.line}\` |`;
}

function counts(log: Changelog): string {
  const n = (k: string) => log.entries.filter((e) => e.kind === k).length;
  return [`${n('added')} added`, `${n('removed')} removed`, `${n('changed')} changed`].join(', ');
}

function renderChangelog(log: Changelog): string[] {
  const out: string[] = [];
  let listed = 0;
  for (const scope of ['operation', 'schema'] as const) {
    const entries = log.entries.filter((e) => e.scope === scope);
    if (entries.length === 0) continue;
    out.push(`**${scope === 'operation' ? 'Operations' : 'Schemas'}**`, '');
    const subjects = [...new Set(entries.map((e) => e.subject))];
    for (const subject of subjects) {
      if (listed >= LIST_LIMIT) break;
      const mine = entries.filter((e) => e.subject === subject);
      const head = `\`${subject}\`${scope === 'operation' ? ` (\`${log.operations[subject] ?? '?'}\`)` : usedBy(log, subject)}`;
      if (mine.length === 1 && scope === 'operation') out.push(`- ${head}: ${mine[0]!.text}`);
      else out.push(`- ${head}`, ...mine.map((e) => `  - ${e.text}`));
      listed += mine.length;
    }
    out.push('');
  }
  if (listed < log.entries.length) out.push(`… and ${log.entries.length - listed} more changes.`, '');
  return out.slice(0, -1);
}

function usedBy(log: Changelog, schema: string): string {
  const use = log.usage[schema];
  if (!use || (use.requests.length === 0 && use.responses.length === 0)) return '';
  const list = (ids: string[]) =>
    ids.length <= 3
      ? ids.map((i) => `\`${i}\``).join(', ')
      : `${ids
          .slice(0, 3)
          .map((i) => `\`${i}\``)
          .join(', ')} and ${ids.length - 3} more`;
  const parts = [
    use.requests.length ? `requests of ${list(use.requests)}` : '',
    use.responses.length ? `responses of ${list(use.responses)}` : '',
  ].filter(Boolean);
  return ` (in ${parts.join('; ')})`;
}

function renderProvenance(before: ProvenanceCounts, after: ProvenanceCounts): string[] {
  const change = (a: number, b: number) => (a === b ? String(b) : `${a} → ${b} (${b > a ? '+' : ''}${b - a})`);
  const rows = ['| | documented | inferred | total |', '|---|---|---|---|'];
  let changed = false;
  for (const [key, label] of Object.entries(TALLY_LABELS)) {
    const [a, b] = [before[key as keyof typeof TALLY_LABELS], after[key as keyof typeof TALLY_LABELS]];
    if (a.documented !== b.documented || a.inferred !== b.inferred || a.total !== b.total) changed = true;
    rows.push(
      `| ${label} | ${change(a.documented, b.documented)} | ${change(a.inferred, b.inferred)} | ${change(a.total, b.total)} |`,
    );
  }
  const ic = (c: ProvenanceCounts) => c.inferredConstraints.properties;
  rows.push('', `Properties with inferred constraints (\`x-inferred-constraints\`): ${change(ic(before), ic(after))}.`);
  return [
    changed || ic(before) !== ic(after)
      ? 'Before → after (`npm run provenance`):'
      : 'Unchanged (`npm run provenance`):',
    '',
    ...rows,
  ];
}

function lintLine(p: LintProblem): string {
  return `- ${p.severity === 'error' ? '❌' : p.severity === 'warning' ? '⚠️' : 'ℹ️'} \`${p.file}:${p.line}:${p.col}\` ${p.severity} \`${p.rule}\`: ${p.message.replace(/\s*\n\s*/g, ' ')}`;
}

const rel = (p: string) => relative(process.cwd(), p) || '.';
