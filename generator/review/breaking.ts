import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { merge as mergeAllOf, openApiMergeRules } from 'allof-merge';
import { parse as parseYaml } from 'yaml';
import { parsePointer } from '../../tooling/openapi/walker.js';
import { type BundleResult, type OpenApiDocument, toPortableYaml } from '../steps/bundle.js';
import { writeFileAtomic } from '../support/fs.js';
import { REPO_ROOT } from '../support/paths.js';
import { cleanStderr, runRedocly } from '../support/redocly.js';
import { SourceLocator } from '../support/sourcemap.js';

// The breaking-change gate: the contract against the last released contract, kept as a
// single-file bundle in openapi/releases/<info.version>.yaml. Redocly's `diff` command finds and
// rates the changes (its diff rules, `diff-recommended` in redocly.diff.yaml); this module picks
// the baseline, reads the JSON report, and decides: any `major` change is breaking, and is only
// accepted when info.version starts a new major version over the baseline's.

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
  /** JSON pointer in the bundled document (base or revision, see `side`). */
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
  /** The changed keyword of a modified node (`enum`, `maxLength`, ...). */
  property?: string;
  /** The rule findings (every breaking change has at least one; unrated changes none). */
  findings: Finding[];
  /** One line: the findings' messages, or a description of an unrated change. */
  message: string;
  /** Where the change is: the first finding's location, else the changed node. */
  location?: ChangeLocation;
}

export interface BreakingResult {
  /** No breaking change, or breaking changes accepted by a major version bump. */
  ok: boolean;
  /** One sentence saying why ok is what it is. */
  reason: string;
  breaking: Change[];
  nonBreaking: Change[];
  /** There are breaking changes, and info.version's major is greater than the baseline's. */
  accepted: boolean;
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
    const report = await runDiff(base.path, rev.path, options.config ?? DIFF_CONFIG);
    const locate = locator(base, rev);
    const changes = report.changes.map((c) => toChange(c, locate));
    const breaking = changes.filter((c) => c.impact === 'major');
    const nonBreaking = changes.filter((c) => c.impact !== 'major');
    const versions = {
      baseline: String(report.infoVersions?.base ?? ''),
      current: String(report.infoVersions?.revision ?? ''),
    };
    const { accepted, reason } = verdict(breaking.length, nonBreaking.length, versions);
    return {
      ok: breaking.length === 0 || accepted,
      reason,
      breaking,
      nonBreaking,
      accepted,
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
 * The gate's rule: breaking changes are accepted only when the current info.version has a
 * greater major version than the baseline's (both must be semver).
 */
export function verdict(
  breaking: number,
  nonBreaking: number,
  versions: { baseline: string; current: string },
): { accepted: boolean; reason: string } {
  const base = parseSemver(versions.baseline);
  const cur = parseSemver(versions.current);
  const since = `release ${versions.baseline}`;
  if (breaking === 0) {
    return { accepted: false, reason: `no breaking changes since ${since} (${nonBreaking} non-breaking)` };
  }
  if (!base || !cur) {
    const bad = !cur ? `info.version '${versions.current}'` : `the baseline's info.version '${versions.baseline}'`;
    return {
      accepted: false,
      reason: `${breaking} breaking change(s) since ${since}, and ${bad} is not a semver version, so no major bump can accept them`,
    };
  }
  if (cur.major > base.major) {
    return {
      accepted: true,
      reason: `${breaking} breaking change(s) since ${since}, accepted: info.version ${versions.current} is a new major version`,
    };
  }
  return {
    accepted: false,
    reason:
      `${breaking} breaking change(s) since ${since} while info.version ${versions.current} keeps major version ${cur.major}: ` +
      `restore compatibility, or release a new major version (info.version ${base.major + 1}.0.0)`,
  };
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
  return { path, label, ...(source ? { source } : {}) };
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
  infoVersions?: { base?: string; revision?: string };
  summary: Record<Impact, number>;
  changes: ReportChange[];
}

async function runDiff(base: string, revision: string, config: string): Promise<Report> {
  if (!existsSync(config)) throw new DiffError(`diff config not found: ${config}`);
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
 * Maps report locations (pointers into the flattened documents) to the user's files: the release
 * file, or the multi-file source; a pointer into a merged schema maps to the nearest node the
 * source has.
 */
function locator(base: Prepared, rev: Prepared): Locate {
  const sources = new Map<Prepared, SourceLocator>();
  return (loc) => {
    if (!loc) return undefined;
    const file = resolve(loc.file);
    const side = file === rev.path ? rev : file === base.path ? base : undefined;
    const which = side === rev ? 'current' : 'baseline';
    const pointer = loc.pointer;
    if (side?.source) {
      let source = sources.get(side);
      if (!source) {
        source = new SourceLocator(side.source.root, side.source.document);
        sources.set(side, source);
      }
      const hit = source.locate(pointerTokens(pointer));
      if (hit) return { file: relative(process.cwd(), hit.file), line: hit.line, col: hit.col, pointer, side: which };
    }
    return { pointer, side: which };
  };
}

const pointerTokens = (pointer: string): string[] => parsePointer(pointer.replace(/^#\/$/, '#'));

function toChange(c: ReportChange, locate: Locate): Change {
  const findings: Finding[] = (c.verdicts ?? []).map((v) => ({
    ruleId: v.ruleId,
    impact: v.impact,
    message: v.message,
    location: locate(v.location),
  }));
  const node = c.kind === 'removed' ? c.base : (c.revision ?? c.base);
  const name = pointerTokens(c.path).at(-1);
  const what = `${c.typeName}${name && !/^\d+$/.test(name) ? ` \`${name}\`` : ''}`;
  const message =
    findings.length > 0
      ? findings.map((f) => f.message).join(' ')
      : c.property
        ? `\`${c.property}\` of ${what} ${c.kind}.`
        : `${what} ${c.kind}.`;
  return {
    impact: c.impact,
    kind: c.kind,
    typeName: c.typeName,
    path: c.path,
    ...(c.property ? { property: c.property } : {}),
    findings,
    message,
    location: findings.find((f) => f.location)?.location ?? locate(node),
  };
}

/** `file:line:col` (or the pointer when the document has no file), for messages. */
export function formatLocation(loc: ChangeLocation | undefined): string {
  if (!loc) return '(no location)';
  if (!loc.file) return `${loc.side} ${loc.pointer}`;
  return `${loc.file}:${loc.line ?? 1}:${loc.col ?? 1}`;
}
