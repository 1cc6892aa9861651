// Outputs of the slow tools that are not steps of the pipeline, kept by the content of what they
// are made from (their inputs, always with the toolchain), in the step cache's folder
// (support/cache.ts) beside the steps' entries and pruned like them:
//  - the bundled document (`bundled-document/`), by the contract, the Redocly config and the
//    toolchain: whatever bundles an unchanged contract outside `generate` (the review's current
//    contract and its base, lint, the scripts) reads a file instead of running `redocly bundle`;
//  - `redocly diff`'s report (`redocly-diff/`), by the two documents and the diff config: the gate
//    and the report compare the same pair again without running Redocly.
import { readFile } from 'node:fs/promises';
import { StepCache } from './cache.js';
import { InputReader, type StepInputs } from './inputs.js';
import { TOOLCHAIN } from './toolchain.js';

/** The version of how entries are made and read: a change makes every earlier entry unreachable. */
const FORMAT = 'payment-kept-output 1';
const FILE = 'output';
/**
 * Entries kept per kind: far more than a step's four, since they are small (a bundled document is a
 * few hundred kilobytes, a report a few) and a review or a test run makes many of them between two
 * uses of one.
 */
const KEEP = 32;

export interface KeptOutputOptions {
  /** The step cache's folder. */
  dir: string;
  /** Reads nothing; what is made is still kept. */
  force?: boolean;
}

/** One tool's output for one set of inputs, read from the cache or kept there. */
export class KeptOutput {
  private readonly reader = new InputReader();
  private readonly store: StepCache;
  private readonly key: Promise<string | undefined>;

  /** `kind`: the entries' folder (`bundled-document`); `inputs`: what the output is made from, besides the toolchain. */
  constructor(
    private readonly kind: string,
    inputs: StepInputs,
    private readonly options: KeptOutputOptions,
  ) {
    this.store = new StepCache(options.dir, KEEP);
    this.key = this.reader.key([FORMAT, kind], {
      files: [...TOOLCHAIN.files, ...inputs.files],
      trees: [...TOOLCHAIN.trees, ...inputs.trees],
      contracts: inputs.contracts,
      values: [...TOOLCHAIN.values, ...inputs.values],
    });
  }

  /** The text kept for these inputs, or undefined (none kept, forced, or inputs that cannot be cached). */
  async lookup(): Promise<string | undefined> {
    if (this.options.force) return undefined;
    const key = await this.key;
    if (key === undefined) return undefined;
    const entry = await this.store.get(this.kind, key);
    const artifact = entry?.artifacts.find((a) => a.path === FILE);
    return artifact && readFile(artifact.source, 'utf8').catch(() => undefined);
  }

  /** Keeps `text` for these inputs, unless one of them changed since it was read. */
  async save(text: string): Promise<void> {
    const key = await this.key;
    if (key === undefined || !(await this.reader.unchangedSince())) return;
    await this.store.put(this.kind, key, { artifacts: [{ path: FILE, content: text }] });
  }
}
