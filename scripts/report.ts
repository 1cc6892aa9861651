// npm run report [-- --base <git ref | version | released file> | -- --target <branch>] [-- --out report.md]
//                [-- --root openapi/openapi.yaml] [-- --generated generated/] [-- --accepted <file>]
//                [-- --no-lint] [-- --no-drift]
//
// Markdown for a pull request comment (generator/review/report.ts): breaking changes with their source
// locations, the accepted ones, a changelog of the contract, provenance before and after, lint,
// generated-code drift. The base is chosen as for `npm run check:breaking` (generator/review/base.ts:
// the merge base of the pull request's target, else the last release). Exit codes:
//   0  no breaking change, or each approved or accepted by a major version bump, and no stale or
//      expired approval;
//   1  otherwise (the report is still written);
//   2  no report: usage error, unreadable base, head or base does not bundle, diff failed, a
//      malformed accepted-changes file.
import { relative, resolve } from 'node:path';
import { AcceptedChangesError } from '../generator/review/accepted.js';
import { BaseError } from '../generator/review/base.js';
import { DiffError } from '../generator/review/breaking.js';
import { collectReport, renderReport, reportExitCode, reportSummary } from '../generator/review/report.js';
import { BundleError } from '../generator/steps/bundle.js';
import { commandOptions } from '../generator/support/command-line.js';
import { writeFileAtomic } from '../generator/support/fs.js';

const USAGE = `usage: tsx scripts/report.ts [--base <git ref | version | released file> | --target <branch>] [--out report.md]
                         [--root openapi/openapi.yaml] [--generated generated/]
                         [--accepted openapi/accepted-changes.yaml] [--no-lint] [--no-drift]`;

const values = commandOptions(
  {
    options: {
      base: { type: 'string' },
      target: { type: 'string' },
      accepted: { type: 'string' },
      out: { type: 'string' },
      root: { type: 'string' },
      generated: { type: 'string' },
      releases: { type: 'string' },
      'no-lint': { type: 'boolean', default: false },
      'no-drift': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);

if (values.base !== undefined && values.target !== undefined) {
  console.error(`give --base (compare with exactly that) or --target (its merge base), not both\n\n${USAGE}`);
  process.exit(2);
}

let data: Awaited<ReturnType<typeof collectReport>>;
try {
  data = await collectReport({
    base: values.base,
    target: values.target,
    accepted: values.accepted ? resolve(values.accepted) : undefined,
    root: values.root ? resolve(values.root) : undefined,
    generated: values.generated ? resolve(values.generated) : undefined,
    releasesDir: values.releases ? resolve(values.releases) : undefined,
    lint: !values['no-lint'],
    drift: !values['no-drift'],
  });
} catch (err) {
  if (
    err instanceof BaseError ||
    err instanceof BundleError ||
    err instanceof DiffError ||
    err instanceof AcceptedChangesError
  ) {
    console.error(`no report: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

const markdown = renderReport(data);
if (values.out) {
  await writeFileAtomic(resolve(values.out), markdown);
  console.error(`wrote ${relative(process.cwd(), resolve(values.out))}: ${reportSummary(data)}`);
} else {
  process.stdout.write(markdown);
}
// exitCode, not process.exit(): exiting at once could cut the report written to a pipe.
process.exitCode = reportExitCode(data);
