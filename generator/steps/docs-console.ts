// The console of the documentation site: generated/docs/console.html, Scalar's API reference
// (@scalar/api-reference, its standalone browser bundle copied beside the page as
// scalar/standalone.js) on the same decorated copy of the contract as the Redoc reference, so
// that a reader can send any operation to a server they pick with credentials they enter.
//
// Everything stays on the reader's machine: the contract is inlined in the page, the bundle is a
// file next to it, and the configuration turns off what would reach Scalar's services (its request
// proxy, its fonts, telemetry, the AI agent and MCP features). docs/toolchain.md says why the
// reference stays Redoc.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isObject } from '../../tooling/openapi/walker.js';

type Obj = Record<string, unknown>;

/** Where the page loads the bundle from, relative to console.html. */
export const CONSOLE_BUNDLE = 'scalar/standalone.js';

/** The servers a reader runs on their machine, offered after the contract's own; the port is a variable. */
export const LOCAL_SERVERS = [
  {
    url: 'http://127.0.0.1:{port}/api/v2',
    description:
      'Local sandbox (npm run sandbox -- --docs-console-origin <this page’s origin>): stateful, the contract’s examples under their ids.',
    variables: { port: { default: '4020', description: 'The port of npm run sandbox (--port).' } },
  },
  {
    url: 'http://127.0.0.1:{port}',
    description:
      'Local mock (npm run mock -- --docs-console-origin <this page’s origin>): the contract’s examples, no state.',
    variables: { port: { default: '4010', description: 'The port of npm run mock (--port).' } },
  },
] as const;

/** The standalone bundle of @scalar/api-reference as installed; throws when the package is missing. */
export async function scalarBundle(): Promise<string> {
  const require = createRequire(import.meta.url);
  let entry: string; // <package>/dist/index.js (the package exports no package.json)
  try {
    entry = require.resolve('@scalar/api-reference');
  } catch {
    throw new Error('docs: @scalar/api-reference is not installed (the console page needs its standalone bundle)');
  }
  const path = join(dirname(entry), 'browser', 'standalone.js');
  if (!existsSync(path)) throw new Error(`docs: ${path} is missing (the standalone bundle of @scalar/api-reference)`);
  return readFile(path, 'utf8');
}

/**
 * Scalar's configuration for the console. No `proxyUrl`: requests go from the browser straight to
 * the server picked (which must allow the page's origin: docs console mode of the sandbox and the
 * mock). Credentials are prefilled empty and never persisted.
 */
export function consoleConfiguration(document: Obj): Obj {
  const documented = Array.isArray(document.servers) ? document.servers.filter(isObject) : [];
  return {
    content: document,
    // the contract's servers first, as documented; then the reader's own
    servers: [...documented.map((s) => ({ url: s.url, description: s.description })), ...LOCAL_SERVERS],
    authentication: {
      preferredSecurityScheme: 'basicAuth',
      securitySchemes: {
        basicAuth: { username: '', password: '' },
        bearerAuth: { token: '' },
        apiKeyAuth: { value: '' },
      },
    },
    persistAuth: false,
    // nothing leaves the machine
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    documentDownloadType: 'none',
    hideDarkModeToggle: false,
    defaultOpenAllTags: false,
    orderSchemaPropertiesBy: 'preserve',
    metaData: { title: `${String((document.info as Obj | undefined)?.title ?? 'API')} console` },
  };
}

/** The console page: the configuration inline, the bundle beside it. */
export function consoleHtml(document: Obj): string {
  const title = `${String((document.info as Obj | undefined)?.title ?? 'API')} console`;
  // `<` escaped so that no string of the contract can close the script element
  const config = JSON.stringify(consoleConfiguration(document)).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{margin:0}
.console-bar{font:14px/1.5 system-ui,sans-serif;padding:6px 16px;background:#fff4e5;border-bottom:1px solid #e8a251;color:#5c3300}
.console-bar a{color:inherit}
.inferred-badge{display:inline-block;padding:0 6px;margin-right:4px;border:1px solid #e8a251;border-radius:4px;background:#fff4e5;color:#8a4600;font-size:0.8em;font-weight:600;line-height:1.5;white-space:nowrap}
</style>
</head>
<body>
<div class="console-bar">Console: requests go from this page straight to the server you pick, with the credentials you enter, which stay in this page.
Local servers must allow this page's origin: <code>npm run sandbox -- --docs-console-origin &lt;origin&gt;</code> (<a href="index.html#/getting-started/try-it-locally">Try it locally</a>) · <a href="index.html">Reference and guides</a></div>
<div id="app"></div>
<script src="${CONSOLE_BUNDLE}"></script>
<script>
Scalar.createApiReference('#app', ${config});
</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
