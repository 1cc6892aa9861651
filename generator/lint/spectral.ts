// Spectral on the bundle: loading the ruleset (.spectral.yaml, the local rulesets it extends, the
// house rules in TypeScript) and running it, in a worker thread (SpectralWorker) or in this one.
//
// Loading a ruleset means bundling it with Rollup (the ruleset migrated to a module, the house
// rules compiled by esbuild), most of a second; the bundled code is kept in the step cache under
// a hash of everything it is made from, and later loads evaluate it as Spectral's own loader does.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ISpectralDiagnostic, Ruleset } from '@stoplight/spectral-core';
import { parse as parseYaml } from 'yaml';
import { textOf } from '../support/artifacts.js';
import { CACHE_DIR, StepCache } from '../support/cache.js';
import { InputReader, type StepInputs } from '../support/inputs.js';
import { TOOLCHAIN } from '../support/toolchain.js';

const require = createRequire(import.meta.url);

/** Spectral's findings, or why the ruleset did not load (a broken .spectral.yaml or house rule). */
export type SpectralOutcome = ISpectralDiagnostic[] | Error;

/**
 * The ruleset at `path`: evaluated from its cached bundle when the files it is made from are
 * unchanged, else bundled by Rollup (then cached).
 */
export async function loadRuleset(path: string, cacheDir = CACHE_DIR): Promise<Ruleset> {
  const file = resolve(path);
  const reader = new InputReader();
  const key = await reader.key(['spectral-ruleset'], rulesetInputs(file));
  const cache = new StepCache(cacheDir);
  const cached = key === undefined ? undefined : await cache.get('spectral-ruleset', key);
  if (cached?.artifacts[0]) return rulesetFromCode(await textOf(cached.artifacts[0]), file);
  let code: string | undefined;
  const ruleset = await bundleRuleset(file, (bundled) => (code = bundled));
  if (key !== undefined && code !== undefined && (await reader.unchangedSince()))
    await cache.put('spectral-ruleset', key, { artifacts: [{ path: 'ruleset.cjs', content: code }] });
  return ruleset;
}

/**
 * What the bundled ruleset is made from: the ruleset, each local ruleset it extends (the admin
 * document's extends the contract's) and their house rules, with the toolchain (the rules import
 * tooling/, Rollup and the rulesets come from node_modules).
 */
function rulesetInputs(path: string): StepInputs {
  const files: string[] = [];
  const trees: string[] = [];
  const visit = (file: string) => {
    if (files.includes(file)) return;
    files.push(file);
    const ruleset = readRuleset(file);
    if (typeof ruleset?.functionsDir === 'string') trees.push(resolve(dirname(file), ruleset.functionsDir));
    const extended = Array.isArray(ruleset?.extends) ? ruleset.extends : [ruleset?.extends];
    for (const entry of extended) {
      const name = Array.isArray(entry) ? entry[0] : entry;
      if (typeof name === 'string' && /^\.\.?\//.test(name)) visit(resolve(dirname(file), name));
    }
  };
  visit(path);
  return { ...TOOLCHAIN, files: [...TOOLCHAIN.files, ...files], trees: [...TOOLCHAIN.trees, ...trees] };
}

/** A ruleset file's `extends` and `functionsDir`; undefined when it does not read (bundling it fails, and nothing is cached). */
function readRuleset(file: string): { extends?: unknown; functionsDir?: unknown } | undefined {
  try {
    const value = parseYaml(fs.readFileSync(file, 'utf8')) as unknown;
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Spectral's own loading of a ruleset file (Rollup and its CommonJS plugin) with ours for the house
 * rules; `bundled` receives the code it evaluates. Without the CLI's `builtins` plugin, which hands
 * the ruleset this process's Spectral modules under a random id that the code would then carry:
 * the code requires them from node_modules instead, the same modules, and stays valid to cache.
 * Spectral's modules (~0.6 s to load) are required here, not at the top, so that loading them
 * overlaps the Redocly processes.
 */
async function bundleRuleset(path: string, bundled: (code: string) => void): Promise<Ruleset> {
  // require(), not import: these CommonJS packages re-export through tslib's __exportStar,
  // which Node's ESM named-export detection cannot see, and default-import interop differs
  // between node and tsx.
  const { fetch } = require('@stoplight/spectral-runtime') as typeof import('@stoplight/spectral-runtime');
  const { bundleAndLoadRuleset } =
    require('@stoplight/spectral-ruleset-bundler/with-loader') as typeof import('@stoplight/spectral-ruleset-bundler/with-loader');
  const { commonjs } =
    require('@stoplight/spectral-ruleset-bundler/plugins/commonjs') as typeof import('@stoplight/spectral-ruleset-bundler/plugins/commonjs');
  const capture = {
    name: 'capture-bundled-ruleset',
    generateBundle(_: unknown, output: Record<string, { type: string; code?: string }>) {
      const chunk = Object.values(output).find((o) => o.type === 'chunk');
      if (chunk?.code !== undefined) bundled(chunk.code);
    },
  };
  return bundleAndLoadRuleset(path, { fs, fetch }, [commonjs(), typescriptRules(), capture]);
}

/**
 * A bundled ruleset evaluated as the bundler's node loader does (`load()` in
 * @stoplight/spectral-ruleset-bundler/dist/loader/node.js): CommonJS, with a require that
 * resolves from the ruleset's folder and then from the bundler's.
 */
function rulesetFromCode(code: string, path: string): Ruleset {
  const { Ruleset } = require('@stoplight/spectral-core') as typeof import('@stoplight/spectral-core');
  const req = createRequire(path);
  const paths = [dirname(path), dirname(require.resolve('@stoplight/spectral-ruleset-bundler/with-loader'))];
  const module: { exports?: unknown } = {};
  Function('module, require', code)(module, (id: string) => req(req.resolve(id, { paths })));
  if (typeof module.exports !== 'object' || module.exports === null) throw new Error('No valid export found');
  return new Ruleset(module.exports as ConstructorParameters<typeof Ruleset>[0], {
    severity: 'recommended',
    source: path,
  });
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

/** What the worker answers a bundle with. */
export type WorkerAnswer = { results: ISpectralDiagnostic[] } | { rulesetError: string } | { crash: string };

/**
 * Spectral in a worker thread, which starts loading the ruleset at once: the ruleset and the run
 * (a second or two of synchronous work) use the other core while this thread bundles, types and
 * checks, and an abort ends the worker at once, mid-run.
 */
export class SpectralWorker {
  private readonly worker: Promise<Worker>;
  private readonly answer: Promise<WorkerAnswer>;

  constructor(rulesetPath: string) {
    this.worker = workerEntry().then((url) => {
      const worker = new Worker(url, { workerData: { rulesetPath: resolve(rulesetPath) }, stdout: false });
      worker.unref(); // an idle worker never keeps the process alive
      return worker;
    });
    this.answer = this.worker.then(
      (worker) =>
        new Promise<WorkerAnswer>((done) => {
          worker.once('message', done);
          worker.once('error', (err) => done({ crash: err.stack ?? err.message }));
          worker.once('exit', (code) => done({ crash: `Spectral's worker exited with ${code}` }));
        }),
      (err: unknown) => ({ crash: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  }

  /**
   * Spectral on the bundle's text (without one: whether the ruleset loads, no findings); the
   * worker ends with the answer, or when `signal` aborts.
   */
  async run(yaml: string | undefined, source: string, signal?: AbortSignal): Promise<SpectralOutcome> {
    try {
      signal?.throwIfAborted();
      const aborted = new Promise<never>((_, reject) =>
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
      const worker = await Promise.race([this.worker, aborted]);
      worker.ref();
      worker.postMessage({ yaml, source });
      const answer = await Promise.race([this.answer, aborted]);
      if ('crash' in answer) throw new Error(answer.crash);
      return 'results' in answer ? answer.results : new Error(answer.rulesetError);
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

/** The worker's module, compiled with the generator (compile.mjs): a worker thread has no TypeScript loader. */
async function workerEntry(): Promise<URL> {
  const { compiledGenerator } = await import('../compile.mjs');
  return pathToFileURL(join(await compiledGenerator(), 'spectral-worker.mjs'));
}
