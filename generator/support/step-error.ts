import type { SourceProblem } from './redocly.js';

/**
 * A step failed for a reason its message says in full, at the file and line (lint's problems, a
 * YAML mistake, a bundling error, a guide's broken link): reported as it is, without a stack.
 */
export class StepError extends Error {}

/** Bundling failed (YAML syntax error, unresolved $ref, component name clash...). */
export class BundleError extends StepError {
  constructor(
    message: string,
    readonly problems: SourceProblem[],
  ) {
    super(message);
    this.name = 'BundleError';
  }
}
