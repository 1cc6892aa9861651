// The step cache as one run uses it: each step's key (its inputs and the toolchain, step-table.ts),
// its entry when the cache has one, and the storing of what a step made, once it is known that
// none of its inputs changed while it ran.
import type { PipelinePaths, StepName, StepResult } from './pipeline.js';
import { STEP_TABLE } from './step-table.js';
import { CACHE_DIR, type CachedOutput, StepCache } from './support/cache.js';
import { InputReader, type StepInputs } from './support/inputs.js';
import { TOOLCHAIN } from './support/toolchain.js';

/** Part of every key: a change to how entries are made or read makes every earlier entry unreachable. */
const CACHE_FORMAT = 'payment-generate 1';

export interface RunCacheOptions {
  /** The cache's folder; false: no cache (nothing read or stored). */
  dir: string | false | undefined;
  /** Read nothing from the cache; what the steps make is still stored. */
  force: boolean;
  /** The code and tools of every step (default TOOLCHAIN); the cache's tests point it at a copy. */
  toolchain?: StepInputs;
}

export class RunCache {
  private readonly store: StepCache | undefined;
  private readonly reader = new InputReader();
  private readonly keys = new Map<StepName, Promise<string | undefined>>();
  private toolchainKey: Promise<string | undefined> | undefined;

  constructor(
    private readonly paths: PipelinePaths,
    private readonly options: RunCacheOptions,
  ) {
    this.store = options.dir === false ? undefined : new StepCache(options.dir);
  }

  /** How the run's bundling uses the bundled documents kept (support/kept-output.ts): the same folder, unread when forced. */
  get bundling(): { cache: string | false; force: boolean } {
    return { cache: this.options.dir ?? CACHE_DIR, force: this.options.force };
  }

  /** The step's key: a hash of its inputs' contents and the toolchain's; undefined without a cache or for an uncacheable input. */
  key(step: StepName): Promise<string | undefined> {
    let key = this.keys.get(step);
    if (!key) {
      key = this.computeKey(step);
      this.keys.set(step, key);
    }
    return key;
  }

  /** The step's cached output, unless the run is forced or the cache has none for its key. */
  async lookup(step: StepName): Promise<CachedOutput | undefined> {
    if (!this.store || this.options.force) return undefined;
    const key = await this.key(step);
    return key === undefined ? undefined : this.store.get(step, key);
  }

  /** Stores what the step made, if none of its inputs changed since they were hashed. */
  async save(step: StepName, result: StepResult): Promise<void> {
    const key = await this.key(step);
    if (!this.store || key === undefined) return;
    if (!(await this.reader.unchangedSince())) return;
    await this.store.put(step, key, result);
  }

  private async computeKey(step: StepName): Promise<string | undefined> {
    if (!this.store) return undefined;
    this.toolchainKey ??= this.reader.key([CACHE_FORMAT, 'toolchain'], this.options.toolchain ?? TOOLCHAIN);
    const toolchain = await this.toolchainKey;
    if (toolchain === undefined) return undefined;
    return this.reader.key([CACHE_FORMAT, step, toolchain], STEP_TABLE[step].inputs(this.paths));
  }
}
