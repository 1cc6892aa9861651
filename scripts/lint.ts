// npm run lint [-- --root <file>] [-- --json]
// Redocly on the source, Spectral on the bundle; exits 1 on any error OR warning.
import { formatProblem, lintContract } from '../generator/lint.js';
import { scriptArgs } from './args.js';

const args = scriptArgs();
if (args.help) {
  console.log('usage: tsx scripts/lint.ts [--root openapi/openapi.yaml] [--out generated/] [--json]');
  process.exit(0);
}
const t0 = performance.now();
const result = await lintContract({ root: args.root, out: args.out });
if (args.json) {
  console.log(JSON.stringify(result, null, 2));
} else {
  for (const p of result.problems) console.log(formatProblem(p));
  const other = result.problems.length - result.errors - result.warnings;
  const ms = Math.round(performance.now() - t0);
  console.log(
    `${result.ok ? 'OK' : 'FAILED'}: ${result.errors} error(s), ${result.warnings} warning(s)` +
      (other ? `, ${other} info/hint` : '') +
      ` in ${ms} ms (redocly ${result.timingsMs.redocly} ms, bundle ${result.timingsMs.bundle} ms, spectral ruleset ${result.timingsMs['spectral-ruleset']} ms, spectral ${result.timingsMs.spectral ?? '-'} ms)`,
  );
}
// exitCode, not process.exit(): exiting at once can cut a long report written to a pipe.
process.exitCode = result.ok ? 0 : 1;
