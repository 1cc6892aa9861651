// npm run lint [-- --root <file>] [-- --json]
// Redocly on the source, Spectral on the bundle; exits 1 on any error OR warning. Without --root:
// the contract and the sandbox's admin API document (sandbox/admin/openapi.yaml), each to its bar.

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
const [result, admin] = await Promise.all([
  lintContract({ root: args.root, out: args.out }),
  withAdmin ? lintAdminDocument({ out: args.out }) : undefined,
]);
const ok = result.ok && (admin?.ok ?? true);
if (args.json) {
  console.log(JSON.stringify(admin ? { ...result, ok, admin } : result, null, 2));
} else {
  const ms = Math.round(performance.now() - t0);
  const summary = (name: string, r: LintResult) => {
    for (const p of r.problems) console.log(formatProblem(p));
    const other = r.problems.length - r.errors - r.warnings;
    console.log(
      `${r.ok ? 'OK' : 'FAILED'}${name}: ${r.errors} error(s), ${r.warnings} warning(s)` +
        (other ? `, ${other} info/hint` : '') +
        ` in ${ms} ms (redocly ${r.timingsMs.redocly} ms, bundle ${r.timingsMs.bundle} ms, spectral ruleset ${r.timingsMs['spectral-ruleset']} ms, spectral ${r.timingsMs.spectral ?? '-'} ms, yaml ${r.timingsMs.yaml} ms, examples ${r.timingsMs.examples ?? '-'} ms)`,
    );
  };
  summary('', result);
  if (admin) summary(' (sandbox admin API)', admin);
}
// exitCode, not process.exit(): exiting at once can cut a long report written to a pipe.
process.exitCode = ok ? 0 : 1;
