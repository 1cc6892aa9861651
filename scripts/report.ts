// npm run report [-- --base <git ref | version | released file>] [-- --out report.md]
//                [-- --root openapi/openapi.yaml] [-- --generated generated/] [-- --no-lint] [-- --no-drift]
//
// Markdown for a pull request comment (generator/review/report.ts): breaking changes with their source
// locations, a changelog of the contract, provenance before and after, lint, generated-code
// drift. The base defaults to the latest release, as for `npm run check:breaking`. Exit codes:
//   0  no breaking change, or breaking changes accepted by a major version bump;
//   1  breaking changes without a major version bump (the report is still written);
//   2  no report: usage error, unreadable base, head or base does not bundle, diff failed.
import { relative, resolve } from 'node:path';
import { BaseError } from '../generator/review/base.js';
import { DiffError } from '../generator/review/breaking.js';
import { collectReport, renderReport, reportExitCode, reportSummary } from '../generator/review/report.js';
import { BundleError } from '../generator/steps/bundle.js';
import { commandOptions } from '../generator/support/command-line.js';
import { writeFileAtomic } from '../generator/support/fs.js';

const USAGE = `usage: tsx scripts/report.ts [--base <git ref | version | released file>] [--out report.md]
                         [--root openapi/openapi.yaml] [--generated generated/] [--no-lint] [--no-drift]`;

const values = commandOptions(
  {
    options: {
      base: { type: 'string' },
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

let data: Awaited<ReturnType<typeof collectReport>>;
try {
  data = await collectReport({
    ...(values.base !== undefined ? { base: values.base } : {}),
    ...(values.root ? { root: resolve(values.root) } : {}),
    ...(values.generated ? { generated: resolve(values.generated) } : {}),
    ...(values.releases ? { releasesDir: resolve(values.releases) } : {}),
    lint: !values['no-lint'],
    drift: !values['no-drift'],
  });
} catch (err) {
  if (err instanceof BaseError || err instanceof BundleError || err instanceof DiffError) {
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
