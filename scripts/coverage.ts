// npm run coverage (after `vitest run --coverage`): line coverage per product folder, from vitest's
// json-summary (test-output/coverage/coverage-summary.json). Code run in child processes (a sandbox
// or mock started as a process, the CLI spawned) is not counted: v8 sees this process's workers only.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../tooling/repository.js';

interface Totals {
  lines: { total: number; covered: number };
}
const FOLDERS = ['sandbox', 'generator', 'src', 'tooling'];

const summary = JSON.parse(
  readFileSync(join(REPO_ROOT, 'test-output', 'coverage', 'coverage-summary.json'), 'utf8'),
) as Record<string, Totals>;
const byFolder = new Map(FOLDERS.map((f) => [f, { total: 0, covered: 0 }]));
for (const [file, totals] of Object.entries(summary)) {
  if (file === 'total') continue;
  const folder = byFolder.get(relative(REPO_ROOT, file).split('/')[0]!);
  if (!folder) continue;
  folder.total += totals.lines.total;
  folder.covered += totals.lines.covered;
}
for (const [folder, { total, covered }] of byFolder)
  console.log(
    `${`${folder}/`.padEnd(11)} ${((100 * covered) / Math.max(total, 1)).toFixed(1).padStart(5)} % of ${total} lines`,
  );
