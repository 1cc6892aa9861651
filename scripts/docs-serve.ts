// npm run docs:serve [-- --port 8080]
// Serves the documentation site (generated/docs/, written by `npm run generate`) on 127.0.0.1 with
// the docs server of tooling/docs-server.ts.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_OUT } from '../generator/support/paths.js';
import { createDocsServer } from '../tooling/docs-server.js';

const DEFAULT_DOCS_DIR = join(DEFAULT_OUT, 'docs');
const DEFAULT_PORT = 8080;
const HOST = '127.0.0.1';

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

await main();
