// A local fake of the part of GitHub's REST API the code host's scripts use (node:http on
// 127.0.0.1, port 0): a pull request's comments (list with paging by Link headers, create, update)
// and a tag's release with its assets. Tokens are users, with or without write access; 401, 403
// and 404 are answered as GitHub does.
//
//   const gh = await startFakeGitHub({ tokens: { 'tok-bot': { login: 'github-actions[bot]' } }, pulls: [7] });
//   … new Octokit({ auth: 'tok-bot', baseUrl: gh.baseUrl }) …
//   await gh.close();
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string };
}

export interface FakeAsset {
  id: number;
  name: string;
  contentType: string;
  data: Buffer;
}

export interface FakeRelease {
  id: number;
  tag: string;
  assets: FakeAsset[];
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  /** token → user; `readOnly` tokens get 403 on every write, as a forked pull request's token does. */
  tokens: Record<string, { login: string; readOnly?: boolean }>;
  /** The pull requests (issue numbers) that exist. */
  pulls?: number[];
  /** The largest page the API serves, whatever per_page asks (GitHub's is 100). */
  maxPerPage?: number;
  /** Force an answer for one route, e.g. 500 on the next create. */
  fail?: (method: string, path: string) => number | undefined;
}

export interface FakeGitHub {
  baseUrl: string;
  owner: string;
  repo: string;
  comments: FakeComment[];
  releases: FakeRelease[];
  /** Each request as `METHOD /path?query`. */
  requests: string[];
  /** A comment written directly into the state, as another user or an earlier run would have. */
  seedComment(issue: number, login: string, body: string): FakeComment;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
};

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks)));
  });

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'payment-api';
  const pulls = new Set(options.pulls ?? []);
  const comments: FakeComment[] = [];
  const releases: FakeRelease[] = [];
  const requests: string[] = [];
  let nextId = 1000;
  let baseUrl = '';

  const commentJson = (c: FakeComment) => ({
    id: c.id,
    body: c.body,
    user: { login: c.user.login, type: c.user.login.endsWith('[bot]') ? 'Bot' : 'User' },
    html_url: `https://github.example/${owner}/${repo}/pull/${c.issue}#issuecomment-${c.id}`,
  });
  const releaseJson = (r: FakeRelease) => ({
    id: r.id,
    tag_name: r.tag,
    html_url: `https://github.example/${owner}/${repo}/releases/tag/${r.tag}`,
    upload_url: `${baseUrl}/uploads/repos/${owner}/${repo}/releases/${r.id}/assets{?name,label}`,
  });
  const assetJson = (a: FakeAsset) => ({
    id: a.id,
    name: a.name,
    content_type: a.contentType,
    size: a.data.length,
    browser_download_url: `https://github.example/${owner}/${repo}/releases/download/${a.name}`,
  });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    requests.push(`${method} ${url.pathname}${url.search}`);
    const body = await readBody(req);
    const forced = options.fail?.(method, url.pathname);
    if (forced) return json(res, forced, { message: `forced ${forced}` });

    const token = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const user = token === undefined ? undefined : options.tokens[token];
    if (!user) return json(res, 401, { message: 'Bad credentials' });
    const writes = method !== 'GET';
    const notFound = () => json(res, 404, { message: 'Not Found' });

    const prefix = `/repos/${owner}/${repo}/`;
    const uploads = `/uploads${prefix}`;
    if (!url.pathname.startsWith(prefix) && !url.pathname.startsWith(uploads)) return notFound();
    if (writes && user.readOnly) return json(res, 403, { message: 'Resource not accessible by integration' });
    const rest = url.pathname.slice(url.pathname.startsWith(uploads) ? uploads.length : prefix.length);
    const parsed = body.length > 0 && req.headers['content-type']?.includes('json') ? JSON.parse(body.toString()) : {};
    const issueComments = /^issues\/(\d+)\/comments$/.exec(rest);
    if (issueComments) {
      const issue = Number(issueComments[1]);
      if (!pulls.has(issue)) return notFound();
      if (method === 'GET') {
        const all = comments.filter((c) => c.issue === issue);
        const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), options.maxPerPage ?? 100);
        const page = Number(url.searchParams.get('page') ?? 1);
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const link = (p: number, rel: string) => {
          const u = new URL(`${baseUrl}${url.pathname}`);
          u.searchParams.set('per_page', String(perPage));
          u.searchParams.set('page', String(p));
          return `<${u}>; rel="${rel}"`;
        };
        const links: Record<string, string> =
          page < last ? { link: `${link(page + 1, 'next')}, ${link(last, 'last')}` } : {};
        return json(res, 200, all.slice((page - 1) * perPage, page * perPage).map(commentJson), links);
      }
      if (method === 'POST') {
        const c: FakeComment = { id: nextId++, issue, body: String(parsed.body), user: { login: user.login } };
        comments.push(c);
        return json(res, 201, commentJson(c));
      }
    }
    const comment = /^issues\/comments\/(\d+)$/.exec(rest);
    if (comment && method === 'PATCH') {
      const c = comments.find((x) => x.id === Number(comment[1]));
      if (!c) return notFound();
      if (c.user.login !== user.login) return json(res, 403, { message: 'Must have admin rights to Repository.' });
      c.body = String(parsed.body);
      return json(res, 200, commentJson(c));
    }
    const releaseTag = /^releases\/tags\/(.+)$/.exec(rest);
    if (releaseTag && method === 'GET') {
      const r = releases.find((x) => x.tag === decodeURIComponent(releaseTag[1]!));
      return r ? json(res, 200, releaseJson(r)) : notFound();
    }
    if (rest === 'releases' && method === 'POST') {
      const r: FakeRelease = { id: nextId++, tag: String(parsed.tag_name), assets: [] };
      releases.push(r);
      return json(res, 201, releaseJson(r));
    }
    const releaseAssets = /^releases\/(\d+)\/assets$/.exec(rest);
    if (releaseAssets) {
      const r = releases.find((x) => x.id === Number(releaseAssets[1]));
      if (!r) return notFound();
      if (method === 'GET') return json(res, 200, r.assets.map(assetJson));
      if (method === 'POST') {
        const name = url.searchParams.get('name') ?? '';
        if (r.assets.some((a) => a.name === name))
          return json(res, 422, { message: 'Validation Failed', errors: [{ code: 'already_exists' }] });
        const a: FakeAsset = { id: nextId++, name, contentType: String(req.headers['content-type']), data: body };
        r.assets.push(a);
        return json(res, 201, assetJson(a));
      }
    }
    const asset = /^releases\/assets\/(\d+)$/.exec(rest);
    if (asset && method === 'DELETE') {
      for (const r of releases) {
        const i = r.assets.findIndex((a) => a.id === Number(asset[1]));
        if (i >= 0) {
          r.assets.splice(i, 1);
          res.writeHead(204).end();
          return;
        }
      }
      return notFound();
    }
    return notFound();
  });

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    owner,
    repo,
    comments,
    releases,
    requests,
    seedComment(issue, login, body) {
      const c: FakeComment = { id: nextId++, issue, body, user: { login } };
      comments.push(c);
      return c;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
