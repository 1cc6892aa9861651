// A release tag's checks and assets. The contract's release is recorded before tagging (`npm run
// check:breaking -- --record`, committed): the tag's workflow verifies it, it never writes history.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { Octokit } from '@octokit/rest';
import { parseSemver, recordRelease } from '../review/breaking.js';
import type { BundleResult } from '../steps/bundle.js';
import { CodeHostError, describeFailure, type GitHubContext } from './github.js';

export interface ReleaseFacts {
  /** The pushed tag, `v<version>`. */
  tag: string;
  bundle: Pick<BundleResult, 'document'> & Partial<Pick<BundleResult, 'yaml'>>;
  /** openapi/releases/ */
  releasesDir: string;
  packageJson: { version?: unknown; private?: unknown; repository?: unknown };
  /** The package is to be published to a registry. */
  publish: boolean;
}

/** What stops this tag from being released, in words; empty when it may be. */
export async function releaseProblems(facts: ReleaseFacts): Promise<string[]> {
  const problems: string[] = [];
  const version = /^v(.+)$/.exec(facts.tag)?.[1];
  if (!version || !parseSemver(version)) return [`tag '${facts.tag}' is not v<semver> (such as v2.1.0)`];
  const info = facts.bundle.document.info as { version?: unknown } | undefined;
  if (info?.version !== version)
    problems.push(`tag ${facts.tag} but the contract's info.version is '${String(info?.version)}'`);
  if (facts.packageJson.version !== version)
    problems.push(`tag ${facts.tag} but package.json's version is '${String(facts.packageJson.version)}'`);
  if (facts.publish && facts.packageJson.private === true)
    problems.push('package.json says "private": true, so npm will not publish it: remove it to publish the SDK');
  const repository = facts.packageJson.repository;
  const repositoryUrl =
    typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (facts.publish && !repositoryUrl)
    problems.push("package.json has no repository.url: npm's provenance check needs it to name this repository");

  const released = join(facts.releasesDir, `${version}.yaml`);
  const shown = relative(process.cwd(), released);
  const recorded = await readFile(released, 'utf8').catch(() => undefined);
  if (recorded === undefined) {
    problems.push(
      `${shown} does not exist: record the release (npm run check:breaking -- --record), commit it and tag that commit`,
    );
  } else if (info?.version === version) {
    // What --record would write for this contract now, compared with what was committed.
    const scratch = await mkdtemp(join(tmpdir(), 'release-check-'));
    try {
      const { file } = await recordRelease(facts.bundle, { dir: scratch });
      if ((await readFile(file, 'utf8')) !== recorded)
        problems.push(
          `${shown} is not the contract at ${facts.tag}: record it again (npm run check:breaking -- --record --force), commit it and move the tag`,
        );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  return problems;
}

const CONTENT_TYPES: Record<string, string> = {
  '.tgz': 'application/gzip',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
};

/**
 * Attaches files to the GitHub release of `tag` (created when the tag has none yet), replacing
 * assets of the same name, so that a re-run of the workflow gives the same release.
 */
export async function attachReleaseAssets(
  octokit: Octokit,
  context: GitHubContext,
  tag: string,
  files: string[],
): Promise<{ releaseUrl: string; created: boolean; assets: string[] }> {
  const repo = { owner: context.owner, repo: context.repo };
  const contents = await Promise.all(
    files.map((file) =>
      readFile(file).catch((err: Error) => {
        throw new CodeHostError(`cannot read the asset ${file}: ${err.message}`);
      }),
    ),
  );
  let release: { id: number; html_url: string; upload_url: string };
  let created = false;
  try {
    release = (await octokit.rest.repos.getReleaseByTag({ ...repo, tag })).data;
  } catch (err) {
    if ((err as { status?: unknown }).status !== 404)
      throw describeFailure(err, `reading the release of ${tag} in ${context.owner}/${context.repo}`);
    try {
      release = (
        await octokit.rest.repos.createRelease({ ...repo, tag_name: tag, name: tag, generate_release_notes: true })
      ).data;
      created = true;
    } catch (createErr) {
      throw describeFailure(createErr, `creating the release of ${tag} in ${context.owner}/${context.repo}`, {
        403: 'the job needs `permissions: contents: write`',
      });
    }
  }

  const assets: string[] = [];
  try {
    const existing = await octokit.paginate(octokit.rest.repos.listReleaseAssets, {
      ...repo,
      release_id: release.id,
      per_page: 100,
    });
    for (const [i, file] of files.entries()) {
      const name = basename(file);
      const old = existing.find((a) => a.name === name);
      if (old) await octokit.rest.repos.deleteReleaseAsset({ ...repo, asset_id: old.id });
      const data = contents[i]!;
      const ext = /\.[^.]+$/.exec(name)?.[0] ?? '';
      const { data: asset } = await octokit.request({
        method: 'POST',
        url: release.upload_url,
        name,
        data,
        headers: { 'content-type': CONTENT_TYPES[ext] ?? 'application/octet-stream', 'content-length': data.length },
      });
      assets.push((asset as { browser_download_url?: string }).browser_download_url ?? name);
    }
  } catch (err) {
    throw describeFailure(err, `attaching assets to the release of ${tag}`, {
      403: 'the job needs `permissions: contents: write`',
    });
  }
  return { releaseUrl: release.html_url, created, assets };
}
