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
//   - nothing: the merge base of HEAD and the pull request's target branch (from the CI
//     environment, or --target), else the merge base with the default branch when HEAD is another
//     branch, else (on the default branch itself, outside git) the latest recorded release: see
//     defaultBase();
//   - a file (`*.json`, `*.yaml`, `*.yml` that exists): a released, bundled contract;
//   - a version (`2.0.0`, `v2.0.0`): openapi/releases/<version>.yaml when recorded, else the git
//     tag `v<version>` or `<version>`;
//   - anything else: a git ref (branch, tag, commit), whose tree holding the root is bundled.

export interface Base {
  kind: 'release' | 'file' | 'git';
  /** For people: "release 2.0.0 (openapi/releases/2.0.0.yaml)", "`main` at 1a2b3c4". */
  label: string;
  /** Why this base: how it was named or chosen ("--base", "GITHUB_BASE_REF=main", …). */
  reason: string;
  document: OpenApiDocument;
  /** What generator/review/breaking.ts compares: the file, or the bundle (mapped to its source files). */
  input: ContractInput;
  /** git: the temporary checkout of the ref's tree; source files under it are named relative to it. */
  checkout?: string;
  /** git: the contract's root in the checkout (files beside it, such as the accepted changes, are the base's). */
  root?: string;
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
  /** The pull request's target branch (`--target`); default from the CI environment. */
  target?: string;
  /** Where the CI variables are read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** CI variables that name a pull request's target branch, in the order they are read. */
export const TARGET_VARIABLES = ['GITHUB_BASE_REF', 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME'] as const;

export async function loadBase(spec: string | undefined, options: LoadBaseOptions = {}): Promise<Base> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const releasesDir = options.releasesDir ?? RELEASES_DIR;
  if (spec === undefined || spec === '') return defaultBase(root, releasesDir, options);
  const why = `--base ${spec}`;
  if (/\.(json|ya?ml)$/i.test(spec) && existsSync(resolve(spec)))
    return fromFile(resolve(spec), 'file', `\`${rel(resolve(spec))}\``, why);

  const version = /^v?(.+)$/.exec(spec)![1]!;
  if (parseSemver(version)) {
    const file = join(releasesDir, `${version}.yaml`);
    if (existsSync(file)) return fromFile(file, 'release', `release ${version} (\`${rel(file)}\`)`, why);
    for (const tag of [`v${version}`, version]) {
      if (await commitOf(root, `refs/tags/${tag}`))
        return fromGit(root, `refs/tags/${tag}`, `release ${version} (tag \`${tag}\`)`, why);
    }
    throw new BaseError(`release ${version}: neither ${rel(file)} nor a git tag v${version} or ${version} exists`);
  }
  return fromGit(root, spec, `\`${spec}\``, why);
}

/**
 * The base when none is named. A pull request is held to what it changes: the merge base of HEAD
 * and its target branch (--target, else GITHUB_BASE_REF on GitHub Actions or
 * CI_MERGE_REQUEST_TARGET_BRANCH_NAME on GitLab; `origin/<target>` first, then `<target>`). With
 * no target, a branch other than the default one (origin/HEAD, else origin/main, origin/master,
 * main, master) is held to its merge base with the default branch. The default branch itself, a
 * detached HEAD on its history, and a contract outside git (an npm tarball) are compared with the
 * latest recorded release.
 */
async function defaultBase(root: string, releasesDir: string, options: LoadBaseOptions): Promise<Base> {
  const release = async (reason: string): Promise<Base> => {
    const latest = await latestRelease(releasesDir);
    if (!latest)
      throw new BaseError(
        `${reason}, but no release is recorded in ${rel(releasesDir)}/ and no --base given: name a git ref, a version or a file`,
      );
    return fromFile(latest.file, 'release', `release ${latest.version} (\`${rel(latest.file)}\`)`, reason);
  };
  const top = await toplevel(root);
  if (!top) return release(`${rel(root)} is not in a git checkout, so the last release`);

  const env = options.env ?? process.env;
  const named = options.target
    ? { name: options.target, from: `--target ${options.target}` }
    : TARGET_VARIABLES.map((v) => ({ name: env[v]?.trim() ?? '', from: `${v}=${env[v]?.trim()}` })).find(
        (t) => t.name !== '',
      );
  if (named) {
    const candidates = [`origin/${named.name}`, named.name];
    let ref: string | undefined;
    for (const c of candidates) if (!ref && (await commitOf(root, c))) ref = c;
    if (!ref)
      throw new BaseError(
        `the pull request's target branch '${named.name}' (${named.from}) is neither ${candidates.join(' nor ')} in this clone: ` +
          `fetch it (\`git fetch origin ${named.name}\`; on GitHub Actions, actions/checkout with fetch-depth: 0)`,
      );
    const base = await mergeBase(root, ref);
    if (!base)
      throw new BaseError(
        `HEAD and ${ref} have no merge base in this clone (a shallow clone?): fetch their history (fetch-depth: 0)`,
      );
    return fromGit(root, base, `the merge base of HEAD and \`${ref}\``, `pull-request target from ${named.from}`);
  }

  const main = await defaultBranch(root);
  if (!main)
    return release(
      'no pull-request target in the environment and no default branch (origin/HEAD, main, master), so the last release',
    );
  const branch = (await git(dirname(root), ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')).trim();
  if (branch === main.name) return release(`HEAD is the default branch \`${main.name}\`, so the last release`);
  if (!(await commitOf(root, 'HEAD'))) return release('HEAD has no commit yet, so the last release');
  if (!branch && (await isAncestor(root, 'HEAD', main.ref)))
    return release(`HEAD is a commit of the default branch \`${main.ref}\`, so the last release`);
  const base = await mergeBase(root, main.ref);
  if (!base) return release(`HEAD and the default branch \`${main.ref}\` have no merge base, so the last release`);
  return fromGit(
    root,
    base,
    `the merge base of HEAD and \`${main.ref}\``,
    `no pull-request target in the environment (${TARGET_VARIABLES.join(', ')}); HEAD is ${branch ? `the branch \`${branch}\`` : 'detached'}, so its merge base with the default branch`,
  );
}

async function toplevel(root: string): Promise<string | undefined> {
  if (!existsSync(dirname(root))) return undefined;
  return (await git(dirname(root), ['rev-parse', '--show-toplevel']).catch(() => '')).trim() || undefined;
}

/** The default branch: what origin/HEAD names, else the first of origin/main, origin/master, main, master. */
async function defaultBranch(root: string): Promise<{ ref: string; name: string } | undefined> {
  const remoteHead = (
    await git(dirname(root), ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']).catch(() => '')
  ).trim();
  const fromRemote = /^refs\/remotes\/(origin\/(.+))$/.exec(remoteHead);
  if (fromRemote) return { ref: fromRemote[1]!, name: fromRemote[2]! };
  for (const [full, ref, name] of [
    ['refs/remotes/origin/main', 'origin/main', 'main'],
    ['refs/remotes/origin/master', 'origin/master', 'master'],
    ['refs/heads/main', 'main', 'main'],
    ['refs/heads/master', 'master', 'master'],
  ] as const) {
    if (await commitOf(root, full)) return { ref, name };
  }
  return undefined;
}

async function mergeBase(root: string, ref: string): Promise<string | undefined> {
  return (await git(dirname(root), ['merge-base', 'HEAD', ref]).catch(() => '')).trim() || undefined;
}

async function isAncestor(root: string, commit: string, of: string): Promise<boolean> {
  return git(dirname(root), ['merge-base', '--is-ancestor', commit, of]).then(
    () => true,
    () => false,
  );
}

async function fromFile(file: string, kind: 'release' | 'file', label: string, reason: string): Promise<Base> {
  let document: OpenApiDocument;
  try {
    document = parseYaml(await readFile(file, 'utf8')) as OpenApiDocument; // JSON is YAML too
  } catch (err) {
    throw new BaseError(`${rel(file)} does not parse: ${(err as Error).message}`);
  }
  return { kind, label, reason, document, input: file, dispose: async () => undefined };
}

/** Bundles the root as it is in the ref's tree: the root's folder is extracted with `git archive` (no checkout, no index touched). */
async function fromGit(root: string, ref: string, label: string, reason: string): Promise<Base> {
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
      reason,
      document: bundle.document,
      input: bundle,
      checkout,
      root: baseRoot,
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

/**
 * The same file in the base's tree, for a file beside the contract's root (the accepted changes):
 * only a git base has one.
 */
export function baseFileOf(base: Pick<Base, 'root'>, root: string, file: string): string | undefined {
  if (!base.root) return undefined;
  const inSource = relative(dirname(resolve(root)), resolve(file));
  if (inSource.startsWith('..')) return undefined;
  return join(dirname(base.root), inSource);
}
