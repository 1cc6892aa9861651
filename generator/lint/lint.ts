import * as fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ISpectralDiagnostic, Ruleset } from '@stoplight/spectral-core';
import { locate, parsePointer, toPointer } from '../../tooling/openapi/walker.js';
import { BundleError, type BundleResult, bundleContract } from '../steps/bundle.js';
import { checkGuideLinks } from '../steps/guide-links.js';
import { DEFAULT_OUT, DEFAULT_ROOT, GUIDES_DIR, REDOCLY_CONFIG, SPECTRAL_RULESET } from '../support/paths.js';
import { runNode } from '../support/process.js';
import { cleanStderr, parseCliProblems, runRedocly } from '../support/redocly.js';
import { SourceFiles, SourceLocator } from '../support/sourcemap.js';
import { checkExamples, createSchemaValidator, valuePath } from './examples.js';
import { checkSourceSyntax, type SyntaxProblem } from './source-syntax.js';

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
   * Aborting kills the Redocly processes, stops between stages and rejects with the signal's
   * reason. With a signal, Spectral runs in a child process too: its run is one synchronous
   * stretch of most of a second, which would hold up the abort and whatever comes next.
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

const require = createRequire(import.meta.url);

const SEVERITIES: Severity[] = ['error', 'warning', 'info', 'hint'];
const rel = (p: string) => relative(process.cwd(), p) || '.';

/**
 * Redocly on the multi-file SOURCE, then Spectral on the BUNDLE (Spectral 6 misreads multi-file
 * 3.1 roots). The three slow steps (Redocly lint, bundling, loading the Spectral ruleset) run
 * concurrently; results come back in the order Redocly, bundle, Spectral.
 */
export async function lintContract(options: LintOptions = {}): Promise<LintResult> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const redoclyConfig = options.redoclyConfig ?? REDOCLY_CONFIG;
  const rulesetPath = options.spectralRuleset ?? SPECTRAL_RULESET;
  const bundleName = rel(join(options.out ?? DEFAULT_OUT, 'openapi.yaml'));
  const guidesDir = options.guidesDir ?? (root === resolve(DEFAULT_ROOT) ? GUIDES_DIR : false);
  const files = new SourceFiles(); // parsed once: the syntax check, then the source map
  const timingsMs: Record<string, number> = {};
  const { signal } = options;
  // Between stages: lets the event loop deliver an abort (a watcher's event) before the next one.
  const checkpoint = async () => {
    if (!signal) return;
    await new Promise((r) => setImmediate(r));
    signal.throwIfAborted();
  };
  const timed = async <T>(name: string, p: Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await p;
    } finally {
      timingsMs[name] = Math.round(performance.now() - t0);
    }
  };

  const bundling =
    options.bundle ??
    bundleContract({
      root,
      config: fs.existsSync(redoclyConfig) ? redoclyConfig : false,
      ...(signal ? { signal } : {}),
    });
  // with a signal: Spectral in a child process, from the moment the bundle exists
  const spectralProcess = signal
    ? timed(
        'spectral',
        bundling.then((b) => spectralInChildProcess(b.yaml, rulesetPath, resolve(bundleName), signal)),
      )
    : undefined;
  spectralProcess?.catch(() => undefined);
  const [redoclyAll, bundled, ruleset, syntax] = await Promise.all([
    timed('redocly', redoclyLint(root, redoclyConfig, signal)),
    timed(
      'bundle',
      bundling.catch((e: unknown) => e),
    ),
    spectralProcess
      ? undefined
      : timed(
          'spectral-ruleset',
          loadRuleset(rulesetPath).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        ),
    // on this thread while the Redocly processes run (after they spawned); timed alone, not the wait
    new Promise<SyntaxProblem[]>((done) =>
      setImmediate(() => {
        const t0 = performance.now();
        const found = checkSourceSyntax(root, files);
        timingsMs.yaml = Math.round(performance.now() - t0);
        done(found);
      }),
    ),
  ]);
  await checkpoint();

  // A file that is not YAML is reported once, by the syntax check: Redocly's and the bundler's
  // reports of it (in the file, and at every $ref to it) are the same mistake again.
  const cascade = (p: { file: string; message: string }) =>
    syntax.some((s) => p.file === rel(s.file) || p.message.includes(s.file));
  const redocly = redoclyAll.filter((p) => !cascade(p));
  const problems: LintProblem[] = [
    ...syntax.map(
      (s): LintProblem => ({ tool: 'yaml', severity: 'error', rule: 'yaml-syntax', ...s, file: rel(s.file) }),
    ),
    ...redocly,
  ];
  if (bundled instanceof BundleError) {
    // Redocly lint usually reports the same unresolved ref / YAML error; add only new ones.
    const seen = new Set(redocly.map((p) => `${p.file}:${p.line}`));
    const own = bundled.problems.filter((p) => !cascade(p));
    for (const p of own) {
      if (!seen.has(`${p.file}:${p.line}`)) problems.push({ tool: 'bundle', severity: 'error', rule: 'bundle', ...p });
    }
    if (own.length > 0 || syntax.length === 0) {
      const why = bundled.problems.length ? '' : `: ${bundled.message}`;
      problems.push({
        tool: 'bundle',
        file: rel(root),
        line: 1,
        col: 1,
        severity: 'error',
        rule: 'bundle',
        message: `bundling failed, Spectral and the example and guide-link checks not run${why}`,
      });
    }
  } else if (bundled instanceof Error) {
    throw bundled; // not a contract problem (e.g. the CLI could not be started)
  }
  const rulesetProblem = (error: Error): LintProblem => ({
    tool: 'spectral',
    file: rel(rulesetPath),
    line: 1,
    col: 1,
    severity: 'error',
    rule: 'spectral-ruleset',
    message: error.message.split('\n')[0]!,
  });
  if (ruleset instanceof Error) {
    // a broken .spectral.yaml or house-rule function must fail the lint, not crash it
    problems.push(rulesetProblem(ruleset));
  }
  if (!(bundled instanceof Error)) {
    const bundle = bundled as BundleResult;
    const locator = new SourceLocator(bundle.root, bundle.document, files);
    if (spectralProcess) {
      const outcome = await spectralProcess;
      if (outcome instanceof Error) problems.push(rulesetProblem(outcome));
      else problems.push(...spectralProblems(outcome, bundleName, locator));
    } else if (ruleset && !(ruleset instanceof Error)) {
      const t0 = performance.now();
      const results = await spectralDiagnostics(bundle.yaml, ruleset, resolve(bundleName));
      problems.push(...spectralProblems(results, bundleName, locator));
      timingsMs.spectral = Math.round(performance.now() - t0);
    }
    await checkpoint();
    let t0 = performance.now();
    problems.push(...exampleProblems(bundle, locator, bundleName));
    timingsMs.examples = Math.round(performance.now() - t0);
    if (guidesDir) {
      t0 = performance.now();
      for (const p of checkGuideLinks(bundle.document, guidesDir))
        problems.push({ tool: 'guides', severity: 'error', ...p, file: rel(p.file) });
      timingsMs.guides = Math.round(performance.now() - t0);
    }
  }

  dedupe(problems);
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  return { problems, errors, warnings, ok: errors === 0 && warnings === 0, timingsMs };
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

/**
 * Loads `.spectral.yaml` the way the Spectral CLI does (Rollup bundle of the ruleset and its
 * functions). Spectral's modules (~0.6 s to load) are required here, not at the top, so that
 * loading them overlaps the Redocly child processes.
 */
export async function loadRuleset(path: string): Promise<Ruleset> {
  await new Promise((r) => setImmediate(r)); // let the child processes spawn first
  // require(), not import: these CommonJS packages re-export through tslib's __exportStar,
  // which Node's ESM named-export detection cannot see, and default-import interop differs
  // between node and tsx.
  const { fetch } = require('@stoplight/spectral-runtime') as typeof import('@stoplight/spectral-runtime');
  const { bundleAndLoadRuleset } =
    require('@stoplight/spectral-ruleset-bundler/with-loader') as typeof import('@stoplight/spectral-ruleset-bundler/with-loader');
  const { builtins } =
    require('@stoplight/spectral-ruleset-bundler/plugins/builtins') as typeof import('@stoplight/spectral-ruleset-bundler/plugins/builtins');
  const { commonjs } =
    require('@stoplight/spectral-ruleset-bundler/plugins/commonjs') as typeof import('@stoplight/spectral-ruleset-bundler/plugins/commonjs');
  return bundleAndLoadRuleset(resolve(path), { fs, fetch }, [builtins(), commonjs(), typescriptRules()]);
}

/**
 * A Rollup plugin for the house rules, which are TypeScript: an import of `x.js` (relative or absolute, as Spectral writes
 * the `functions:`) that exists
 * only as `./x.ts` (TypeScript's own convention) resolves to the `.ts` file, and esbuild strips
 * its types. Type-only imports vanish, so nothing of openapi-typescript or Spectral is bundled.
 */
function typescriptRules() {
  return {
    name: 'house-rules-typescript',
    resolveId(source: string, importer: string | undefined): string | null {
      if (!source.endsWith('.js')) return null;
      const ts = source.replace(/\.js$/, '.ts');
      const candidate = isAbsolute(ts)
        ? ts
        : importer !== undefined && /^\.\.?\//.test(ts)
          ? resolve(dirname(importer), ts)
          : undefined;
      if (candidate === undefined) return null;
      return fs.existsSync(candidate) && !fs.existsSync(candidate.replace(/\.ts$/, '.js')) ? candidate : null;
    },
    async transform(code: string, id: string): Promise<{ code: string } | null> {
      if (!id.endsWith('.ts')) return null;
      const { transform } = await import('esbuild');
      const out = await transform(code, { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: id });
      return { code: out.code };
    },
  };
}

/** Spectral's findings on `yaml`, the bundle's text, named `source` in them. */
export async function spectralDiagnostics(
  yaml: string,
  ruleset: Ruleset,
  source: string,
): Promise<ISpectralDiagnostic[]> {
  const { Document, Spectral } = require('@stoplight/spectral-core') as typeof import('@stoplight/spectral-core');
  const { Yaml } = require('@stoplight/spectral-parsers') as typeof import('@stoplight/spectral-parsers');
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  // Lint the exact YAML text that `npm run generate` writes, so bundle line numbers match the file.
  return spectral.run(new Document(yaml, Yaml, source));
}

/** What spectral-process.ts prints: the findings, or why the ruleset did not load. */
export type SpectralProcessOutput = { results: ISpectralDiagnostic[] } | { rulesetError: string };

const SPECTRAL_PROCESS = fileURLToPath(new URL('spectral-process.ts', import.meta.url));

/** spectralDiagnostics() in a child process that `signal` kills; an Error when the ruleset does not load. */
async function spectralInChildProcess(
  yaml: string,
  rulesetPath: string,
  source: string,
  signal: AbortSignal,
): Promise<ISpectralDiagnostic[] | Error> {
  const tmp = await mkdtemp(join(tmpdir(), 'spectral-'));
  try {
    const file = join(tmp, 'bundle.yaml');
    await writeFile(file, yaml);
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    const run = await runNode(SPECTRAL_PROCESS, [resolve(rulesetPath), file, source], {
      signal,
      nodeOptions: ['--import', tsx],
    });
    let output: SpectralProcessOutput;
    try {
      output = JSON.parse(run.stdout) as SpectralProcessOutput;
    } catch {
      throw new Error(`Spectral's process failed (exit code ${run.code}):\n${run.stderr.trim()}`);
    }
    return 'results' in output ? output.results : new Error(output.rulesetError);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
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
