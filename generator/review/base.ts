import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type BundleResult, bundleContract, type OpenApiDocument } from '../steps/bundle.js';
import { DEFAULT_ROOT } from '../support/paths.js';
import { type ContractInput, latestRelease, parseSemver, RELEASES_DIR } from './breaking.js';

// The contract a change is compared with ("the base"), named the way a reviewer names it:
//   - nothing: the latest recorded release, the baseline of `npm run check:breaking`;
//   - a file (`*.json`, `*.yaml`, `*.yml` that exists): a released, bundled contract;
//   - a version (`2.0.0`, `v2.0.0`): openapi/releases/<version>.yaml when recorded, else the git
//     tag `v<version>` or `<version>`;
//   - anything else: a git ref (branch, tag, commit), whose tree holding the root is bundled.

export interface Base {
  kind: 'release' | 'file' | 'git';
  /** For people: "release 2.0.0 (openapi/releases/2.0.0.yaml)", "`main` at 1a2b3c4". */
  label: string;
  document: OpenApiDocument;
  /** What generator/review/breaking.ts compares: the file, or the bundle (mapped to its source files). */
  input: ContractInput;
  /** git: the temporary checkout of the ref's tree; source files under it are named relative to it. */
  checkout?: string;
  /** Removes the temporary checkout (a no-op for files). */
  dispose(): Promise<void>;
}

export class BaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BaseError';
  }
}

export interface LoadBaseOptions {
  /** Root of the contract's source (default openapi/openapi.yaml); a git base bundles the same path in the ref's tree. */
  root?: string;
  releasesDir?: string;
}

export async function loadBase(spec: string | undefined, options: LoadBaseOptions = {}): Promise<Base> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const releasesDir = options.releasesDir ?? RELEASES_DIR;
  if (spec === undefined || spec === '') {
    const latest = await latestRelease(releasesDir);
    if (!latest)
      throw new BaseError(
        `no release recorded in ${rel(releasesDir)}/ and no --base given: name a git ref, a version or a file`,
      );
    return fromFile(latest.file, 'release', `release ${latest.version} (\`${rel(latest.file)}\`)`);
  }
  if (/\.(json|ya?ml)$/i.test(spec) && existsSync(resolve(spec)))
    return fromFile(resolve(spec), 'file', `\`${rel(resolve(spec))}\``);

  const version = /^v?(.+)$/.exec(spec)![1]!;
  if (parseSemver(version)) {
    const file = join(releasesDir, `${version}.yaml`);
    if (existsSync(file)) return fromFile(file, 'release', `release ${version} (\`${rel(file)}\`)`);
    for (const tag of [`v${version}`, version]) {
      if (await commitOf(root, `refs/tags/${tag}`))
        return fromGit(root, `refs/tags/${tag}`, `release ${version} (tag \`${tag}\`)`);
    }
    throw new BaseError(`release ${version}: neither ${rel(file)} nor a git tag v${version} or ${version} exists`);
  }
  return fromGit(root, spec, `\`${spec}\``);
}

async function fromFile(file: string, kind: 'release' | 'file', label: string): Promise<Base> {
  let document: OpenApiDocument;
  try {
    document = parseYaml(await readFile(file, 'utf8')) as OpenApiDocument; // JSON is YAML too
  } catch (err) {
    throw new BaseError(`${rel(file)} does not parse: ${(err as Error).message}`);
  }
  return { kind, label, document, input: file, dispose: async () => undefined };
}

/** Bundles the root as it is in the ref's tree: the root's folder is extracted with `git archive` (no checkout, no index touched). */
async function fromGit(root: string, ref: string, label: string): Promise<Base> {
  const top = (await git(dirname(root), ['rev-parse', '--show-toplevel']).catch(() => undefined))?.trim();
  if (!top) throw new BaseError(`${rel(root)} is not in a git repository, so the base '${ref}' cannot be read`);
  const commit = await commitOf(root, ref);
  if (!commit) throw new BaseError(`'${ref}' is neither a recorded release, a file, nor a git ref of ${rel(top)}`);
  const folder = relative(top, dirname(root)).split('\\').join('/') || '.';
  const checkout = await mkdtemp(join(tmpdir(), 'contract-base-'));
  const dispose = () => rm(checkout, { recursive: true, force: true });
  try {
    await archive(top, commit, folder, checkout);
    const baseRoot = join(checkout, relative(top, root));
    if (!existsSync(baseRoot)) throw new BaseError(`${ref} has no ${relative(top, root)}`);
    const bundle: BundleResult = await bundleContract({ root: baseRoot });
    return {
      kind: 'git',
      label: `${label} at ${commit.slice(0, 7)}`,
      document: bundle.document,
      input: bundle,
      checkout,
      dispose,
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}

async function commitOf(root: string, ref: string): Promise<string | undefined> {
  return (
    (
      await git(dirname(root), ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).catch(
        () => '',
      )
    )?.trim() || undefined
  );
}

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done(out) : fail(new BaseError(`git ${args.join(' ')}: ${err.trim() || `exit ${code}`}`)),
    );
  });
}

/** `git archive <commit> <folder> | tar -x -C <dest>`. */
function archive(top: string, commit: string, folder: string, dest: string): Promise<void> {
  return new Promise((done, fail) => {
    const gitProc = spawn('git', ['archive', '--format=tar', commit, '--', folder], {
      cwd: top,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tar = spawn('tar', ['-x', '-C', dest], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    gitProc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    tar.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    gitProc.stdout.pipe(tar.stdin);
    let pending = 2;
    let failed = false;
    const finish = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        fail(new BaseError(`${what} failed: ${err.trim() || `exit ${code}`}`));
      }
      if (--pending === 0 && !failed) done();
    };
    gitProc.on('error', fail).on('close', finish(`git archive ${commit} ${folder}`));
    tar.on('error', fail).on('close', finish('tar -x'));
  });
}

const rel = (p: string) => relative(process.cwd(), p) || '.';
