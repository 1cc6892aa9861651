// The pull request's report comment against a local fake of GitHub's REST API: one comment,
// created once and updated in place, found across pages, never another user's, with clear failures.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  commentBody,
  DEFAULT_AUTHOR,
  MAX_COMMENT_CHARS,
  pullRequestOf,
  REPORT_MARKER,
  upsertReportComment,
} from '../../generator/code-host/comment.js';
import { CodeHostError, type GitHubContext, octokitFor } from '../../generator/code-host/github.js';
import { type FakeGitHub, startFakeGitHub } from '../support/fake-github.js';
import { runScript } from '../support/scripts.js';

const BOT = DEFAULT_AUTHOR;
const TOKENS = {
  'tok-bot': { login: BOT },
  'tok-fork': { login: BOT, readOnly: true },
  'tok-alice': { login: 'alice' },
};
const PR = 7;

let gh: FakeGitHub;
const contextFor = (token: string): GitHubContext => ({ token, owner: gh.owner, repo: gh.repo, apiUrl: gh.baseUrl });
const post = (body: string, token = 'tok-bot', pullNumber = PR) =>
  upsertReportComment(octokitFor(contextFor(token)), contextFor(token), { pullNumber, body });
const botComments = () => gh.comments.filter((c) => c.issue === PR && c.user.login === BOT);

afterEach(async () => {
  await gh?.close();
});

describe('upsertReportComment', () => {
  it('creates the comment on the first run and updates that same comment on the next', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    const first = await post('report one\n');
    expect(first.action).toBe('created');
    expect(botComments()).toHaveLength(1);
    expect(botComments()[0]!.body).toBe(`${REPORT_MARKER}\nreport one\n`);

    const second = await post('report two\n');
    expect(second).toMatchObject({ action: 'updated', id: first.id });
    const third = await post('report three\n');
    expect(third).toMatchObject({ action: 'updated', id: first.id });
    expect(botComments()).toHaveLength(1);
    expect(botComments()[0]!.body).toBe(`${REPORT_MARKER}\nreport three\n`);
    expect(gh.requests.filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(gh.requests.filter((r) => r.startsWith('PATCH'))).toHaveLength(2);
  });

  it('pages through the comments to find its own on a later page', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR], maxPerPage: 2 });
    for (let i = 0; i < 5; i++) gh.seedComment(PR, i % 2 ? 'alice' : 'bob', `comment ${i}`);
    const own = gh.seedComment(PR, BOT, `${REPORT_MARKER}\nold report\n`);
    const result = await post('new report\n');
    expect(result).toMatchObject({ action: 'updated', id: own.id });
    expect(own.body).toBe(`${REPORT_MARKER}\nnew report\n`);
    expect(gh.requests.filter((r) => r.startsWith('GET') && r.includes('/issues/7/comments'))).toEqual([
      'GET /repos/acme/payment-api/issues/7/comments?per_page=100',
      'GET /repos/acme/payment-api/issues/7/comments?per_page=2&page=2',
      'GET /repos/acme/payment-api/issues/7/comments?per_page=2&page=3',
    ]);
    expect(gh.comments).toHaveLength(6);
  });

  it("leaves other users' comments alone, even with the marker, and ignores its own comments without it", async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    const quoted = gh.seedComment(PR, 'alice', `Why does ${REPORT_MARKER} say this?`);
    const plain = gh.seedComment(PR, BOT, 'a comment of the bot without the marker');
    const otherPull = gh.seedComment(8, BOT, `${REPORT_MARKER}\nthe report of another pull request\n`);
    const result = await post('the report\n');
    expect(result.action).toBe('created');
    expect(quoted.body).toBe(`Why does ${REPORT_MARKER} say this?`);
    expect(plain.body).toBe('a comment of the bot without the marker');
    expect(otherPull.body).toBe(`${REPORT_MARKER}\nthe report of another pull request\n`);
    expect(botComments().filter((c) => c.body.includes(REPORT_MARKER))).toHaveLength(1);
    await post('the report again\n');
    expect(gh.comments).toHaveLength(4);
  });

  it('says what to fix on 401, 403 and 404', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    await expect(post('r', 'tok-unknown')).rejects.toThrow(
      /listing the comments of pull request #7 in acme\/payment-api: GitHub answered 401 \(Bad credentials\): the token is missing, expired or wrong/,
    );
    await expect(post('r', 'tok-fork')).rejects.toThrow(
      /creating the report comment on pull request #7 .*: GitHub answered 403 .*pull-requests: write.*forked pull request/,
    );
    await expect(post('r', 'tok-bot', 99)).rejects.toThrow(/pull request #99 .*GitHub answered 404 \(Not Found\)/);
    await expect(post('r', 'tok-unknown')).rejects.toBeInstanceOf(CodeHostError);
    expect(gh.comments).toHaveLength(0);
  });
});

describe('the comment body', () => {
  it('puts the marker first and cuts a body over the limit on a line boundary', () => {
    expect(commentBody('short\n')).toBe(`${REPORT_MARKER}\nshort\n`);
    const long = Array.from({ length: 5000 }, (_, i) => `| line ${i} | ${'x'.repeat(20)} |`).join('\n');
    const body = commentBody(long, REPORT_MARKER, 'see the job summary');
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
    expect(body.startsWith(`${REPORT_MARKER}\n| line 0 |`)).toBe(true);
    expect(body).toMatch(/\| x{20} \|\n\n… \(cut to fit a comment; see the job summary\)\n$/);
  });

  it('reads the pull request and whether it comes from a fork off the event payload', () => {
    const event = (head: string | null) => ({
      pull_request: {
        number: 12,
        head: { repo: head ? { full_name: head } : null },
        base: { repo: { full_name: 'acme/api' } },
      },
    });
    expect(pullRequestOf(event('acme/api'))).toEqual({ number: 12, fromFork: false });
    expect(pullRequestOf(event('mallory/api'))).toEqual({ number: 12, fromFork: true });
    expect(pullRequestOf(event(null))).toEqual({ number: 12, fromFork: true });
    expect(pullRequestOf({ ref: 'refs/heads/main' })).toBeUndefined();
  });
});

describe('npm run report:comment', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'report-comment-'));
    await writeFile(join(dir, 'report.md'), '<!-- contract-report -->\n| Check | Result |\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(args: string[], env: { token?: string; head?: string; actor?: string }) {
    const event = join(dir, env.head ? 'event-fork.json' : 'event.json');
    const base = `${gh.owner}/${gh.repo}`;
    await writeFile(
      event,
      JSON.stringify({
        pull_request: {
          number: PR,
          head: { repo: { full_name: env.head ?? base } },
          base: { repo: { full_name: base } },
        },
      }),
    );
    const summary = join(dir, 'summary.md');
    await writeFile(summary, '');
    const result = await runScript('post-report-comment', args, {
      env: {
        GITHUB_TOKEN: env.token ?? 'tok-bot',
        GITHUB_REPOSITORY: base,
        GITHUB_API_URL: gh.baseUrl,
        GITHUB_EVENT_PATH: event,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_ACTOR: env.actor ?? 'alice',
      },
    });
    return { ...result, summary: await readFile(summary, 'utf8') };
  }

  it('posts from the event payload, then updates, and writes the job summary', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    const first = await run(['--body', join(dir, 'report.md')], {});
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^created the report comment \d+ on pull request #7: https:\/\/github\.example\//);
    expect(first.summary).toBe('<!-- contract-report -->\n| Check | Result |\n');
    const second = await run(['--body', join(dir, 'report.md')], {});
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^updated the report comment \d+ on pull request #7/);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toBe(`${REPORT_MARKER}\n<!-- contract-report -->\n| Check | Result |\n`);
  });

  it('on a pull request from a fork, or a run of Dependabot, writes the job summary only and calls no API', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    const result = await run(['--body', join(dir, 'report.md')], { token: 'tok-fork', head: 'mallory/payment-api' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/not posted \(a pull request from a fork gets a read-only token\)/);
    expect(result.summary).toContain('| Check | Result |');
    const dependabot = await run(['--body', join(dir, 'report.md')], { token: 'tok-fork', actor: 'dependabot[bot]' });
    expect(dependabot.code, dependabot.stderr).toBe(0);
    expect(dependabot.stdout).toMatch(/not posted \(Dependabot's runs get a read-only token\)/);
    expect(gh.requests).toEqual([]);
  });

  it('exits 1 with the reason when GitHub refuses or the report is missing', async () => {
    gh = await startFakeGitHub({ tokens: TOKENS, pulls: [PR] });
    const refused = await run(['--body', join(dir, 'report.md')], { token: 'tok-fork' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^report comment: creating the report comment .* GitHub answered 403/);
    const unknownPull = await run(['--body', join(dir, 'report.md'), '--pr', '41'], {});
    expect(unknownPull.code).toBe(1);
    expect(unknownPull.stderr).toMatch(/pull request #41 .*GitHub answered 404/);
    const missing = await run(['--body', join(dir, 'nothing.md')], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read the report .*nothing\.md.*did npm run report fail/);
    expect(gh.comments).toHaveLength(0);
  });
});
