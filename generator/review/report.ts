import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { isObject, type JsonObject, parsePointer, tryResolve } from '../../tooling/openapi/walker.js';
import { generate } from '../generate.js';
import { type LintProblem, type LintResult, lintContract } from '../lint/lint.js';
import { type BundleResult, bundleContract } from '../steps/bundle.js';
import { DEFAULT_OUT, DEFAULT_ROOT } from '../support/paths.js';
import { SourceLocator } from '../support/sourcemap.js';
import { type Base, loadBase } from './base.js';
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
  base: { label: string; version: string };
  head: { label: string; version: string };
  /** undefined: not run. */
  lint?: LintResult;
  breaking: BreakingResult;
  changelog: Changelog;
  provenance: { before: ProvenanceCounts; after: ProvenanceCounts };
  /** undefined: not checked. */
  drift?: Drift;
}

/** 1 when there are breaking changes that no major version bump accepts, else 0. */
export function reportExitCode(data: Pick<ReportData, 'breaking'>): 0 | 1 {
  return data.breaking.ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// Gathering

export interface CollectOptions {
  /** A git ref, a version or a released file (see generator/review/base.ts); default the latest release. */
  base?: string;
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
  const base: Base = await loadBase(options.base, {
    root,
    ...(options.releasesDir ? { releasesDir: options.releasesDir } : {}),
  });
  try {
    const head = await heading;
    const [breaking, lint, drift] = await Promise.all([
      checkBreaking({ baseline: base.input, current: head }),
      options.lint === false ? undefined : lintContract({ root, out: generated, bundle: heading }),
      options.drift === false ? undefined : generatedDrift({ root, generated }),
    ]);
    const baseSide: Side =
      typeof base.input === 'string'
        ? { root: base.input, document: base.document }
        : { root: (base.input as BundleResult).root, document: base.document };
    placeLocations(breaking, { baseline: baseSide, current: { root, document: head.document } }, [
      base.checkout,
      dirname(dirname(root)),
    ]);
    const version = (d: JsonObject) => String(isObject(d.info) ? (d.info.version ?? '') : '');
    return {
      base: { label: base.label, version: version(base.document) },
      head: { label: root === DEFAULT_ROOT ? 'the working tree' : `\`${rel(root)}\``, version: version(head.document) },
      ...(lint ? { lint } : {}),
      breaking,
      changelog: changelog(base.document, head.document),
      provenance: { before: countProvenance(base.document), after: countProvenance(head.document) },
      ...(drift ? { drift } : {}),
    };
  } finally {
    await base.dispose();
  }
}

interface Side {
  /** The file the document was read or bundled from. */
  root: string;
  document: JsonObject;
}

/**
 * Puts each location of a change where a reader edits: redocly diff compares documents whose
 * allOf are merged, so a pointer into a merged schema (`…/PaymentCreated/properties/merchantId`)
 * is taken to the schema that declares the property (`OperationResultCore`, in an allOf member),
 * then to its source file and line. Files are named as in their project (`openapi/…`): the base's
 * checkout, or the folder above the head's root; other files relative to the working directory.
 */
function placeLocations(
  result: BreakingResult,
  sides: Record<ChangeLocation['side'], Side>,
  projects: Array<string | undefined>,
): void {
  const locators = new Map<Side, SourceLocator>();
  const place = (loc: ChangeLocation) => {
    const side = sides[loc.side];
    const tokens = declaredAt(side.document, parsePointer(loc.pointer));
    if (tokens) {
      let locator = locators.get(side);
      if (!locator) {
        locator = new SourceLocator(side.root, side.document);
        locators.set(side, locator);
      }
      const hit = locator.locate(tokens);
      if (hit?.exact) Object.assign(loc, { file: hit.file, line: hit.line, col: hit.col });
    }
    if (!loc.file) return;
    const abs = resolve(loc.file);
    const project = projects.find((p) => p !== undefined && !relative(p, abs).startsWith('..'));
    loc.file = (project ? relative(project, abs) : rel(abs)).split('\\').join('/');
  };
  const seen = new Set<ChangeLocation>();
  for (const c of [...result.breaking, ...result.nonBreaking]) {
    for (const loc of [c.location, ...c.findings.map((f) => f.location)]) {
      if (loc && !seen.has(loc)) {
        seen.add(loc);
        place(loc);
      }
    }
  }
}

/**
 * Where the node at `tokens` of the allOf-merged document is declared in the unmerged one: the
 * path is followed through $refs, and a step the schema lacks is looked for in its allOf members.
 */
function declaredAt(doc: JsonObject, tokens: readonly string[]): (string | number)[] | undefined {
  const seen = new Set<string>();
  const find = (node: unknown, path: (string | number)[], rest: readonly string[]): (string | number)[] | undefined => {
    if (rest.length === 0) return path;
    const resolved = tryResolve<unknown>(doc, node, path);
    if (!resolved) return undefined;
    const [here, at] = [resolved.node, resolved.tokens ?? path.map(String)];
    const key = `${at.join('/')}|${rest.length}`;
    if (seen.has(key) || typeof here !== 'object' || here === null) return undefined;
    seen.add(key);
    const [step, ...more] = rest as [string, ...string[]];
    if (step in here) {
      const found = find((here as Record<string, unknown>)[step], [...at, step], more);
      if (found) return found;
    }
    if (isObject(here) && Array.isArray(here.allOf)) {
      for (const [i, member] of here.allOf.entries()) {
        const found = find(member, [...at, 'allOf', i], rest);
        if (found) return found;
      }
    }
    return undefined;
  };
  return find(doc, [], tokens);
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

  const verdict =
    breaking.breaking.length === 0
      ? '✅ none'
      : breaking.ok
        ? `⚠️ ${breaking.breaking.length}, accepted by the major version bump`
        : `❌ ${breaking.breaking.length}, not accepted`;
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
    `| Changelog | ${log.entries.length === 0 ? 'no changes' : counts(log)} |`,
    `| Lint | ${lintCell} |`,
    `| Generated code | ${driftCell} |`,
    '',
    `**${reportExitCode(data) === 0 ? 'OK' : 'FAILED'}**: ${reportSummary(data)}`,
    '',
  );

  out.push('### Breaking changes', '');
  if (breaking.breaking.length === 0) out.push('None.', '');
  else {
    out.push('| Where | Rule | Change | Shows at |', '|---|---|---|---|');
    for (const c of breaking.breaking) out.push(...breakingRows(c));
    out.push('');
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
  const n = breaking.breaking.length;
  if (n === 0) return 'no breaking changes.';
  if (breaking.ok)
    return `${n} breaking change(s), accepted: info.version \`${head.version}\` is a new major version over \`${base.version}\`.`;
  return `${n} breaking change(s) while info.version \`${head.version}\` keeps the major version of \`${base.version}\`: restore compatibility, or release a new major version.`;
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
  return findings.map(
    (f) =>
      `| ${where(f.location ?? c.location)} | ${f.ruleId ? `\`${f.ruleId}\`` : ''} | ${cell(f.message)} | ${cell(showsAt(c.path))} |`,
  );
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
