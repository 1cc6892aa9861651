// When each selected step starts and where its result comes from. A step whose key the cache holds
// is served from it at once, waiting for nothing (a run where nothing changed neither bundles nor
// loads a tool). Any other waits for its input (the bundle, the admin document), then for its
// gate (watch mode: types.ts first), then does its work; what it made is stored in the cache.

import {
  Abandoned,
  type GenerateOptions,
  type PipelinePaths,
  type StepContext,
  type StepName,
  type StepResult,
} from './pipeline.js';
import type { RunCache } from './run-cache.js';
import { STEP_TABLE } from './step-table.js';
import type { BundledDocument, BundleResult } from './steps/bundle.js';
import { type Artifact, textOf } from './support/artifacts.js';

export interface Done extends StepResult {
  /** from the moment its input was ready (the bundle, for most steps) to its result; a cached step's lookup */
  ms: number;
  cached: boolean;
}

export interface Scheduled {
  name: StepName;
  result: Promise<Done>;
}

export interface ScheduleOptions {
  /** The steps to run, in pipeline order. */
  selected: readonly StepName[];
  context: StepContext;
  cache: RunCache;
  /** Awaited once a step's input is ready, before its work. */
  gate?: (step: StepName) => Promise<void> | undefined;
  beforeStep?: GenerateOptions['beforeStep'];
}

/** Starts every selected step; `stored` settles once what they made is in the cache. */
export function schedule(options: ScheduleOptions): { steps: Scheduled[]; stored: () => Promise<void> } {
  const storing: Promise<void>[] = [];
  const steps = options.selected.map((name) => {
    const result = runStep(name, options, (r) => storing.push(options.cache.save(name, r)));
    result.catch(() => undefined); // each driver reports the failures in its own order
    return { name, result };
  });
  return { steps, stored: async () => void (await Promise.allSettled(storing)) };
}

async function runStep(name: StepName, options: ScheduleOptions, store: (r: StepResult) => void): Promise<Done> {
  const lookedUp = performance.now();
  const cached = await options.cache.lookup(name);
  if (cached) return { ...cached, ms: performance.now() - lookedUp, cached: true };
  const { context } = options;
  const step = STEP_TABLE[name];
  if (step.waitsFor === 'bundle') await context.document();
  else if (step.waitsFor === 'admin') await context.admin();
  await options.gate?.(name);
  await context.checkpoint();
  await options.beforeStep?.(name, context.signal);
  const start = performance.now();
  const result = await step.work(context);
  await context.checkpoint();
  store(result);
  return { ...result, ms: performance.now() - start, cached: false };
}

/**
 * The context of a run's steps: the bundle and the admin document, each made once, when first
 * asked for. `eager` (watch mode, where a run follows a save): Redocly starts bundling while the
 * step cache is consulted, since it rarely holds the bundle of a contract just saved; a hit stops it.
 */
export function stepContext(paths: PipelinePaths, cache: RunCache, signal?: AbortSignal, eager = false): StepContext {
  let document: Promise<BundledDocument> | undefined;
  let bundle: Promise<BundleResult> | undefined;
  let admin: ReturnType<StepContext['admin']> | undefined;
  const context: StepContext = {
    paths,
    signal,
    document: () => (document ??= documentOf(paths.root, cache, signal, eager)),
    bundle: () => (bundle ??= bundleOf(cache, context.document)),
    admin: () =>
      (admin ??= import('./steps/admin.js').then(({ loadAdminDocument }) => loadAdminDocument(paths.adminRoot))),
    async checkpoint() {
      if (!signal) return;
      await new Promise((r) => setImmediate(r));
      if (signal.aborted) throw new Abandoned();
    },
  };
  return context;
}

/** The bundle step's cached file of a name, when its inputs are unchanged since the run that stored it. */
async function cachedBundleFile(cache: RunCache, path: string): Promise<string | undefined> {
  const cached = await cache.lookup('bundle');
  const artifact = cached?.artifacts.find((a: Artifact) => a.path === path);
  return artifact && textOf(artifact);
}

/** The cached openapi.json (the same bytes Redocly would give), else Redocly's bundle. */
async function documentOf(
  root: string,
  cache: RunCache,
  signal: AbortSignal | undefined,
  early: boolean,
): Promise<BundledDocument> {
  const stop = new AbortController();
  // After a save (`early`) the kept documents hardly ever hold the contract: Redocly starts at once.
  const kept = early ? { cache: false as const } : cache.bundling;
  const bundling = () =>
    import('./steps/bundle.js').then(({ bundleDocument }) =>
      bundleDocument({ root, signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal, ...kept }),
    );
  const made = early ? bundling() : undefined;
  made?.catch(() => undefined);
  const json = await cachedBundleFile(cache, 'openapi.json');
  if (json === undefined) return made ?? bundling();
  stop.abort();
  return { root, document: JSON.parse(json) as BundledDocument['document'], json };
}

/** The cached openapi.yaml, else the YAML of the document. */
async function bundleOf(cache: RunCache, document: () => Promise<BundledDocument>): Promise<BundleResult> {
  const [bundled, yaml] = await Promise.all([document(), cachedBundleFile(cache, 'openapi.yaml')]);
  if (yaml !== undefined) return { ...bundled, yaml };
  const { withYaml } = await import('./steps/bundle.js');
  return withYaml(bundled);
}
