// Which base the gate and the report compare with when none is named (generator/review/base.ts):
// the merge base with a pull request's target from the CI environment, the merge base with the
// default branch, the last release on the default branch itself and outside git. A temporary git
// repository holds a tiny contract: `main` with two commits, a branch `feature` made after the first.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Base, BaseError, loadBase } from '../../generator/review/base.js';
import type { JsonObject } from '../../tooling/openapi/walker.js';
import { gitIn, NO_TARGET } from '../support/git.js';
import { runScript } from '../support/scripts.js';
import { tinyContract } from '../support/tiny-contract.js';

let dir: string;
let repo: string;
let releases: string;
const commits: Record<string, string> = {};
const rootOf = (project: string) => join(project, 'openapi', 'openapi.yaml');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'breaking-base-'));
  repo = join(dir, 'repo');
  releases = join(dir, 'releases');
  await mkdir(join(repo, 'openapi'), { recursive: true });
  await mkdir(releases);
  // the release: [A, B, R]; main then drops R, the branch drops B, main later adds M
  await writeFile(join(releases, '1.0.0.yaml'), tinyContract(['A', 'B', 'R']));
  const git = gitIn(repo);
  git('init', '-q', '-b', 'main');
  await writeFile(rootOf(repo), tinyContract(['A', 'B']));
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  commits.first = git('rev-parse', 'HEAD').trim();
  git('checkout', '-q', '-b', 'feature');
  await writeFile(rootOf(repo), tinyContract(['A']));
  git('commit', '-q', '-am', 'feature: B dropped');
  git('checkout', '-q', 'main');
  await writeFile(rootOf(repo), tinyContract(['A', 'B', 'M']));
  git('commit', '-q', '-am', 'second: M added');
  commits.second = git('rev-parse', 'HEAD').trim();
  git('checkout', '-q', 'feature');
}, 30_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const enumOf = (base: Base) =>
  (
    ((((base.document.paths as JsonObject)['/things'] as JsonObject).post as JsonObject).requestBody as JsonObject)
      .content as JsonObject
  )['application/json'] as JsonObject;

async function baseFor(project: string, env: Record<string, string>, target?: string) {
  const base = await loadBase(undefined, {
    root: rootOf(project),
    releasesDir: releases,
    env: { ...NO_TARGET, ...env },
    ...(target ? { target } : {}),
  });
  try {
    return {
      label: base.label,
      reason: base.reason,
      kind: base.kind,
      values: (enumOf(base).schema as JsonObject).enum,
    };
  } finally {
    await base.dispose();
  }
}

describe('the default base', () => {
  it('a pull request on GitHub Actions: the merge base with GITHUB_BASE_REF, not the target tip', async () => {
    const base = await baseFor(repo, { GITHUB_BASE_REF: 'main' });
    expect(base).toEqual({
      kind: 'git',
      label: `the merge base of HEAD and \`main\` at ${commits.first!.slice(0, 7)}`,
      reason: 'pull-request target from GITHUB_BASE_REF=main',
      values: ['A', 'B'],
    });
  });

  it('a merge request on GitLab: CI_MERGE_REQUEST_TARGET_BRANCH_NAME, origin/<target> first in a clone', async () => {
    const clone = join(dir, 'clone');
    gitIn(dir)('clone', '-q', repo, clone);
    gitIn(clone)('checkout', '-q', 'feature');
    // a stale local main must not win over origin/main
    gitIn(clone)('branch', '-q', '-f', 'main', 'origin/feature');
    const base = await baseFor(clone, { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main' });
    expect(base.label).toBe(`the merge base of HEAD and \`origin/main\` at ${commits.first!.slice(0, 7)}`);
    expect(base.reason).toBe('pull-request target from CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main');
    const flag = await baseFor(clone, { GITHUB_BASE_REF: 'no-such-branch' }, 'main');
    expect(flag.reason).toBe('pull-request target from --target main');
  }, 30_000);

  it('a target that is not in the clone is an error that says how to fetch it', async () => {
    await expect(baseFor(repo, { GITHUB_BASE_REF: 'develop' })).rejects.toThrow(BaseError);
    await expect(baseFor(repo, { GITHUB_BASE_REF: 'develop' })).rejects.toThrow(
      /target branch 'develop' \(GITHUB_BASE_REF=develop\) is neither origin\/develop nor develop in this clone: fetch it/,
    );
  });

  it('no target, on a branch: the merge base with the default branch', async () => {
    const base = await baseFor(repo, {});
    expect(base.label).toBe(`the merge base of HEAD and \`main\` at ${commits.first!.slice(0, 7)}`);
    expect(base.reason).toMatch(/no pull-request target in the environment .*HEAD is the branch `feature`/);
  });

  it('no target, on the default branch (CI on main): the last release', async () => {
    const git = gitIn(repo);
    git('checkout', '-q', 'main');
    try {
      expect(await baseFor(repo, {})).toEqual({
        kind: 'release',
        label: expect.stringMatching(/^release 1\.0\.0 /),
        reason: 'HEAD is the default branch `main`, so the last release',
        values: ['A', 'B', 'R'],
      });
      git('checkout', '-q', '--detach', commits.first!);
      expect(await baseFor(repo, {})).toMatchObject({
        kind: 'release',
        reason: 'HEAD is a commit of the default branch `main`, so the last release',
      });
    } finally {
      git('checkout', '-q', 'feature');
    }
  });

  it('outside git (an unpacked npm tarball): the last release', async () => {
    const unpacked = join(dir, 'unpacked');
    await cp(join(repo, 'openapi'), join(unpacked, 'openapi'), { recursive: true });
    expect(await baseFor(unpacked, { GITHUB_BASE_REF: 'main' })).toMatchObject({
      kind: 'release',
      reason: expect.stringMatching(/is not in a git checkout, so the last release$/),
      values: ['A', 'B', 'R'],
    });
  });

  it('npm run check:breaking prints the base and why, and fails on the branch’s change only', async () => {
    const run = await runScript('check-breaking', ['--root', rootOf(repo), '--releases', releases], {
      cwd: repo,
      env: { ...NO_TARGET, GITHUB_BASE_REF: 'main' },
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /^base: the merge base of HEAD and `main` at [0-9a-f]{7}, info\.version 1\.0\.0\n {2}why: pull-request target from GITHUB_BASE_REF=main$/m,
    );
    // B dropped on the branch; M (added on main since) and R (dropped before) are not this change's
    expect(run.stdout).toMatch(/^ {2}openapi\/openapi\.yaml:11:\d+ major enum-values-removed .*'B'\.$/m);
    expect(run.stdout).not.toMatch(/'M'|'R'/);
    expect(run.stdout).toMatch(/^FAILED: 1 breaking change\(s\)/m);
  }, 60_000);
});
