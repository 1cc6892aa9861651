// The checks of lint that read the source files and the bundle in JavaScript: the YAML syntax of
// every source file, Spectral on the bundle, and the examples against their schemas, each problem
// placed at its source file and line through the source map. They run in a worker thread
// (LintWorker): a few seconds of synchronous work that would otherwise hold up the main thread's
// steps, and that an abort ends at once.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ISpectralDiagnostic } from '@stoplight/spectral-core';
import { locate, parsePointer, toPointer } from '../../tooling/openapi/walker.js';
import type { BundleResult } from '../steps/bundle.js';
import { SourceFiles, SourceLocator } from '../support/sourcemap.js';
import { checkExamples, createSchemaValidator, valuePath } from './examples.js';
import { bySource, type LintProblem, rel, type Severity } from './problems.js';
import { checkSourceSyntax, type SyntaxProblem } from './source-syntax.js';
import { loadRuleset, spectralDiagnostics } from './spectral.js';

const SEVERITIES: Severity[] = ['error', 'warning', 'info', 'hint'];

export interface ChecksSetup {
  /** The contract's root, absolute. */
  root: string;
  rulesetPath: string;
  /** The bundle's name in messages (generated/openapi.yaml). */
  bundleName: string;
}

/** The bundle as the worker is sent it: its text, both forms. */
export interface BundleText {
  root: string;
  json: string;
  yaml: string;
}

export interface ChecksAnswer {
  syntax: SyntaxProblem[];
  /** why the Spectral ruleset did not load */
  rulesetError?: string;
  /** Spectral's, then the examples'; none without a bundle */
  problems: LintProblem[];
  timingsMs: Record<string, number>;
}

/**
 * Starts what needs no bundle (the ruleset's loading, the syntax check of the source files, whose
 * parse the source map reuses), and answers for a bundle once it is given one.
 */
export function startChecks(setup: ChecksSetup): { check(bundle?: BundleText): Promise<ChecksAnswer> } {
  const timingsMs: Record<string, number> = {};
  const ruleset = loadRuleset(setup.rulesetPath).catch((err: unknown) =>
    err instanceof Error ? err : new Error(String(err)),
  );
  const files = new SourceFiles();
  const syntax = new Promise<SyntaxProblem[]>((done) =>
    setImmediate(() => {
      const t0 = performance.now();
      const found = checkSourceSyntax(setup.root, files);
      timingsMs.yaml = Math.round(performance.now() - t0);
      done(found);
    }),
  );
  return {
    async check(text?: BundleText): Promise<ChecksAnswer> {
      const [found, loaded] = await Promise.all([syntax, ruleset]);
      const answer: ChecksAnswer = { syntax: found, problems: [], timingsMs };
      if (loaded instanceof Error) answer.rulesetError = loaded.message;
      if (!text) return answer;
      const bundle: BundleResult = {
        root: text.root,
        document: JSON.parse(text.json),
        json: text.json,
        yaml: text.yaml,
      };
      const locator = new SourceLocator(bundle.root, bundle.document, files);
      if (!(loaded instanceof Error)) {
        const t0 = performance.now();
        const results = await spectralDiagnostics(bundle.yaml, loaded, resolve(setup.bundleName));
        answer.problems.push(...spectralProblems(results, setup.bundleName, locator));
        timingsMs.spectral = Math.round(performance.now() - t0);
      }
      const t0 = performance.now();
      answer.problems.push(...exampleProblems(bundle, locator, setup.bundleName));
      timingsMs.examples = Math.round(performance.now() - t0);
      return answer;
    },
  };
}

/** The checks in a worker thread, started at once; `check()` sends the bundle, ends the worker and answers. */
export class LintWorker {
  private readonly worker: Promise<Worker>;
  private readonly answer: Promise<ChecksAnswer | { crash: string }>;

  constructor(setup: ChecksSetup) {
    this.worker = workerEntry().then((url) => {
      // execArgv: none of this process's own flags (an --import of the parent's, such as a watchdog on stdin, would end the worker)
      const worker = new Worker(url, { workerData: setup, execArgv: [], stdout: false });
      worker.unref(); // an idle worker never keeps the process alive
      return worker;
    });
    this.answer = this.worker.then(
      (worker) =>
        new Promise((done) => {
          worker.once('message', done);
          worker.once('error', (err) => done({ crash: err.stack ?? err.message }));
          worker.once('exit', (code) => done({ crash: `lint's worker exited with ${code}` }));
        }),
      (err: unknown) => ({ crash: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  }

  /** The checks' answer for `bundle` (none: the syntax check and whether the ruleset loads); an abort ends the worker at once. */
  async check(bundle: BundleText | undefined, signal?: AbortSignal): Promise<ChecksAnswer> {
    try {
      signal?.throwIfAborted();
      const aborted = new Promise<never>((_, reject) =>
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
      const worker = await Promise.race([this.worker, aborted]);
      worker.ref();
      worker.postMessage(bundle);
      const answer = await Promise.race([this.answer, aborted]);
      if ('crash' in answer) throw new Error(answer.crash);
      return answer;
    } finally {
      await this.end();
    }
  }

  /** Ends the worker, whatever it is doing. */
  async end(): Promise<void> {
    const worker = await this.worker.catch(() => undefined);
    await worker?.terminate();
  }
}

/** The worker's module, compiled with the generator (tooling/compile.mjs): a worker thread has no TypeScript loader. */
async function workerEntry(): Promise<URL> {
  const { compiled } = await import('../../tooling/compile.mjs');
  return pathToFileURL(join(await compiled('generator'), 'lint-worker.mjs'));
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
