// What the pipeline is made of and how it is called: its steps, what a step's work receives and
// returns, and generate()'s options. The step table (step-table.ts), the scheduling
// (schedule.ts), the two ways of running (generate.ts) and watch mode (watch.ts) import this
// module, so that none needs another's types and no import goes back up.
import type { BundledDocument, BundleResult, OpenApiDocument } from './steps/bundle.js';
import type { Artifact } from './support/artifacts.js';

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
  'data-schema',
  'docs',
  'admin-docs',
] as const;
export type StepName = (typeof STEPS)[number];

export interface GenerateOptions {
  root?: string;
  out?: string;
  /** false skips the lint step */
  lint?: boolean;
  log?: (line: string) => void;
  /** Only these steps (default: all but `guides`); watch mode picks them by what changed. */
  steps?: readonly StepName[];
  /** The docs site's guides (default docs/guides/). */
  guidesDir?: string;
  /** The sandbox's admin API document (default sandbox/admin/openapi.yaml). */
  adminRoot?: string;
  /** Lint's Redocly config (default redocly.yaml). */
  redoclyConfig?: string;
  /** The step cache's folder (default node_modules/.cache/payment-generate/); false: no cache at all. */
  cache?: string | false;
  /** Runs every step whatever the cache holds (`--force`); what the steps make is still stored. */
  force?: boolean;
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
  /** Awaited before each selected step's work (not for a step taken from the cache), with the run's signal: tests hold a step there. */
  beforeStep?: (step: StepName, signal?: AbortSignal) => Promise<void> | void;
}

/** The paths of a run, resolved; an optional one is absent when the caller gave none (each step has its default). */
export interface PipelinePaths {
  root: string;
  out: string;
  adminRoot: string;
  guidesDir?: string;
  redoclyConfig?: string;
}

/** What a step's work returns: its files, and what its report line says besides them. */
export interface StepResult {
  artifacts: Artifact[];
  detail?: string;
  /** files under this folder of the output that the step no longer produces are removed */
  owns?: string;
}

/** What a step's work can ask for. The bundle and the admin document are made once per run, when first asked for. */
export interface StepContext {
  paths: PipelinePaths;
  signal?: AbortSignal;
  /** The contract's bundle: from the cache when the bundle step's inputs are unchanged, else from Redocly. */
  bundle(): Promise<BundleResult>;
  /** The bundle without its YAML, sooner: what the steps that read only the document need. */
  document(): Promise<BundledDocument>;
  admin(): Promise<OpenApiDocument>;
  /** Between a step's stages: lets the event loop deliver an abort first, then throws if the run was abandoned. */
  checkpoint(): Promise<void>;
}

/** A step of a run whose signal was aborted: it writes nothing. */
export class Abandoned extends Error {}
