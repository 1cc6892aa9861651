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
import type { BundleResult } from './steps/bundle.js';
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
  if (step.waitsFor === 'bundle') await context.bundle();
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

/** The context of a run's steps: the bundle and the admin document, each made once, when first asked for. */
export function stepContext(paths: PipelinePaths, cache: RunCache, signal?: AbortSignal): StepContext {
  let bundle: Promise<BundleResult> | undefined;
  let admin: ReturnType<StepContext['admin']> | undefined;
  return {
    paths,
    signal,
    bundle: () => (bundle ??= bundleOf(paths.root, cache, signal)),
    admin: () =>
      (admin ??= import('./steps/admin.js').then(({ loadAdminDocument }) => loadAdminDocument(paths.adminRoot))),
    async checkpoint() {
      if (!signal) return;
      await new Promise((r) => setImmediate(r));
      if (signal.aborted) throw new Abandoned();
    },
  };
}

/** The bundle step's cached files when its inputs are unchanged (the same bytes Redocly would give), else Redocly's bundle. */
async function bundleOf(root: string, cache: RunCache, signal?: AbortSignal): Promise<BundleResult> {
  const cached = await cache.lookup('bundle');
  const file = (path: string) => cached?.artifacts.find((a: Artifact) => a.path === path);
  const [yaml, json] = [file('openapi.yaml'), file('openapi.json')];
  if (yaml && json) {
    const text = await textOf(json);
    return { root, document: JSON.parse(text) as BundleResult['document'], yaml: await textOf(yaml), json: text };
  }
  const { bundleContract } = await import('./steps/bundle.js');
  return bundleContract({ root, signal });
}
