import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { BundleError, type BundleResult, bundleContract } from '../steps/bundle.js';
import { checkGuideLinks } from '../steps/guide-links.js';
import { DEFAULT_OUT, DEFAULT_ROOT, GUIDES_DIR, REDOCLY_CONFIG, SPECTRAL_RULESET } from '../support/paths.js';
import { cleanStderr, parseCliProblems, runRedocly } from '../support/redocly.js';
import { LintWorker } from './checks.js';
import { type LintProblem, rel } from './problems.js';
import type { SyntaxProblem } from './source-syntax.js';

export { formatProblem, type LintProblem, type Severity } from './problems.js';

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
   * Aborting kills the Redocly processes and lint's worker thread, stops between stages and
   * rejects with the signal's reason.
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

/** One lint: its paths, the times it reports, its abort. */
interface Lint {
  root: string;
  bundleName: string;
  rulesetPath: string;
  timingsMs: Record<string, number>;
  signal?: AbortSignal;
  timed<T>(name: string, work: Promise<T>): Promise<T>;
  /** Between stages: lets the event loop deliver an abort (a watcher's event) before the next one. */
  checkpoint(): Promise<void>;
}

/**
 * Redocly on the multi-file SOURCE, then Spectral on the BUNDLE (Spectral 6 misreads multi-file
 * 3.1 roots). Redocly's lint and the bundling run as processes while the worker thread
 * (checks.ts) checks the YAML syntax of the source and loads Spectral's ruleset; once the bundle
 * exists the worker runs Spectral and the example check. Results come back in the order YAML,
 * Redocly, bundle, Spectral, examples, guide links.
 */
export async function lintContract(options: LintOptions = {}): Promise<LintResult> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const redoclyConfig = options.redoclyConfig ?? REDOCLY_CONFIG;
  const guidesDir = options.guidesDir ?? (root === resolve(DEFAULT_ROOT) ? GUIDES_DIR : false);
  const lint = lintRun(root, options);
  const bundling =
    options.bundle ??
    bundleContract({ root, config: fs.existsSync(redoclyConfig) ? redoclyConfig : false, signal: lint.signal });
  const worker = new LintWorker({ root, rulesetPath: lint.rulesetPath, bundleName: lint.bundleName });
  // Redocly's lint runs beside the bundle and then beside the worker's checks, which start as soon as
  // the bundle exists: where Redocly's commands share one host, its lint comes after the bundle.
  const redoclyRun = lint.timed('redocly', redoclyLint(root, redoclyConfig, lint.signal));
  redoclyRun.catch(() => undefined); // awaited below, after the bundle
  try {
    const bundled = await lint.timed(
      'bundle',
      bundling.catch((e: unknown) => e),
    );
    await lint.checkpoint();
    if (bundled instanceof Error && !(bundled instanceof BundleError)) throw bundled; // not a contract problem (e.g. the CLI could not be started)
    const bundle = bundled instanceof BundleError ? undefined : (bundled as BundleResult);
    const text = bundle && { root: bundle.root, json: bundle.json, yaml: bundle.yaml };
    const [redocly, checked] = await Promise.all([redoclyRun, lint.timed('checks', worker.check(text, lint.signal))]);
    await lint.checkpoint();
    Object.assign(lint.timingsMs, checked.timingsMs);
    const problems = [
      ...sourceProblems(lint, checked.syntax, redocly, bundled instanceof BundleError ? bundled : undefined),
      ...(checked.rulesetError === undefined ? [] : [rulesetProblem(lint, checked.rulesetError)]),
      ...checked.problems,
      ...(bundle && guidesDir ? guideProblems(lint, bundle, guidesDir) : []),
    ];
    dedupe(problems);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.filter((p) => p.severity === 'warning').length;
    return { problems, errors, warnings, ok: errors === 0 && warnings === 0, timingsMs: lint.timingsMs };
  } finally {
    await worker.end();
  }
}

function lintRun(root: string, options: LintOptions): Lint {
  const { signal } = options;
  const timingsMs: Record<string, number> = {};
  return {
    root,
    bundleName: rel(join(options.out ?? DEFAULT_OUT, 'openapi.yaml')),
    rulesetPath: options.spectralRuleset ?? SPECTRAL_RULESET,
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

/** A broken .spectral.yaml or house-rule function fails the lint. */
const rulesetProblem = (lint: Lint, message: string): LintProblem => ({
  tool: 'spectral',
  file: rel(lint.rulesetPath),
  line: 1,
  col: 1,
  severity: 'error',
  rule: 'spectral-ruleset',
  message: message.split('\n')[0]!,
});

function guideProblems(lint: Lint, bundle: BundleResult, guidesDir: string): LintProblem[] {
  const t0 = performance.now();
  const problems = checkGuideLinks(bundle.document, guidesDir).map(
    (p): LintProblem => ({ tool: 'guides', severity: 'error', ...p, file: rel(p.file) }),
  );
  lint.timingsMs.guides = Math.round(performance.now() - t0);
  return problems;
}

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
