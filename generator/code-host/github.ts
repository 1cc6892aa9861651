// What the code host's scripts share: the GitHub REST client and its context (token, repository, pull
// request) read from the environment GitHub Actions sets, and errors that say what to fix.
import { readFile } from 'node:fs/promises';
import { Octokit } from '@octokit/rest';

export interface GitHubContext {
  token: string;
  owner: string;
  repo: string;
  /** GITHUB_API_URL on GitHub Enterprise Server, or a local fake in tests. */
  apiUrl: string;
}

/** A failure the command reports in one line and exits 1 on (no stack trace). */
export class CodeHostError extends Error {
  override name = 'CodeHostError';
}

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (!value) throw new CodeHostError(`${name} is not set`);
  return value;
};

export function contextFromEnv(env: NodeJS.ProcessEnv = process.env, apiUrl?: string): GitHubContext {
  const token = required(env, 'GITHUB_TOKEN');
  const repository = required(env, 'GITHUB_REPOSITORY');
  const [owner, repo, ...rest] = repository.split('/');
  if (!owner || !repo || rest.length > 0)
    throw new CodeHostError(`GITHUB_REPOSITORY '${repository}' is not owner/name`);
  return { token, owner, repo, apiUrl: apiUrl ?? env.GITHUB_API_URL ?? 'https://api.github.com' };
}

/** The payload of the event that started the workflow (GITHUB_EVENT_PATH), or undefined outside one. */
export async function eventPayload(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, unknown> | undefined> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new CodeHostError(`cannot read the event payload at GITHUB_EVENT_PATH (${path}): ${(err as Error).message}`);
  }
}

export function octokitFor(context: GitHubContext): Octokit {
  // No retries and no logging of its own: a failure surfaces once, through describeFailure.
  return new Octokit({
    auth: context.token,
    baseUrl: context.apiUrl,
    userAgent: 'payment-service-api-v2 code-host scripts',
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/** A REST failure as a message that names the request, the status and the likely fix. */
export function describeFailure(err: unknown, doing: string, hints: Partial<Record<number, string>> = {}): Error {
  const status = (err as { status?: unknown }).status;
  if (typeof status !== 'number') return err instanceof Error ? err : new Error(String(err));
  const message = (err as { response?: { data?: { message?: unknown } } }).response?.data?.message;
  const answer = `GitHub answered ${status}${typeof message === 'string' ? ` (${message})` : ''}`;
  const hint =
    hints[status] ??
    {
      401: 'the token is missing, expired or wrong (GITHUB_TOKEN)',
      403: 'the token may not do this: check the permissions of the workflow job (a forked pull request gets a read-only token)',
      404: 'not found, or not visible to this token: check GITHUB_REPOSITORY and the number or tag',
    }[status];
  return new CodeHostError(`${doing}: ${answer}${hint ? `: ${hint}` : ''}`);
}
