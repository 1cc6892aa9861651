// What every check of one run shares: the contract, the client, the results, the merchants, the
// run's id (in every transId and reference it creates, so that its objects can be told apart on a
// shared server) and a seeded source of numbers.
import type { Client, Merchant } from './client.js';
import type { Contract } from './contract.js';
import type { Receiver } from './receiver.js';
import type { Results } from './results.js';
import type { SchemaValidator } from './validator.js';

export interface RunContext {
  contract: Contract;
  client: Client;
  results: Results;
  validator: SchemaValidator;
  runId: string;
  first: Merchant;
  second?: Merchant;
  webhookSecret?: string;
  receiver?: Receiver;
  hosted: boolean;
  liveBaseUrl?: string;
  /** A live server verified with --allow-live: nothing may be created or changed. */
  readOnly: boolean;
  /** A reference unique in this run: `<runId>-<label>-<n>`. */
  ref(label: string): string;
  /** A number in [0, 1) from the run's seed. */
  random(): number;
  progress(line: string): void;
}

/** A small seeded generator (mulberry32): the same seed draws the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A counter-based reference maker for a run id. */
export function referenceMaker(runId: string): (label: string) => string {
  let n = 0;
  return (label) => `${runId}-${label}-${++n}`.slice(0, 64);
}
