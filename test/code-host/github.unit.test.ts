// What the code host's scripts share (generator/code-host/github.ts), without a network: the context
// read from the environment GitHub Actions sets, the event payload, and a REST failure told as what
// to fix.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CodeHostError,
  contextFromEnv,
  describeFailure,
  eventPayload,
  octokitFor,
} from '../../generator/code-host/github.js';

const dir = mkdtempSync(join(tmpdir(), 'github-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('contextFromEnv', () => {
  it('reads the token and the repository, and the API URL or GitHub.com', () => {
    const env = { GITHUB_TOKEN: 't0k', GITHUB_REPOSITORY: 'acme/payments' };
    expect(contextFromEnv(env)).toEqual({
      token: 't0k',
      owner: 'acme',
      repo: 'payments',
      apiUrl: 'https://api.github.com',
    });
    expect(contextFromEnv({ ...env, GITHUB_API_URL: 'https://ghe.example/api/v3' }).apiUrl).toBe(
      'https://ghe.example/api/v3',
    );
    expect(contextFromEnv(env, 'http://127.0.0.1:9').apiUrl).toBe('http://127.0.0.1:9');
  });

  it('names what is missing or malformed', () => {
    expect(() => contextFromEnv({ GITHUB_REPOSITORY: 'acme/payments' })).toThrow(
      new CodeHostError('GITHUB_TOKEN is not set'),
    );
    expect(() => contextFromEnv({ GITHUB_TOKEN: 't' })).toThrow('GITHUB_REPOSITORY is not set');
    for (const repository of ['acme', 'acme/payments/extra', '/payments'])
      expect(() => contextFromEnv({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: repository })).toThrow(
        `GITHUB_REPOSITORY '${repository}' is not owner/name`,
      );
  });
});

describe('eventPayload', () => {
  it('is undefined outside a workflow, the parsed event inside one, and an error naming an unreadable file', async () => {
    expect(await eventPayload({})).toBeUndefined();
    const event = join(dir, 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
    expect(await eventPayload({ GITHUB_EVENT_PATH: event })).toEqual({ pull_request: { number: 7 } });
    const missing = join(dir, 'none.json');
    await expect(eventPayload({ GITHUB_EVENT_PATH: missing })).rejects.toThrow(
      `cannot read the event payload at GITHUB_EVENT_PATH (${missing}): ENOENT`,
    );
  });
});

describe('describeFailure', () => {
  const failure = (status: number, message?: string) =>
    Object.assign(new Error('HttpError'), { status, response: { data: { message } } });

  it('names the request, the status, GitHub’s message and the likely fix', () => {
    expect(describeFailure(failure(403, 'Resource not accessible by integration'), 'posting the comment').message).toBe(
      'posting the comment: GitHub answered 403 (Resource not accessible by integration): the token may not do this: check the permissions of the workflow job (a forked pull request gets a read-only token)',
    );
    expect(describeFailure(failure(404), 'reading the release', { 404: 'no release for the tag' }).message).toBe(
      'reading the release: GitHub answered 404: no release for the tag',
    );
    expect(describeFailure(failure(422, 'Validation Failed'), 'uploading').message).toBe(
      'uploading: GitHub answered 422 (Validation Failed)',
    );
    expect(describeFailure(failure(401), 'x')).toBeInstanceOf(CodeHostError);
  });

  it('passes on what is not a REST failure', () => {
    const plain = new Error('socket hang up');
    expect(describeFailure(plain, 'x')).toBe(plain);
    expect(describeFailure('text', 'x').message).toBe('text');
  });
});

describe('octokitFor', () => {
  it('a client for the context’s API, authenticated with its token', async () => {
    const octokit = octokitFor({ token: 't0k', owner: 'acme', repo: 'payments', apiUrl: 'http://127.0.0.1:9' });
    const request = octokit.request.endpoint('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'payments' });
    expect(request.url).toBe('http://127.0.0.1:9/repos/acme/payments');
    expect(await octokit.auth()).toMatchObject({ token: 't0k', type: 'token' });
  });
});
