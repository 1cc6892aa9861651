// The console of the documentation site: generated/docs/console.html, Scalar's API reference
// (@scalar/api-reference, its standalone browser bundle vendored in vendor/scalar/ and copied
// beside the page as scalar/standalone.js) on the same decorated copy of the contract as the Redoc
// reference, so that a reader can send any operation to a server they pick with credentials they
// enter.
//
// Everything stays on the reader's machine: the contract is inlined in the page, the bundle is a
// file next to it, and the configuration turns off what would reach Scalar's services (its request
// proxy, its fonts, telemetry, the AI agent and MCP features). docs/toolchain.md says why the
// reference stays Redoc.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isObject } from '../../tooling/openapi/walker.js';
import { SCALAR_VENDOR_DIR } from '../support/paths.js';

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

/**
 * Where the bundle comes from: vendor/scalar/ holds the one file of @scalar/api-reference the
 * console needs (installing the package brings hundreds of others), with this record of the
 * release it was taken from; test/generator/vendored-scalar.test.ts holds the file to that release.
 */
export { SCALAR_VENDOR_DIR };

export interface VendoredRelease {
  /** the npm package the file was taken from */
  package: string;
  version: string;
  /** the package's licence (its text is LICENSE beside the record) */
  license: string;
  /** the registry's integrity of the release's tarball (`dist.integrity`) */
  integrity: string;
  /** the file's path inside the package */
  file: string;
  /** the file's sha256, hex */
  sha256: string;
}

const RECORD_FIELDS = ['package', 'version', 'license', 'integrity', 'file', 'sha256'] as const;

/** vendor/scalar/source.json, each field checked; throws naming the file and the field. */
export async function scalarRelease(dir = SCALAR_VENDOR_DIR): Promise<VendoredRelease> {
  const path = shown(join(dir, 'source.json'));
  let record: unknown;
  try {
    record = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  if (!isObject(record)) throw new Error(`${path}: not a JSON object`);
  for (const field of RECORD_FIELDS) {
    if (typeof record[field] !== 'string' || record[field] === '')
      throw new Error(`${path}: "${field}" must be a non-empty string`);
  }
  if (!/^[0-9a-f]{64}$/.test(record.sha256 as string))
    throw new Error(`${path}: "sha256" must be 64 lowercase hex digits`);
  return record as unknown as VendoredRelease;
}

/** The vendored standalone bundle, refused unless its sha256 is the one its record names. */
export async function scalarBundle(dir = SCALAR_VENDOR_DIR): Promise<string> {
  const release = await scalarRelease(dir);
  const path = shown(join(dir, 'standalone.js'));
  const bytes = await readFile(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== release.sha256)
    throw new Error(
      `${path}: sha256 ${sha256} is not the ${release.package} ${release.version} file that source.json records (${release.sha256})`,
    );
  return bytes.toString('utf8');
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

/** A path as error messages show it: relative to where the command runs. */
const shown = (path: string) => relative(process.cwd(), path) || path;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
