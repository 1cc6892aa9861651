import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { merge as mergeAllOf, openApiMergeRules } from 'allof-merge';
import { parse as parseYaml } from 'yaml';
import { declaredAt, escapeToken, parsePointer, toPointer } from '../../tooling/openapi/walker.js';
import { type BundleResult, type OpenApiDocument, toPortableYaml } from '../steps/bundle.js';
import { CACHE_DIR } from '../support/cache.js';
import { writeFileAtomic } from '../support/fs.js';
import { KeptOutput } from '../support/kept-output.js';
import { REPO_ROOT } from '../support/paths.js';
import { cleanStderr, runRedocly } from '../support/redocly.js';
import { SourceLocator } from '../support/sourcemap.js';
import { type AcceptedEntry, isExpired, sameEntry, today } from './accepted.js';

// The breaking-change gate: the contract against its base (generator/review/base.ts picks it: the
// merge base of a pull request, else the last release in openapi/releases/<info.version>.yaml).
// Redocly's `diff` command finds and rates the changes (its diff rules, `diff-recommended` in
// redocly.diff.yaml); this module reads the JSON report, puts each change once at the source line
// of the element that changed, and decides: any `major` change is breaking, and passes only when
// the accepted-changes file approves it (generator/review/accepted.ts) or info.version starts a new
// major version over the base's.

/** Where releases are recorded: openapi/releases/<info.version>.yaml. Not referenced by openapi.yaml, so never linted. */
export const RELEASES_DIR = join(REPO_ROOT, 'openapi', 'releases');
/** The Redocly config with the diff rules (redocly.yaml has none: see the file). */
export const DIFF_CONFIG = join(REPO_ROOT, 'redocly.diff.yaml');

export type Impact = 'major' | 'minor' | 'patch';

export interface ChangeLocation {
  /** Relative to the working directory; undefined when the document only existed in memory. */
  file?: string;
  line?: number;
  col?: number;
  /**
   * JSON pointer of the element in the bundled document (base or revision, see `side`), where it is
   * declared: in the `allOf` member that holds a property, not in the schemas that include it.
   */
  pointer: string;
  side: 'baseline' | 'current';
}

/** One diff rule's finding on a change. */
export interface Finding {
  ruleId: string;
  impact: Impact;
  message: string;
  location?: ChangeLocation;
}

export interface Change {
  /**
   * `<rule>@<pointer>`: the rule of the change (its first breaking finding's, else its first
   * finding's, else its kind) and the pointer of its location. What an accepted-changes entry names.
   */
  id: string;
  /** `major` = breaking. Redocly rates unrated additions `minor` and other edits `patch`. */
  impact: Impact;
  /** Redocly's kind: added, removed, modified. */
  kind: string;
  /** OpenAPI node type, e.g. Operation, Schema, ParameterList. */
  typeName: string;
  /**
   * Where the change shows in the API (JSON pointer). A change inside a component shows at the
   * first place that uses it, e.g. `#/paths/~1payments/post/requestBody/.../channel`.
   */
  path: string;
  /** Every place the change shows (redocly diff reports a change once per place; it is listed once). */
  paths: string[];
  /** The changed keyword of a modified node (`enum`, `maxLength`, ...). */
  property?: string;
  /** The rule finding of the change (a breaking change has one; an unrated change none). */
  findings: Finding[];
  /** One line: the findings' messages, or a description of an unrated change. */
  message: string;
  /** Where the change is: the first finding's location, else the changed node. */
  location?: ChangeLocation;
  /** The accepted-changes entry that lets this breaking change through. */
  approval?: AcceptedEntry;
}

/** What the accepted-changes file did in one comparison. */
export interface Approvals {
  /** Entries that let a breaking change through. */
  used: AcceptedEntry[];
  /** Entries that match no breaking change: stale approvals, the gate fails on them. */
  stale: AcceptedEntry[];
  /** Entries past their `expires` day: they accept nothing, and the gate fails on them. */
  expired: AcceptedEntry[];
  /**
   * Entries the base's file holds too (by id): approvals of changes the base already has. They are
   * not applied to this comparison, and not stale in it.
   */
  carried: AcceptedEntry[];
}

export interface BreakingResult {
  /**
   * Every breaking change is approved by an entry of the accepted-changes file or accepted by a
   * major version bump, and no entry is stale or expired.
   */
  ok: boolean;
  /** One sentence saying why ok is what it is. */
  reason: string;
  /** Every breaking change, approved ones included (they carry `approval`). */
  breaking: Change[];
  nonBreaking: Change[];
  /** There are breaking changes not approved by entries, and info.version's major is greater than the baseline's. */
  accepted: boolean;
  approvals: Approvals;
  versions: { baseline: string; current: string };
  summary: Record<Impact, number>;
  /** What was compared, for messages. */
  files: { baseline: string; current: string };
}

/**
 * A contract to compare: the path of a single-file (bundled) document, a bundled document, or
 * a bundleContract() result (then locations are mapped back to the multi-file source).
 */
export type ContractInput = string | OpenApiDocument | BundleResult;

export interface CheckBreakingOptions {
  current: ContractInput;
  baseline: ContractInput;
  /** Redocly config carrying the diff rules (default redocly.diff.yaml). */
  config?: string;
  /** Folders that name source files (`openapi/…` relative to the first that holds the file); default the working directory. */
  projects?: Array<string | undefined>;
  /** The accepted-changes entries of the head, and those of the base (which are carried, not applied). */
  accepted?: { entries: AcceptedEntry[]; baseEntries?: AcceptedEntry[]; today?: string };
  /** Where `redocly diff`'s reports are kept by content (support/kept-output.ts): the step cache's folder (default), or false. */
  cache?: string | false;
}

/** `redocly diff` could not compare the two documents (unreadable file, different OpenAPI versions, crash...). */
export class DiffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiffError';
  }
}

/** Compares `current` with `baseline` using `redocly diff` and applies the gate's rule. */
export async function checkBreaking(options: CheckBreakingOptions): Promise<BreakingResult> {
  const tmp = await mkdtemp(join(tmpdir(), 'contract-diff-'));
  try {
    const [base, rev] = await Promise.all([
      prepare(options.baseline, tmp, 'baseline'),
      prepare(options.current, tmp, 'current'),
    ]);
    const report = await runDiff(base.path, rev.path, options.config ?? DIFF_CONFIG, options.cache ?? CACHE_DIR);
    const locate = locator(base, rev, options.projects ?? []);
    const changes = once(report.changes.flatMap((c) => toChanges(c, locate)));
    const breaking = changes.filter((c) => c.impact === 'major');
    const nonBreaking = changes.filter((c) => c.impact !== 'major');
    const versions = {
      baseline: String(report.infoVersions?.base ?? ''),
      current: String(report.infoVersions?.revision ?? ''),
    };
    const approvals = approve(breaking, options.accepted);
    const unapproved = breaking.filter((c) => !c.approval).length;
    const { accepted, reason } = verdict(unapproved, nonBreaking.length, versions, approvals);
    return {
      ok: (unapproved === 0 || accepted) && approvals.stale.length === 0 && approvals.expired.length === 0,
      reason,
      breaking,
      nonBreaking,
      accepted,
      approvals,
      versions,
      summary: {
        major: breaking.length,
        minor: changes.filter((c) => c.impact === 'minor').length,
        patch: changes.filter((c) => c.impact === 'patch').length,
      },
      files: { baseline: base.label, current: rev.label },
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The gate's rule: breaking changes that no accepted-changes entry approves (`breaking`) are
 * accepted only when the current info.version has a greater major version than the baseline's
 * (both must be semver). The reason also counts the approved ones and names stale and expired entries.
 */
export function verdict(
  breaking: number,
  nonBreaking: number,
  versions: { baseline: string; current: string },
  approvals: Pick<Approvals, 'used' | 'stale' | 'expired'> = { used: [], stale: [], expired: [] },
): { accepted: boolean; reason: string } {
  const base = parseSemver(versions.baseline);
  const cur = parseSemver(versions.current);
  const since = `the base (info.version ${versions.baseline})`;
  const approved = approvals.used.length > 0 ? `, ${approvals.used.length} breaking change(s) approved` : '';
  const problems = [
    approvals.stale.length > 0
      ? `${approvals.stale.length} accepted change(s) match no breaking change (stale: remove them)`
      : '',
    approvals.expired.length > 0
      ? `${approvals.expired.length} accepted change(s) expired (approve again with a new date, or remove them)`
      : '',
  ].filter(Boolean);
  const and = problems.length > 0 ? `; ${problems.join('; ')}` : '';
  if (breaking === 0) {
    return {
      accepted: false,
      reason:
        approvals.used.length > 0
          ? `no unapproved breaking changes since ${since}: ${approvals.used.length} approved (${nonBreaking} non-breaking)${and}`
          : `no breaking changes since ${since} (${nonBreaking} non-breaking)${and}`,
    };
  }
  if (!base || !cur) {
    const bad = !cur ? `info.version '${versions.current}'` : `the baseline's info.version '${versions.baseline}'`;
    return {
      accepted: false,
      reason: `${breaking} breaking change(s) since ${since}${approved}, and ${bad} is not a semver version, so no major bump can accept them${and}`,
    };
  }
  if (cur.major > base.major) {
    return {
      accepted: true,
      reason: `${breaking} breaking change(s) since ${since}${approved}, accepted: info.version ${versions.current} is a new major version${and}`,
    };
  }
  return {
    accepted: false,
    reason:
      `${breaking} breaking change(s) since ${since}${approved} while info.version ${versions.current} keeps major version ${cur.major}: ` +
      `restore compatibility, approve them in the accepted-changes file, or release a new major version (info.version ${base.major + 1}.0.0)${and}`,
  };
}

/**
 * Applies the accepted-changes entries to the breaking changes. An entry the base's file holds as
 * it is approved a change the base already has: carried, not applied (a new change with the same
 * id needs the entry edited in the same pull request). An edited one applies, and is not stale
 * when it matches nothing (a renewal).
 */
function approve(breaking: Change[], accepted: CheckBreakingOptions['accepted']): Approvals {
  const out: Approvals = { used: [], stale: [], expired: [], carried: [] };
  const base = accepted?.baseEntries ?? [];
  const day = accepted?.today ?? today();
  for (const entry of accepted?.entries ?? []) {
    const before = base.find((b) => b.id === entry.id);
    if (before && sameEntry(before, entry)) {
      out.carried.push(entry);
      continue;
    }
    if (isExpired(entry, day)) {
      out.expired.push(entry);
      continue;
    }
    const matches = breaking.filter((c) => c.id === entry.id);
    for (const c of matches) c.approval = entry;
    if (matches.length > 0) out.used.push(entry);
    else if (before) out.carried.push(entry);
    else out.stale.push(entry);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Releases

export interface Semver {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseSemver(version: string): Semver | undefined {
  const m = SEMVER.exec(version);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ? m[4].split('.') : [] };
}

/** Semver precedence: negative when a < b. */
export function compareSemver(a: Semver, b: Semver): number {
  const d = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (d !== 0) return d;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length; // 1.0.0-rc < 1.0.0
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i]!;
    const y = b.prerelease[i]!;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1; // numeric identifiers sort first
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.prerelease.length - b.prerelease.length;
}

export interface Release {
  version: string;
  /** Absolute path. */
  file: string;
}

/** Releases in `dir` (files named <semver>.yaml), oldest first; other files are ignored. */
export async function listReleases(dir = RELEASES_DIR): Promise<Release[]> {
  if (!existsSync(dir)) return [];
  const releases: Array<Release & { semver: Semver }> = [];
  for (const name of await readdir(dir)) {
    const m = /^(.+)\.yaml$/.exec(name);
    const semver = m ? parseSemver(m[1]!) : undefined;
    if (m && semver) releases.push({ version: m[1]!, file: join(dir, name), semver });
  }
  releases.sort((a, b) => compareSemver(a.semver, b.semver));
  return releases.map(({ version, file }) => ({ version, file }));
}

/** The latest release by semver, or undefined when none is recorded. */
export async function latestRelease(dir = RELEASES_DIR): Promise<Release | undefined> {
  return (await listReleases(dir)).at(-1);
}

export class ReleaseExistsError extends Error {
  constructor(readonly file: string) {
    super(
      `${relative(process.cwd(), file)} already exists; a recorded release is not overwritten (use --force to replace it)`,
    );
    this.name = 'ReleaseExistsError';
  }
}

export interface RecordOptions {
  dir?: string;
  /** Replace an existing release file of the same version. */
  force?: boolean;
}

/**
 * Writes <dir>/<info.version>.yaml from a bundle (atomically). The content is the bundle's
 * YAML exactly as `npm run generate` writes it to generated/openapi.yaml, under a release header.
 */
export async function recordRelease(
  bundle: Pick<BundleResult, 'document'> & Partial<Pick<BundleResult, 'yaml'>>,
  options: RecordOptions = {},
): Promise<{ version: string; file: string; replaced: boolean }> {
  const info = bundle.document.info as { version?: unknown } | undefined;
  const version = typeof info?.version === 'string' ? info.version : '';
  if (!parseSemver(version))
    throw new Error(`info.version '${version}' is not a semver version; a release is recorded as <info.version>.yaml`);
  const file = join(options.dir ?? RELEASES_DIR, `${version}.yaml`);
  const replaced = existsSync(file);
  if (replaced && !options.force) throw new ReleaseExistsError(file);
  const body = (bundle.yaml ?? toPortableYaml(bundle.document)).replace(/^(#[^\n]*\n)+/, '');
  const header =
    `# Release ${version} of the contract: the bundle of openapi/openapi.yaml as released, recorded by\n` +
    '# `npm run check:breaking -- --record`. Do not edit: `npm run check:breaking` compares the contract\n' +
    '# with the latest release and fails on a breaking change unless the major version was bumped.\n';
  await writeFileAtomic(file, header + body);
  return { version, file, replaced };
}

// ---------------------------------------------------------------------------------------------
// Running and reading `redocly diff`

interface Prepared {
  /** Absolute path handed to the CLI: the flattened document, in a temporary file. */
  path: string;
  /** For messages. */
  label: string;
  /** The document as given (allOf not merged): where a change's element is declared. */
  document: OpenApiDocument;
  /** Maps a pointer of the document to its file and line (the multi-file source, or the user's file). */
  source?: { root: string; document: OpenApiDocument };
}

/**
 * The document with every `allOf` merged into the schema that holds it (allof-merge, the way
 * oasdiff's --flatten-allof compares): moving properties between a schema and its allOf members
 * keeps the meaning (test/contract/equivalence.unit.test.ts proves it for this contract), but `redocly diff`
 * compares the shapes and would rate such a restructure as breaking. Both sides are flattened,
 * so a real change still shows, in the merged schema.
 */
export function flattenAllOf(document: OpenApiDocument): OpenApiDocument {
  const problems: string[] = [];
  const merged = mergeAllOf(structuredClone(document), {
    rules: openApiMergeRules('3.1.x'),
    mergeRefSibling: true,
    onMergeError: (message, path) => problems.push(`${message} at #/${path.join('/')}`),
    onRefResolveError: (message, path, ref) => problems.push(`${message}: ${ref} at #/${path.join('/')}`),
  }) as OpenApiDocument;
  if (problems.length > 0)
    throw new DiffError(`cannot merge the allOf schemas of the document: ${problems.join('; ')}`);
  return merged;
}

async function prepare(input: ContractInput, tmp: string, side: 'baseline' | 'current'): Promise<Prepared> {
  let document: OpenApiDocument;
  let label: string;
  let source: Prepared['source'];
  if (typeof input === 'string') {
    const path = resolve(input);
    if (!existsSync(path)) throw new DiffError(`${side} not found: ${input}`);
    try {
      document = parseYaml(await readFile(path, 'utf8')) as OpenApiDocument; // JSON is YAML too
    } catch (err) {
      throw new DiffError(`${side} ${input} does not parse: ${(err as Error).message}`);
    }
    label = relative(process.cwd(), path);
    source = { root: path, document };
  } else if ('document' in input && 'root' in input && !('openapi' in input)) {
    const bundle = input as BundleResult;
    document = bundle.document;
    label = `${relative(process.cwd(), bundle.root)} (bundled)`;
    source = { root: bundle.root, document };
  } else {
    document = input as OpenApiDocument;
    label = `${side} document`;
  }
  const path = join(tmp, `${side}.json`); // JSON: the CLI parses it faster than YAML
  await writeFile(path, JSON.stringify(flattenAllOf(document)));
  return { path, label, document, source };
}

interface ReportLocation {
  file: string;
  pointer: string;
  line?: number;
  col?: number;
}

interface ReportChange {
  path: string;
  typeName: string;
  kind: string;
  impact: Impact;
  property?: string;
  verdicts?: Array<{ ruleId: string; impact: Impact; message: string; location?: ReportLocation }>;
  base?: ReportLocation;
  revision?: ReportLocation;
}

interface Report {
  reportVersion: string;
  files?: { base?: string; revision?: string };
  infoVersions?: { base?: string; revision?: string };
  summary: Record<Impact, number>;
  changes: ReportChange[];
}

/**
 * `redocly diff`'s report for the two documents, kept by their content and the config's
 * (support/kept-output.ts): a pair compared before is not compared again.
 */
async function runDiff(base: string, revision: string, config: string, cache: string | false): Promise<Report> {
  if (!existsSync(config)) throw new DiffError(`diff config not found: ${config}`);
  const inputs = { files: [base, revision, config], trees: [], contracts: [], values: [] };
  const kept = cache === false ? undefined : new KeptOutput('redocly-diff', inputs, { dir: cache });
  const text = await kept?.lookup();
  if (text !== undefined) return relocated(JSON.parse(text) as Report, KEPT_SIDES, [base, revision]);
  const report = await redoclyDiff(base, revision, config);
  await kept?.save(JSON.stringify(relocated(report, [base, revision], KEPT_SIDES)));
  return report;
}

/** What a kept report names its two documents by: neither run's temp files. */
const KEPT_SIDES: [string, string] = ['<baseline>', '<current>'];

/** The report with the files of its locations moved from one pair of names of the two documents to another. */
function relocated(report: Report, from: [string, string], to: [string, string]): Report {
  const rename = (file: string | undefined) => {
    const side = file === undefined ? -1 : from.findIndex((name) => name === file || resolve(name) === resolve(file));
    return side < 0 ? file : to[side];
  };
  const move = (loc: ReportLocation | undefined) => loc && { ...loc, file: rename(loc.file)! };
  return {
    ...report,
    files: report.files && { base: rename(report.files.base), revision: rename(report.files.revision) },
    changes: report.changes.map((change) => ({
      ...change,
      base: move(change.base),
      revision: move(change.revision),
      verdicts: change.verdicts?.map((verdict) => ({ ...verdict, location: move(verdict.location) })),
    })),
  };
}

/** `redocly diff` of two documents, its report checked. */
async function redoclyDiff(base: string, revision: string, config: string): Promise<Report> {
  // --fail-on none: the exit code then says only whether the CLI could compare; this module
  // decides what fails. --lint-config error: a broken config must not silently drop the rules.
  const args = [
    'diff',
    base,
    revision,
    '--format',
    'json',
    '--fail-on',
    'none',
    '--config',
    config,
    '--lint-config',
    'error',
  ];
  const run = await runRedocly(args);
  const stderr = cleanStderr(run.stderr);
  if (run.code !== 0) throw new DiffError(`redocly diff failed (exit ${run.code}): ${stderr || 'no message'}`);
  // Without diff rules every change would be `patch` and nothing breaking: refuse that.
  if (/No diff rules are on/.test(stderr))
    throw new DiffError(`redocly diff ran without diff rules (config ${config}): ${stderr}`);
  let report: Report;
  try {
    report = JSON.parse(run.stdout) as Report;
  } catch {
    throw new DiffError(`redocly diff printed no JSON report: ${stderr || run.stdout.slice(0, 500)}`);
  }
  if (report.reportVersion !== '1' || !Array.isArray(report.changes)) {
    throw new DiffError(
      `unexpected redocly diff report (reportVersion ${report.reportVersion}); this code reads version 1`,
    );
  }
  return report;
}

type Locate = (loc: ReportLocation | undefined) => ChangeLocation | undefined;

/**
 * Maps report locations (pointers into the allOf-merged documents) to where a reader edits: the
 * element's declaration in the document as given (a property of a merged schema is declared in an
 * `allOf` member), then its file and line in the release file or the multi-file source. Files are
 * named relative to the first of `projects` that holds them (`openapi/…`), else to the working
 * directory.
 */
function locator(base: Prepared, rev: Prepared, projects: Array<string | undefined>): Locate {
  const sources = new Map<Prepared, SourceLocator>();
  const name = (file: string) => {
    const project = projects.find((p) => p !== undefined && !relative(p, file).startsWith('..'));
    return (project ? relative(project, file) : relative(process.cwd(), file)).split('\\').join('/');
  };
  return (loc) => {
    if (!loc) return undefined;
    const file = resolve(loc.file);
    const side = file === rev.path ? rev : file === base.path ? base : undefined;
    const which = side === rev ? 'current' : 'baseline';
    const tokens = side ? declaredNear(side.document, pointerTokens(loc.pointer)) : pointerTokens(loc.pointer);
    const pointer = toPointer(tokens);
    if (side?.source) {
      let source = sources.get(side);
      if (!source) {
        source = new SourceLocator(side.source.root, side.source.document);
        sources.set(side, source);
      }
      const hit = source.locate(tokens);
      if (hit) return { file: name(hit.file), line: hit.line, col: hit.col, pointer, side: which };
    }
    return { pointer, side: which };
  };
}

const pointerTokens = (pointer: string): string[] => parsePointer(pointer.replace(/^#\/$/, '#'));

/** declaredAt() of the deepest ancestor declared (a removed keyword is not), with the rest of the path. */
function declaredNear(document: OpenApiDocument, tokens: string[]): (string | number)[] {
  for (let n = tokens.length; n > 0; n--) {
    const found = declaredAt(document, tokens.slice(0, n));
    if (found) return [...found, ...tokens.slice(n)];
  }
  return tokens;
}

/**
 * The changes of one report entry: one per rule finding (an enum that lost one value and gained
 * another is two changes, each with its own id), or one unrated change.
 */
function toChanges(c: ReportChange, locate: Locate): Change[] {
  const findings: Finding[] = (c.verdicts ?? []).map((v) => ({
    ruleId: v.ruleId,
    impact: v.impact,
    message: v.message,
    location: locate(v.location),
  }));
  const node = c.kind === 'removed' ? c.base : (c.revision ?? c.base);
  // an edited keyword is where the reader looks, not the node that holds it
  const at =
    node && c.kind === 'modified' && c.property
      ? { ...node, pointer: `${node.pointer}/${escapeToken(c.property)}` }
      : node;
  const nodeLocation = locate(at);
  const change = (rule: string, impact: Impact, own: Finding[], message: string): Change => {
    const location = own.find((f) => f.location)?.location ?? nodeLocation;
    return {
      id: `${rule}@${location?.pointer ?? c.path}`,
      impact,
      kind: c.kind,
      typeName: c.typeName,
      path: c.path,
      paths: [c.path],
      property: c.property || undefined,
      findings: own,
      message,
      location,
    };
  };
  if (findings.length > 0) return findings.map((f) => change(f.ruleId, f.impact, [f], f.message));
  const name = pointerTokens(c.path).at(-1);
  const what = `${c.typeName}${name && !/^\d+$/.test(name) ? ` \`${name}\`` : ''}`;
  const message = c.property ? `\`${c.property}\` of ${what} ${c.kind}.` : `${what} ${c.kind}.`;
  return [change(`${c.typeName}-${c.property ? `${c.property}-` : ''}${c.kind}`, c.impact, [], message)];
}

/**
 * Each change once: redocly diff reports a change of a component at every place that uses it
 * once allOf are merged (a property added to a schema that five others include shows six times);
 * they have one element, so one id and side. The first keeps the places of the others.
 */
function once(changes: Change[]): Change[] {
  const byKey = new Map<string, Change>();
  for (const c of changes) {
    const key = `${c.location?.side ?? ''}|${c.id}|${c.impact}`;
    const first = byKey.get(key);
    if (!first) byKey.set(key, c);
    else if (!first.paths.includes(c.path)) first.paths.push(c.path);
  }
  return [...byKey.values()];
}

/** `file:line:col` (or the pointer when the document has no file), for messages. */
export function formatLocation(loc: ChangeLocation | undefined): string {
  if (!loc) return '(no location)';
  if (!loc.file) return `${loc.side} ${loc.pointer}`;
  return `${loc.file}:${loc.line ?? 1}:${loc.col ?? 1}`;
}
