// npm run lint [-- --root <file>] [-- --json]
// Redocly on the source, Spectral on the bundle; exits 1 on any error OR warning. Without --root:
// the contract, the sandbox's admin API document (sandbox/admin/openapi.yaml) and the Arazzo
// workflows (arazzo/), each to its bar.

import { lintArazzo } from '../generator/lint/arazzo.js';
import { formatProblem, type LintResult, lintContract } from '../generator/lint/lint.js';
import { lintAdminDocument } from '../generator/steps/admin.js';
import { DEFAULT_ROOT } from '../generator/support/paths.js';
import { scriptArgs } from './args.js';

const args = scriptArgs();
if (args.help) {
  console.log('usage: tsx scripts/lint.ts [--root openapi/openapi.yaml] [--out generated/] [--json]');
  process.exit(0);
}
const t0 = performance.now();
const withAdmin = args.root === DEFAULT_ROOT;
const [result, admin, arazzo] = await Promise.all([
  lintContract({ root: args.root, out: args.out }),
  withAdmin ? lintAdminDocument({ out: args.out }) : undefined,
  withAdmin ? lintArazzo() : undefined,
]);
const ok = result.ok && (admin?.ok ?? true) && (arazzo?.ok ?? true);
if (args.json) {
  console.log(JSON.stringify(admin ? { ...result, ok, admin, arazzo } : result, null, 2));
} else {
  const ms = Math.round(performance.now() - t0);
  const summary = (name: string, r: LintResult) => {
    for (const p of r.problems) console.log(formatProblem(p));
    const other = r.problems.length - r.errors - r.warnings;
    console.log(
      `${r.ok ? 'OK' : 'FAILED'}${name}: ${r.errors} error(s), ${r.warnings} warning(s)` +
        (other ? `, ${other} info/hint` : '') +
        ` in ${ms} ms (redocly ${r.timingsMs.redocly} ms, bundle ${r.timingsMs.bundle} ms, spectral ${r.timingsMs.spectral ?? '-'} ms after the bundle, yaml ${r.timingsMs.yaml} ms, examples ${r.timingsMs.examples ?? '-'} ms)`,
    );
  };
  summary('', result);
  if (admin) summary(' (sandbox admin API)', admin);
  if (arazzo) {
    for (const p of arazzo.problems) console.log(formatProblem(p));
    console.log(
      `${arazzo.ok ? 'OK' : 'FAILED'} (Arazzo workflows): ${arazzo.errors} error(s), ${arazzo.warnings} warning(s) in ${arazzo.timingsMs.redocly} ms (redocly)`,
    );
  }
}
// exitCode, not process.exit(): exiting at once can cut a long report written to a pipe.
process.exitCode = ok ? 0 : 1;
