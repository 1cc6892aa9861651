// The pull request's one report comment: found by a hidden marker among the comments its author
// (the workflow's bot) wrote, updated in place on every push, created only when there is none.
import type { Octokit } from '@octokit/rest';
import { CodeHostError, describeFailure, type GitHubContext } from './github.js';

export const REPORT_MARKER = '<!-- payment-api-contract-report -->';
/** Who writes the comment with the workflow's GITHUB_TOKEN. */
export const DEFAULT_AUTHOR = 'github-actions[bot]';
/** GitHub refuses comment bodies over 65 536 characters. */
export const MAX_COMMENT_CHARS = 65_536;

export interface UpsertOptions {
  pullNumber: number;
  body: string;
  marker?: string;
  /** Only this user's comments are candidates: anyone may paste the marker into a comment of their own. */
  author?: string;
  /** Appended to a body cut to fit (e.g. where the whole report is). */
  truncationNote?: string;
}

export interface UpsertResult {
  action: 'created' | 'updated';
  id: number;
  url: string | undefined;
}

/** The body as posted: the marker first, cut on a line boundary to GitHub's limit. */
export function commentBody(body: string, marker = REPORT_MARKER, truncationNote = ''): string {
  const full = `${marker}\n${body}`;
  if (full.length <= MAX_COMMENT_CHARS) return full;
  const tail = `\n\n… (cut to fit a comment${truncationNote ? `; ${truncationNote}` : ''})\n`;
  const room = MAX_COMMENT_CHARS - tail.length;
  const cut = full.lastIndexOf('\n', room);
  return full.slice(0, cut > marker.length ? cut : room) + tail;
}

/** The first comment of `author` on the pull request that carries the marker, reading every page. */
export async function findReportComment(
  octokit: Octokit,
  context: GitHubContext,
  pullNumber: number,
  marker = REPORT_MARKER,
  author = DEFAULT_AUTHOR,
): Promise<{ id: number; body: string } | undefined> {
  try {
    const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
      owner: context.owner,
      repo: context.repo,
      issue_number: pullNumber,
      per_page: 100,
    });
    for await (const page of pages) {
      const found = page.data.find((c) => c.user?.login === author && c.body?.includes(marker));
      if (found) return { id: found.id, body: found.body ?? '' };
    }
    return undefined;
  } catch (err) {
    throw describeFailure(
      err,
      `listing the comments of pull request #${pullNumber} in ${context.owner}/${context.repo}`,
    );
  }
}

export async function upsertReportComment(
  octokit: Octokit,
  context: GitHubContext,
  options: UpsertOptions,
): Promise<UpsertResult> {
  const marker = options.marker ?? REPORT_MARKER;
  const body = commentBody(options.body, marker, options.truncationNote);
  const existing = await findReportComment(octokit, context, options.pullNumber, marker, options.author);
  const where = `pull request #${options.pullNumber} in ${context.owner}/${context.repo}`;
  const writeHint = {
    403: 'the token may not write comments: the job needs `permissions: pull-requests: write`, and a forked pull request gets a read-only token (the workflow then writes the report to the job summary only)',
  };
  try {
    if (existing) {
      const { data } = await octokit.rest.issues.updateComment({
        owner: context.owner,
        repo: context.repo,
        comment_id: existing.id,
        body,
      });
      return { action: 'updated', id: data.id, url: data.html_url };
    }
    const { data } = await octokit.rest.issues.createComment({
      owner: context.owner,
      repo: context.repo,
      issue_number: options.pullNumber,
      body,
    });
    return { action: 'created', id: data.id, url: data.html_url };
  } catch (err) {
    throw describeFailure(err, `${existing ? 'updating' : 'creating'} the report comment on ${where}`, writeHint);
  }
}

export interface PullRequestEvent {
  number: number;
  /** The head branch lives in another repository: its workflow token is read-only. */
  fromFork: boolean;
}

/** The pull request of a `pull_request` event payload. */
export function pullRequestOf(payload: Record<string, unknown> | undefined): PullRequestEvent | undefined {
  const pr = payload?.pull_request as
    | { number?: unknown; head?: { repo?: { full_name?: unknown } | null }; base?: { repo?: { full_name?: unknown } } }
    | undefined;
  if (!pr || typeof pr.number !== 'number') return undefined;
  const head = pr.head?.repo?.full_name;
  const base = pr.base?.repo?.full_name;
  // A head repository that was deleted (null) is a fork too.
  return { number: pr.number, fromFork: head !== base };
}

export function parsePullNumber(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new CodeHostError(`--pr '${text}' is not a pull request number`);
  return n;
}
