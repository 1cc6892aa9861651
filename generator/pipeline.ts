// What the pipeline is made of and how it is called: its steps and generate()'s options. Both
// generate.ts (which runs the steps) and watch.ts (which picks them by what changed) import this
// module, so that neither needs the other's types and no import goes back up.
import type { BundleResult } from './steps/bundle.js';

/**
 * The steps, in pipeline order (the order their files are written in). `guides` is the guide-link
 * check alone, which lint includes: watch mode runs it with docs when only a guide changed.
 */
export const STEPS = [
  'lint',
  'guides',
  'bundle',
  'types',
  'operations',
  'resources',
  'samples',
  'admin',
  'docs',
  'admin-docs',
] as const;
export type StepName = (typeof STEPS)[number];

export interface GenerateOptions {
  root?: string;
  out?: string;
  /** false skips the lint step (the drift test regenerates without re-linting) */
  lint?: boolean;
  log?: (line: string) => void;
  /** Only these steps (default: all but `guides`); watch mode picks them by what changed. */
  steps?: readonly StepName[];
  /** The bundle of `root` when the caller has it (watch mode reuses it after a guide change). */
  bundle?: Promise<BundleResult>;
  /** The docs site's guides (default docs/guides/). */
  guidesDir?: string;
  /** The sandbox's admin API document (default sandbox/admin/openapi.yaml). */
  adminRoot?: string;
  /** Lint's Redocly config (default redocly.yaml). */
  redoclyConfig?: string;
  /**
   * Watch mode. Nothing is written when the contract does not bundle; otherwise each step's files
   * as soon as it is ready, types first (the other steps start once types.ts is written, so that
   * they do not slow it down), docs only once lint passed. Every step is reported, not only the
   * first failure. Default: pipeline order, the first failure stops the run.
   */
  eager?: boolean;
  /** Watch mode: called once a step's files are written. */
  onWritten?: (step: StepName) => void;
  /**
   * Abandons the run (watch mode: a newer save supersedes it). Steps not started never start, the
   * Redocly processes are killed, in-process steps stop at their next stage, and nothing more is
   * written: generate() returns false once the writes already under way have finished.
   */
  signal?: AbortSignal;
  /** Awaited before each selected step's work, with the run's signal: tests hold a step there. */
  beforeStep?: (step: StepName, signal?: AbortSignal) => Promise<void> | void;
}
