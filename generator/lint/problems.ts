// What lint reports, in one shape whatever found it, and how it prints.
import { relative } from 'node:path';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export interface LintProblem {
  tool: 'redocly' | 'bundle' | 'spectral' | 'yaml' | 'examples' | 'guides';
  file: string; // relative to the working directory
  line: number;
  col: number;
  severity: Severity;
  rule: string;
  message: string;
  /** Spectral only: where the problem sits in the bundle (`npm run generate` writes the same bytes). */
  bundle?: { pointer: string; line: number };
}

/** A path as problems name it: relative to the working directory. */
export const rel = (p: string) => relative(process.cwd(), p) || '.';

export function formatProblem(p: LintProblem): string {
  const where = p.bundle ? ` (bundle ${bundleRef(p)})` : '';
  return `${p.file}:${p.line}:${p.col} ${p.severity} ${p.rule} ${p.message}${where}`;
}
const bundleRef = (p: LintProblem) => `${p.bundle!.pointer}, line ${p.bundle!.line}`;

/** In the order a reader goes through the files. */
export const bySource = (a: LintProblem, b: LintProblem) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.rule.localeCompare(b.rule);
