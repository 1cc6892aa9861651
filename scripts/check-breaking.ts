// npm run check:breaking [-- --json] [-- --root <file>] [-- --current <bundled file>]
//                        [-- --base <release | file | git ref>] [-- --releases <dir>]
// npm run check:breaking -- --record [--force] [--root <file>] [--releases <dir>]
//
// The breaking-change gate: compares the contract (bundled in memory from openapi/openapi.yaml)
// with its base, by default the latest release in openapi/releases/ (by semver), using `redocly
// diff`. --base names another the way `npm run report` does (generator/review/base.ts): a version, a
// bundled file, or a git ref whose tree is bundled (`--base main` in a pull request). Exit codes:
//   0  no breaking change, or breaking changes accepted because info.version has a greater
//      major version than the release;
//   1  breaking changes;
//   2  nothing to compare with, or the comparison could not run (usage, bundle, diff errors).
// --record writes openapi/releases/<info.version>.yaml from the bundle (never overwrites an
// existing release without --force).
import { relative, resolve } from 'node:path';
import { BaseError, loadBase } from '../generator/review/base.js';
import {
  type Change,
  checkBreaking,
  DiffError,
  formatLocation,
  RELEASES_DIR,
  ReleaseExistsError,
  recordRelease,
} from '../generator/review/breaking.js';
import { BundleError, bundleContract } from '../generator/steps/bundle.js';
import { commandOptions } from '../generator/support/command-line.js';
import { DEFAULT_ROOT } from '../generator/support/paths.js';

const USAGE = `usage: tsx scripts/check-breaking.ts [--json] [--root openapi/openapi.yaml | --current <bundled file>]
                                    [--base <version | bundled file | git ref>] [--releases openapi/releases]
       tsx scripts/check-breaking.ts --record [--force] [--root openapi/openapi.yaml] [--releases openapi/releases]`;

const values = commandOptions(
  {
    options: {
      record: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      root: { type: 'string' },
      current: { type: 'string' },
      base: { type: 'string' },
      // the earlier name of --base <file>
      baseline: { type: 'string' },
      releases: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);
const rel = (p: string) => relative(process.cwd(), p) || '.';
const root = values.root ? resolve(values.root) : DEFAULT_ROOT;
const releasesDir = values.releases ? resolve(values.releases) : RELEASES_DIR;
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};

const baseSpec = values.base ?? values.baseline;
if ((values.record || values.force) && (values.current || baseSpec))
  fail(`--record takes the bundle of --root, not --current/--base\n${USAGE}`);
if (values.force && !values.record) fail(`--force only applies to --record\n${USAGE}`);
if (values.current && values.root)
  fail(`give --root (bundled here) or --current (already bundled), not both\n${USAGE}`);
if (values.base && values.baseline) fail(`give --base (or its earlier name --baseline), not both\n${USAGE}`);

async function bundle() {
  try {
    return await bundleContract({ root });
  } catch (err) {
    if (err instanceof BundleError) return fail(`${err.message}\nbundle failed: cannot check for breaking changes`);
    throw err;
  }
}

if (values.record) {
  try {
    const { version, file, replaced } = await recordRelease(await bundle(), { dir: releasesDir, force: values.force });
    console.log(`${replaced ? 'replaced' : 'recorded'} release ${version}: ${rel(file)}`);
    process.exit(0);
  } catch (err) {
    if (err instanceof ReleaseExistsError) fail(err.message);
    fail(`cannot record the release: ${(err as Error).message}`);
  }
}

let base: Awaited<ReturnType<typeof loadBase>>;
try {
  base = await loadBase(baseSpec, { root, releasesDir });
} catch (err) {
  if (!(err instanceof BaseError) && !(err instanceof BundleError)) throw err;
  const record =
    baseSpec === undefined ? '\nRecord the released contract with `npm run check:breaking -- --record`.' : '';
  fail(`${err.message}${record}`);
}

const t0 = performance.now();
let result: Awaited<ReturnType<typeof checkBreaking>>;
try {
  result = await checkBreaking({
    current: values.current ? resolve(values.current) : await bundle(),
    baseline: base!.input,
  });
} catch (err) {
  if (err instanceof DiffError) fail(err.message);
  throw err;
} finally {
  await base!.dispose();
}
const ms = Math.round(performance.now() - t0);

if (values.json) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const line = (c: Change) => {
    const findings = c.findings.length > 0 ? c.findings : [{ ruleId: '', message: c.message, location: c.location }];
    return findings
      .map(
        (f) =>
          `  ${formatLocation(f.location)} ${c.impact}${f.ruleId ? ` ${f.ruleId}` : ''} ${f.message}\n      shows at ${c.path}`,
      )
      .join('\n');
  };
  console.log(
    `comparing ${result.files.current}, info.version ${result.versions.current}, with ${base!.label}, info.version ${result.versions.baseline}`,
  );
  if (result.breaking.length > 0) {
    console.log(
      `\n${result.accepted ? 'Breaking changes, accepted by the major version bump' : 'BREAKING changes'} (${result.breaking.length}):`,
    );
    for (const c of result.breaking) console.log(line(c));
  }
  if (result.nonBreaking.length > 0) {
    console.log(`\nNon-breaking changes (${result.nonBreaking.length}):`);
    for (const c of result.nonBreaking) console.log(line(c));
  }
  console.log(`\n${result.ok ? 'OK' : 'FAILED'}: ${result.reason} (${ms} ms)`);
}
// exitCode, not process.exit(): exiting at once would cut a long report written to a pipe at
// the pipe's buffer size (64 KiB), e.g. `--json | jq`.
process.exitCode = result.ok ? 0 : 1;
