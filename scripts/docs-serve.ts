// npm run docs:serve [-- --port 8080]
// Serves the documentation site (generated/docs/, written by `npm run generate`) on 127.0.0.1 with
// node:http only: GET and HEAD, the right content types, nothing outside the folder.
import { createReadStream, existsSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_OUT } from '../generator/support/paths.js';

export const DEFAULT_DOCS_DIR = join(DEFAULT_OUT, 'docs');
export const DEFAULT_PORT = 8080;
const HOST = '127.0.0.1';

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

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new Error(`invalid port "${value}": expected an integer from 0 to 65535`);
  return port;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', short: 'p' },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log('usage: npm run docs:serve [-- --port 8080] [-- --dir generated/docs]   (or PORT=8080)');
    return;
  }
  let port: number;
  try {
    port = parsePort(values.port ?? process.env.PORT);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const root = resolve(values.dir ?? DEFAULT_DOCS_DIR);
  const shown = relative(process.cwd(), root) || '.';
  if (!existsSync(join(root, 'index.html'))) {
    console.error(`${join(shown, 'index.html')} is missing: run \`npm run generate\` first.`);
    process.exit(1);
  }

  const server = createDocsServer(root);
  server.on('error', (err: NodeJS.ErrnoException) => {
    console.error(
      err.code === 'EADDRINUSE'
        ? `port ${port} is in use: pass another with --port or PORT`
        : `cannot serve: ${err.message}`,
    );
    process.exit(1);
  });
  server.listen(port, HOST, () => {
    const { port: actual } = server.address() as AddressInfo;
    console.log(`Serving ${shown}/ at http://${HOST}:${actual}/  (Ctrl+C to stop)`);
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the docs server`);
    server.close(() => process.exit(0));
    server.closeAllConnections(); // keep-alive connections would hold close() open
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
