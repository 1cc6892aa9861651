import * as fs from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { ISpectralDiagnostic } from '@stoplight/spectral-core';
import { locate, parsePointer, toPointer } from '../../tooling/openapi/walker.js';
import { BundleError, type BundleResult, bundleContract } from '../steps/bundle.js';
import { checkGuideLinks } from '../steps/guide-links.js';
import { DEFAULT_OUT, DEFAULT_ROOT, GUIDES_DIR, REDOCLY_CONFIG, SPECTRAL_RULESET } from '../support/paths.js';
import { cleanStderr, parseCliProblems, runRedocly } from '../support/redocly.js';
import { SourceFiles, SourceLocator } from '../support/sourcemap.js';
import { checkExamples, createSchemaValidator, valuePath } from './examples.js';
import { checkSourceSyntax, type SyntaxProblem } from './source-syntax.js';
import { SpectralWorker } from './spectral.js';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export interface LintProblem {
  tool: 'redocly' | 'bundle' | 'spectral' | 'yaml' | 'examples' | 'guides';
  file: string; // relative to the working directory
  line: number;
  col: number;
  severity: Severity;
  rule: string;
  message: string;
  /** Spectral only: where the problem sits in the bundle (`npm run generate` writes the same bytes). */
  bundle?: { pointer: string; line: number };
}

export interface LintOptions {
  root?: string;
  redoclyConfig?: string;
  spectralRuleset?: string;
  /** Used only to name bundle locations in messages (default generated/). */
  out?: string;
  /** A bundle (or its promise) made by the caller from the same root, so the pipeline bundles once. */
  bundle?: Promise<BundleResult>;
  /** Guides whose links into the reference are checked; default docs/guides/ for the contract's own root, else none. */
  guidesDir?: string | false;
  /**
   * Aborting kills the Redocly processes and Spectral's worker, stops between stages and rejects
   * with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface LintResult {
  problems: LintProblem[];
  errors: number;
  warnings: number;
  /** Zero errors and zero warnings: the bar. */
  ok: boolean;
  timingsMs: Record<string, number>;
}

const SEVERITIES: Severity[] = ['error', 'warning', 'info', 'hint'];
const rel = (p: string) => relative(process.cwd(), p) || '.';

/** One lint: its paths, the source files it parses once, the times it reports, its abort. */
interface Lint {
  root: string;
  bundleName: string;
  rulesetPath: string;
  files: SourceFiles;
  timingsMs: Record<string, number>;
  signal?: AbortSignal;
  timed<T>(name: string, work: Promise<T>): Promise<T>;
  /** Between stages: lets the event loop deliver an abort (a watcher's event) before the next one. */
  checkpoint(): Promise<void>;
}

/**
 * Redocly on the multi-file SOURCE, then Spectral on the BUNDLE (Spectral 6 misreads multi-file
 * 3.1 roots). Redocly's lint, the bundling and the YAML syntax check run concurrently, and Spectral
 * loads its ruleset meanwhile in a worker thread; results come back in the order YAML, Redocly,
 * bundle, Spectral, examples, guide links.
 */
export async function lintContract(options: LintOptions = {}): Promise<LintResult> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const redoclyConfig = options.redoclyConfig ?? REDOCLY_CONFIG;
  const guidesDir = options.guidesDir ?? (root === resolve(DEFAULT_ROOT) ? GUIDES_DIR : false);
  const lint = lintRun(root, options);
  const bundling =
    options.bundle ??
    bundleContract({ root, config: fs.existsSync(redoclyConfig) ? redoclyConfig : false, signal: lint.signal });
  const spectral = new SpectralWorker(lint.rulesetPath);
  try {
    const [redocly, bundled, syntax] = await Promise.all([
      lint.timed('redocly', redoclyLint(root, redoclyConfig, lint.signal)),
      lint.timed(
        'bundle',
        bundling.catch((e: unknown) => e),
      ),
      // on this thread while the Redocly processes run (after they spawned); timed alone, not the wait
      new Promise<SyntaxProblem[]>((done) =>
        setImmediate(() => {
          const t0 = performance.now();
          const found = checkSourceSyntax(root, lint.files);
          lint.timingsMs.yaml = Math.round(performance.now() - t0);
          done(found);
        }),
      ),
    ]);
    await lint.checkpoint();
    if (bundled instanceof Error && !(bundled instanceof BundleError)) throw bundled; // not a contract problem (e.g. the CLI could not be started)
    const problems = sourceProblems(lint, syntax, redocly, bundled instanceof BundleError ? bundled : undefined);
    const bundle = bundled instanceof BundleError ? undefined : (bundled as BundleResult);
    problems.push(...(await bundleProblems(lint, spectral, bundle, guidesDir)));
    dedupe(problems);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    return { problems, errors, warnings, ok: errors === 0 && warnings === 0, timingsMs: lint.timingsMs };
  } finally {
    await spectral.end();
  }
}

function lintRun(root: string, options: LintOptions): Lint {
  const { signal } = options;
  const timingsMs: Record<string, number> = {};
  return {
    root,
    bundleName: rel(join(options.out ?? DEFAULT_OUT, 'openapi.yaml')),
    rulesetPath: options.spectralRuleset ?? SPECTRAL_RULESET,
    files: new SourceFiles(), // parsed once: the syntax check, then the source map
    timingsMs,
    signal,
    async timed(name, work) {
      const t0 = performance.now();
      try {
        return await work;
      } finally {
        timingsMs[name] = Math.round(performance.now() - t0);
      }
    },
    async checkpoint() {
      if (!signal) return;
      await new Promise((r) => setImmediate(r));
      signal.throwIfAborted();
    },
  };
}

/**
 * The problems of the source: YAML syntax, Redocly's, and the bundler's that Redocly did not
 * report. A file that is not YAML is reported once, by the syntax check: Redocly's and the
 * bundler's reports of it (in the file, and at every $ref to it) are the same mistake again.
 */
function sourceProblems(
  lint: Lint,
  syntax: SyntaxProblem[],
  redoclyAll: LintProblem[],
  bundleError: BundleError | undefined,
): LintProblem[] {
  const cascade = (p: { file: string; message: string }) =>
    syntax.some((s) => p.file === rel(s.file) || p.message.includes(s.file));
  const redocly = redoclyAll.filter((p) => !cascade(p));
  const problems: LintProblem[] = [
    ...syntax.map(
      (s): LintProblem => ({ tool: 'yaml', severity: 'error', rule: 'yaml-syntax', ...s, file: rel(s.file) }),
    ),
    ...redocly,
  ];
  if (!bundleError) return problems;
  // Redocly lint usually reports the same unresolved ref / YAML error; add only new ones.
  const seen = new Set(redocly.map((p) => `${p.file}:${p.line}`));
  const own = bundleError.problems.filter((p) => !cascade(p));
  for (const p of own) {
    if (!seen.has(`${p.file}:${p.line}`)) problems.push({ tool: 'bundle', severity: 'error', rule: 'bundle', ...p });
  }
  if (own.length > 0 || syntax.length === 0) {
    const why = bundleError.problems.length ? '' : `: ${bundleError.message}`;
    problems.push({
      tool: 'bundle',
      file: rel(lint.root),
      line: 1,
      col: 1,
      severity: 'error',
      rule: 'bundle',
      message: `bundling failed, Spectral and the example and guide-link checks not run${why}`,
    });
  }
  return problems;
}

/**
 * Spectral's, the examples' and the guide links' problems, on the bundle; without one, only
 * whether the Spectral ruleset loads (a broken .spectral.yaml or house rule must fail the lint).
 */
async function bundleProblems(
  lint: Lint,
  spectral: SpectralWorker,
  bundle: BundleResult | undefined,
  guidesDir: string | false,
): Promise<LintProblem[]> {
  const rulesetProblem = (error: Error): LintProblem => ({
    tool: 'spectral',
    file: rel(lint.rulesetPath),
    line: 1,
    col: 1,
    severity: 'error',
    rule: 'spectral-ruleset',
    message: error.message.split('\n')[0]!,
  });
  const outcome = await lint.timed('spectral', spectral.run(bundle?.yaml, resolve(lint.bundleName), lint.signal));
  if (outcome instanceof Error) return [rulesetProblem(outcome)];
  if (!bundle) return [];
  const locator = new SourceLocator(bundle.root, bundle.document, lint.files);
  const problems = spectralProblems(outcome, lint.bundleName, locator);
  await lint.checkpoint();
  let t0 = performance.now();
  problems.push(...exampleProblems(bundle, locator, lint.bundleName));
  lint.timingsMs.examples = Math.round(performance.now() - t0);
  if (guidesDir) {
    t0 = performance.now();
    for (const p of checkGuideLinks(bundle.document, guidesDir))
      problems.push({ tool: 'guides', severity: 'error', ...p, file: rel(p.file) });
    lint.timingsMs.guides = Math.round(performance.now() - t0);
  }
  return problems;
}

export function formatProblem(p: LintProblem): string {
  const where = p.bundle ? ` (bundle ${bundleRef(p)})` : '';
  return `${p.file}:${p.line}:${p.col} ${p.severity} ${p.rule} ${p.message}${where}`;
}
const bundleRef = (p: LintProblem) => `${p.bundle!.pointer}, line ${p.bundle!.line}`;

/** `redocly lint` on one or more files (OpenAPI or Arazzo), its problems at their files and lines. */
export async function redoclyLint(
  roots: string | string[],
  config: string,
  signal?: AbortSignal,
): Promise<LintProblem[]> {
  const files = typeof roots === 'string' ? [roots] : roots;
  const root = files[0] ?? '.';
  const args = ['lint', ...files, '--format', 'json', '--max-problems', '100000', '--lint-config', 'error'];
  if (fs.existsSync(config)) args.push('--config', config);
  const run = await runRedocly(args, process.cwd(), signal);
  let problems: RedoclyProblem[];
  try {
    // one JSON report per file, one after the other: `}` and `{` on lines of their own between them
    const reports = JSON.parse(`[${run.stdout.replace(/^\}\n?\{$/gm, '},{')}]`) as Array<{
      problems?: RedoclyProblem[];
    }>;
    problems = reports.flatMap((r) => r.problems ?? []);
    if (reports.length < files.length || (run.code !== 0 && !problems.some((p) => p.severity === 'error')))
      throw new Error('a file was not linted');
  } catch {
    // no JSON: the CLI stopped before linting (root does not parse, invalid redocly.yaml, crash)
    const parsed = parseCliProblems(cleanStderr(run.stderr));
    if (parsed.length > 0)
      return parsed.map((p) => ({ tool: 'redocly' as const, severity: 'error' as const, rule: 'syntax', ...p }));
    return [
      {
        tool: 'redocly',
        file: rel(config),
        line: 1,
        col: 1,
        severity: 'error',
        rule: 'redocly',
        message: cleanStderr(run.stderr) || `redocly lint exited with ${run.code}`,
      },
    ];
  }
  return problems.map((p) => {
    const loc = p.location?.[0];
    return {
      tool: 'redocly' as const,
      file: loc?.source?.ref ?? rel(root),
      line: loc?.start?.line ?? 1,
      col: loc?.start?.col ?? 1,
      severity: p.severity === 'error' ? 'error' : 'warning',
      rule: p.ruleId,
      message: p.message,
    };
  });
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: Array<{ source?: { ref?: string }; start?: { line: number; col: number } }>;
}

function spectralProblems(results: ISpectralDiagnostic[], bundleName: string, locator: SourceLocator): LintProblem[] {
  const problems = results.map((r): LintProblem => {
    const src = locator.locate(r.path);
    const bundleLine = r.range.start.line + 1;
    return {
      tool: 'spectral',
      file: src ? rel(src.file) : bundleName,
      line: src ? src.line : bundleLine,
      col: src ? src.col : r.range.start.character + 1,
      severity: SEVERITIES[r.severity] ?? 'error',
      rule: String(r.code),
      message: r.message,
      bundle: { pointer: toPointer(r.path), line: bundleLine },
    };
  });
  return problems.sort(bySource);
}

const bySource = (a: LintProblem, b: LintProblem) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.rule.localeCompare(b.rule);

/**
 * example-invalid and example-undeclared-property (generator/lint/examples.ts, the check the tests
 * use) at the offending member's key in the example's source file. A shared example used the
 * same way in several places is one problem.
 */
function exampleProblems(bundle: BundleResult, locator: SourceLocator, bundleName: string): LintProblem[] {
  const schemaName = (pointer: string): string => {
    const tokens = parsePointer(pointer);
    if (tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas') return `schema ${tokens[2]}`;
    const src = locator.locate(tokens);
    return src ? `the schema at ${rel(src.file)}:${src.line}` : `the schema at ${pointer}`;
  };
  const problems = checkExamples(bundle.document, createSchemaValidator(bundle.document, { compileOnce: true })).map(
    (f): LintProblem => {
      const path = [...f.case.at, ...f.path];
      const src = locator.locate(path);
      const member = f.path.length > 0 ? valuePath(f.path).replace(/^\$\.?/, '') : 'the example';
      const schema = schemaName(resolveSchema(bundle.document, f.case.schemaPointer));
      const message =
        f.rule === 'example-undeclared-property'
          ? `property ${member} is not declared by ${schema}`
          : `${member} ${f.detail} (against ${schema})`;
      if (!src)
        return {
          tool: 'examples',
          file: bundleName,
          line: 1,
          col: 1,
          severity: 'error',
          rule: f.rule,
          message: `${message} (at ${toPointer(path)})`,
        };
      return {
        tool: 'examples',
        file: rel(src.file),
        line: src.line,
        col: src.col,
        severity: 'error',
        rule: f.rule,
        message,
      };
    },
  );
  return problems.sort(bySource);
}

/** The pointer a schema really lives at, through a `$ref` (a media type's `$ref` to a component names the component). */
function resolveSchema(document: unknown, pointer: string): string {
  try {
    return locate(document, pointer).pointer;
  } catch {
    return pointer;
  }
}

/** Drops repeated problems (Redocly reports some once per path that reaches them), in place. */
function dedupe(problems: LintProblem[]): void {
  const seen = new Set<string>();
  let kept = 0;
  for (const p of problems) {
    const key = `${p.file}:${p.line}:${p.col} ${p.severity} ${p.rule} ${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems[kept++] = p;
  }
  problems.length = kept;
}
