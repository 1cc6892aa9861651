// A release tag's checks and its GitHub release (generator/code-host/release.ts), the assets against a
// local fake of GitHub's REST API.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodeHostError, type GitHubContext, octokitFor } from '../../generator/code-host/github.js';
import { attachReleaseAssets, releaseProblems } from '../../generator/code-host/release.js';
import { recordRelease } from '../../generator/review/breaking.js';
import { type FakeGitHub, startFakeGitHub } from '../support/fake-github.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'release-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bundleOf = (version: string) => ({
  document: { openapi: '3.1.0', info: { title: 'Payments', version }, paths: { '/payments': {} } },
});

describe('releaseProblems', () => {
  const facts = (tag: string, version = '2.1.0', extra: { private?: boolean; publish?: boolean } = {}) => ({
    tag,
    bundle: bundleOf(version),
    releasesDir: dir,
    packageJson: {
      version,
      private: extra.private ?? false,
      repository: { url: 'git+https://github.com/acme/payment-api.git' },
    },
    publish: extra.publish ?? false,
  });

  it('passes a tag that names the version of the contract, the package and the recorded release', async () => {
    await recordRelease(bundleOf('2.1.0'), { dir });
    expect(await releaseProblems(facts('v2.1.0'))).toEqual([]);
    expect(await releaseProblems(facts('v2.1.0', '2.1.0', { publish: true }))).toEqual([]);
  });

  it('refuses a tag that is not v<semver>, or that the contract and package.json disagree with', async () => {
    await recordRelease(bundleOf('2.1.0'), { dir });
    expect(await releaseProblems(facts('release-2.1'))).toEqual([
      "tag 'release-2.1' is not v<semver> (such as v2.1.0)",
    ]);
    const problems = await releaseProblems({ ...facts('v2.2.0'), packageJson: { version: '2.0.0' } });
    expect(problems).toEqual([
      "tag v2.2.0 but the contract's info.version is '2.1.0'",
      "tag v2.2.0 but package.json's version is '2.0.0'",
      expect.stringMatching(/2\.2\.0\.yaml does not exist: record the release \(npm run check:breaking -- --record\)/),
    ]);
  });

  it('refuses a release file that is not the contract at the tag, and a private package to publish', async () => {
    const { file } = await recordRelease(bundleOf('2.1.0'), { dir });
    await writeFile(file, (await readFile(file, 'utf8')).replace('/payments', '/payouts'));
    expect(await releaseProblems(facts('v2.1.0'))).toEqual([
      expect.stringMatching(/2\.1\.0\.yaml is not the contract at v2\.1\.0: record it again .*--record --force/),
    ]);
    await recordRelease(bundleOf('2.1.0'), { dir, force: true });
    expect(await releaseProblems(facts('v2.1.0', '2.1.0', { private: true }))).toEqual([]);
    expect(await releaseProblems(facts('v2.1.0', '2.1.0', { private: true, publish: true }))).toEqual([
      expect.stringMatching(/"private": true, so npm will not publish it/),
    ]);
    const withoutRepository = { ...facts('v2.1.0', '2.1.0', { publish: true }), packageJson: { version: '2.1.0' } };
    expect(await releaseProblems(withoutRepository)).toEqual([
      expect.stringMatching(/no repository\.url: npm's provenance check needs it/),
    ]);
    expect(await releaseProblems({ ...withoutRepository, publish: false })).toEqual([]);
  });
});

describe('attachReleaseAssets', () => {
  let gh: FakeGitHub;
  afterEach(async () => {
    await gh?.close();
  });
  const TOKENS = { 'tok-write': { login: 'github-actions[bot]' }, 'tok-read': { login: 'reader', readOnly: true } };
  const contextFor = (token: string): GitHubContext => ({ token, owner: gh.owner, repo: gh.repo, apiUrl: gh.baseUrl });
  const attach = (files: string[], token = 'tok-write') =>
    attachReleaseAssets(octokitFor(contextFor(token)), contextFor(token), 'v2.1.0', files);

  it('creates the release once, uploads the files and replaces them on a re-run', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS });
    const tarball = join(dir, 'payment-service-api-v2-2.1.0.tgz');
    const bundle = join(dir, 'openapi.json');
    await writeFile(tarball, 'tarball one');
    await writeFile(bundle, '{"openapi":"3.1.0"}');
    const first = await attach([tarball, bundle]);
    expect(first.created).toBe(true);
    expect(first.assets).toEqual([
      expect.stringMatching(/\/payment-service-api-v2-2\.1\.0\.tgz$/),
      expect.stringMatching(/\/openapi\.json$/),
    ]);
    expect(gh.releases).toHaveLength(1);
    expect(gh.releases[0]!.assets.map((a) => [a.name, a.contentType, a.data.toString()])).toEqual([
      ['payment-service-api-v2-2.1.0.tgz', 'application/gzip', 'tarball one'],
      ['openapi.json', 'application/json', '{"openapi":"3.1.0"}'],
    ]);

    await writeFile(tarball, 'tarball two');
    const second = await attach([tarball, bundle]);
    expect(second.created).toBe(false);
    expect(gh.releases).toHaveLength(1);
    expect(gh.releases[0]!.assets.map((a) => [a.name, a.data.toString()]).sort()).toEqual([
      ['openapi.json', '{"openapi":"3.1.0"}'],
      ['payment-service-api-v2-2.1.0.tgz', 'tarball two'],
    ]);
  });

  it('says what to fix when the token cannot write or a file is missing', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS });
    const file = join(dir, 'openapi.json');
    await writeFile(file, '{}');
    await expect(attach([file], 'tok-read')).rejects.toThrow(
      /creating the release of v2\.1\.0 in acme\/payment-api: GitHub answered 403 .*contents: write/,
    );
    await expect(attach([file], 'tok-none')).rejects.toThrow(/GitHub answered 401 \(Bad credentials\)/);
    const before = gh.requests.length;
    await expect(attach([join(dir, 'missing.tgz')])).rejects.toBeInstanceOf(CodeHostError);
    expect(gh.requests.length).toBe(before);
    expect(gh.releases).toEqual([]);
  });
});
