// The documentation site's static server: GET and HEAD, the right content types, nothing outside
// its folder, node:http only. \`npm run docs:serve\` (scripts/docs-serve.ts) serves generated/docs/
// with it; the docs console test serves the site it builds.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.yml': 'application/yaml; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function contentType(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `root` that a request path names, or undefined (404). Percent-decoded,
 * normalized, and refused when it would leave `root` (`..`, encoded `%2e%2e`, backslashes,
 * symlinks pointing outside) or names a dot file (the temp files of atomic writes). A directory
 * serves its index.html.
 */
export async function resolveRequestPath(root: string, urlPath: string): Promise<string | undefined> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(urlPath, 'http://localhost').pathname);
  } catch {
    return undefined; // malformed percent-encoding
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined;
  const segments = pathname.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return undefined;
  const rootReal = await realpath(root);
  let candidate = resolve(rootReal, ...segments);
  if (!isInside(rootReal, candidate)) return undefined;
  try {
    if ((await stat(candidate)).isDirectory()) candidate = join(candidate, 'index.html');
    const real = await realpath(candidate);
    if (!isInside(rootReal, real) || !(await stat(real)).isFile()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A static file server for `root` (not yet listening). */
export function createDocsServer(root: string): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, 'Method Not Allowed\n', { Allow: 'GET, HEAD' });
        return;
      }
      const file = await resolveRequestPath(root, req.url ?? '/');
      if (!file) {
        send(res, 404, 'Not Found\n');
        return;
      }
      const { size } = await stat(file);
      res.writeHead(200, { 'Content-Type': contentType(file), 'Content-Length': size, 'Cache-Control': 'no-cache' });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
    })().catch(() => {
      if (!res.headersSent) send(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  });
}
