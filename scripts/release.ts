// npm run release:check -- --tag v2.1.0 [--registry <url>] [--root openapi/openapi.yaml] [--releases openapi/releases]
// npm run release:assets -- --tag v2.1.0 --asset <file> [--asset <file>…] [--api-url <url>]
//
// The release tag's workflow (generator/code-host/release.ts). `check`: the tag is v<info.version>,
// package.json has that version, and openapi/releases/<version>.yaml is the contract at the tag
// (what `npm run check:breaking -- --record` writes now); with a --registry (not empty), the package
// may be published there. `assets`: attaches the files (the SDK tarball, the bundle) to the tag's GitHub release,
// creating it if needed (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL). Exit codes: 0 done;
// 1 a check failed or GitHub refused; 2 usage.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CodeHostError, contextFromEnv, octokitFor } from '../generator/code-host/github.js';
import { attachReleaseAssets, releaseProblems } from '../generator/code-host/release.js';
import { RELEASES_DIR } from '../generator/review/breaking.js';
import { BundleError, bundleContract } from '../generator/steps/bundle.js';
import { commandOptions } from '../generator/support/command-line.js';
import { DEFAULT_ROOT, REPO_ROOT } from '../generator/support/paths.js';

const USAGE = `usage: tsx scripts/release.ts check --tag v<version> [--registry <url>] [--root openapi/openapi.yaml] [--releases openapi/releases]
       tsx scripts/release.ts assets --tag v<version> --asset <file> [--asset <file>…] [--api-url <url>]`;

const [command, ...rest] = process.argv.slice(2);
const values = commandOptions(
  {
    args: rest,
    options: {
      tag: { type: 'string' },
      registry: { type: 'string' },
      root: { type: 'string' },
      releases: { type: 'string' },
      asset: { type: 'string', multiple: true },
      'api-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  },
  USAGE,
);
const files = values.asset ?? [];

if ((command !== 'check' && command !== 'assets') || !values.tag || (command === 'assets' && files.length === 0)) {
  console.error(USAGE);
  process.exit(2);
}

async function check(tag: string): Promise<string> {
  let bundle: Awaited<ReturnType<typeof bundleContract>>;
  try {
    bundle = await bundleContract({ root: values.root ? resolve(values.root) : DEFAULT_ROOT });
  } catch (err) {
    if (err instanceof BundleError) throw new CodeHostError(`the contract does not bundle: ${err.message}`);
    throw err;
  }
  const packageJson = JSON.parse(await readFile(resolve(REPO_ROOT, 'package.json'), 'utf8'));
  const problems = await releaseProblems({
    tag,
    bundle,
    releasesDir: values.releases ? resolve(values.releases) : RELEASES_DIR,
    packageJson,
    publish: Boolean(values.registry),
  });
  if (problems.length > 0) throw new CodeHostError(`${tag} cannot be released:\n  ${problems.join('\n  ')}`);
  return `${tag}: the contract, package.json and the recorded release agree`;
}

async function assets(tag: string): Promise<string> {
  const context = contextFromEnv(process.env, values['api-url']);
  const result = await attachReleaseAssets(octokitFor(context), context, tag, files);
  return `${result.created ? 'created' : 'updated'} the release ${result.releaseUrl}:\n  ${result.assets.join('\n  ')}`;
}

try {
  console.log(await (command === 'check' ? check(values.tag) : assets(values.tag)));
} catch (err) {
  if (!(err instanceof CodeHostError)) throw err;
  console.error(`release: ${err.message}`);
  process.exitCode = 1;
}
