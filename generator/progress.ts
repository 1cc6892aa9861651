// The lines a run prints: one per step, then the verdict.
import type { StepName } from './pipeline.js';
import type { Done } from './schedule.js';
import { StepError } from './support/step-error.js';

const time = (ms: number) => `${Math.round(ms)} ms`.padStart(8);
const name10 = (name: string) => name.padEnd(10);

/** `✔ types       612 ms  types.ts`; a step served from the cache says `cached` where the time goes. */
export function stepLine(name: StepName, done: Done, writtenMs?: number): string {
  // A folder of many files (samples/) as one entry.
  const files =
    done.artifacts.length > 5 && done.owns
      ? `  ${done.owns}/ (${done.artifacts.length} files)`
      : done.artifacts.length
        ? `  ${done.artifacts.map((a) => a.path).join(', ')}`
        : '';
  const at = writtenMs !== undefined && done.artifacts.length ? ` (written at ${Math.round(writtenMs)} ms)` : '';
  return `✔ ${name10(name)} ${done.cached ? '  cached' : time(done.ms)}${done.detail ? `  ${done.detail}` : ''}${files}${at}`;
}

/** A step that did not succeed, with the reason after it when there is one. */
export const skippedLine = (name: StepName, why: string) => `– ${name10(name)} ${why}`;
export const failedLine = (name: StepName, message?: string) =>
  `✖ ${name10(name)}${message === undefined ? '' : `\n${message}`}`;
export const verdictLine = (ok: boolean, verdict: string, ms: number) =>
  `${ok ? '✔' : '✖'} ${name10(verdict)} ${time(ms)}`;

/** A failure as the user needs it: the tool's own message for what the contract got wrong, the stack for a bug. */
export function messageOf(err: unknown): string {
  if (err instanceof StepError) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
