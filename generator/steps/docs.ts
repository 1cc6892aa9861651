// The static documentation site: generated/docs/index.html (Redoc CE 3 through `redocly
// build-docs --inlineBundle`, one self-contained page that renders from disk with no network),
// the console beside it (console.html, Scalar: generator/steps/docs-console.ts), plus the
// contract it documents as openapi.json and openapi.yaml for the download buttons.
//
// buildDocs() works on a COPY of the bundle: it adds the hand-written guides (docs/guides/*.md) as
// trait tags in a "Guides" tag group, and makes every inferred part visible with a badge. The
// contract itself is never touched. The Arazzo workflows (arazzo/) are published beside the page,
// in docs/arazzo/, pointed at the contract the site offers (docs/openapi.yaml).
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  componentsOf,
  derefLenient,
  isObject as isObj,
  operations,
  walkObjects,
  walkSchemas,
} from '../../tooling/openapi/walker.js';
import { writeFileAtomic } from '../support/fs.js';
import { ARAZZO_DIR, GUIDES_DIR, REPO_ROOT } from '../support/paths.js';
import { cleanStderr, runRedocly } from '../support/redocly.js';
import { toPortableYaml } from './bundle.js';
import { type XCodeSample, xCodeSamples } from './code-samples.js';
import { CONSOLE_BUNDLE, consoleHtml, scalarBundle } from './docs-console.js';

export type OpenApiDocument = Record<string, unknown>;

export const DOCS_CONFIG = join(REPO_ROOT, 'generator', 'steps', 'docs.redocly.yaml');

/** Name of the sidebar group that holds the guides, and of the one that holds the reference. */
export const GUIDES_GROUP = 'Guides';
export const REFERENCE_GROUP = 'API reference';

const INFERRED = 'inferred';
const BADGE_CLASS = 'inferred-badge';
const BADGE_TITLE =
  'Not shown in the interface document: chosen by the contract, may change when the service publishes it.';
const STATUS_BADGE_TITLE = 'The interface document does not give this status for this operation.';
export const INFERRED_BADGE = `<span class="${BADGE_CLASS}" title="${BADGE_TITLE}">Inferred</span>`;
export const INFERRED_STATUS_BADGE = `<span class="${BADGE_CLASS}" title="${STATUS_BADGE_TITLE}">Inferred status</span>`;
/** Operation, parameter and schema badge (Redoc renders `x-badges` next to their names). */
const X_BADGE = { name: 'Inferred', color: 'orange', position: 'after' } as const;

/**
 * Styles of the badge, added to the page's <head>. Redoc passes HTML in Markdown descriptions
 * through (the `sanitize` option is off), so descriptions and guides carry the span; Redoc's own
 * dark mode sets `dark` on <html>.
 */
const BADGE_CSS = `
.${BADGE_CLASS}{display:inline-block;padding:0 6px;margin-right:4px;border:1px solid #e8a251;border-radius:4px;background:#fff4e5;color:#8a4600;font-size:0.8em;font-weight:600;line-height:1.5;vertical-align:baseline;white-space:nowrap}
html.dark .${BADGE_CLASS}{background:#3d2708;border-color:#b9731f;color:#ffc980}
img.lifecycle-diagram,img.guide-diagram{display:block;max-width:100%;height:auto;margin:16px 0;border:1px solid #e2e8f0;border-radius:8px}
`.trim();

/**
 * Assets the Redoc bundle loads from a CDN at run time. The only one on our page is the small
 * "API docs by Redocly" logo in the sidebar footer; it is replaced by an inline SVG so the page
 * makes no network request at all (the test blocks and counts them).
 */
const CDN_ASSETS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': svgDataUri(
    '<svg xmlns="http://www.w3.org/2000/svg" width="52" height="14" viewBox="0 0 52 14"><text x="0" y="11" font-family="system-ui,sans-serif" font-size="11" font-weight="600" fill="#555761">Redocly</text></svg>',
  ),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': svgDataUri(
    '<svg xmlns="http://www.w3.org/2000/svg" width="14" height="14" viewBox="0 0 14 14"><text x="2" y="11" font-family="system-ui,sans-serif" font-size="11" font-weight="700" fill="#555761">R</text></svg>',
  ),
};

function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export interface Guide {
  /** file name, e.g. 01-getting-started.md (the order of the guides) */
  file: string;
  /** the `# Title` on the first line: the tag name and the sidebar entry */
  title: string;
  /** the Markdown after the title */
  body: string;
}

export interface BuildDocsOptions {
  /** Hand-written guides (default docs/guides/). */
  guidesDir?: string;
  /** Redocly config with the Redoc options (default generator/steps/docs.redocly.yaml). */
  config?: string;
  /** Arazzo workflows and the descriptions beside them, copied to docs/arazzo/ (default arazzo/). */
  arazzoDir?: string;
  /** Aborting kills `redocly build-docs` and rejects with the signal's reason; nothing is written then. */
  signal?: AbortSignal;
  /** toPortableYaml() of the document, when the caller has it (the bundle's YAML has it). */
  portableYaml?: string;
}

export interface BuildDocsResult {
  /** Absolute paths of the files written under <outDir>/docs/. */
  files: string[];
}

/** A file of the site: `path` relative to the output folder (`docs/index.html`). */
export interface DocsFile {
  path: string;
  content: string;
}

/**
 * Builds the documentation site of `document` (the bundled contract, as written to
 * generated/openapi.json) into <outDir>/docs/: index.html, openapi.json, openapi.yaml and arazzo/.
 * `document` is not modified. Each file is written atomically once all are built, so a failure
 * leaves the previous docs intact; the Error thrown carries Redocly's own message.
 */
export async function buildDocs(
  document: OpenApiDocument,
  outDir: string,
  options: BuildDocsOptions = {},
): Promise<BuildDocsResult> {
  const files = await renderDocs(document, options);
  const paths = files.map((f) => join(resolve(outDir), f.path));
  for (const [i, f] of files.entries()) await writeFileAtomic(paths[i]!, f.content);
  return { files: paths };
}

/** The files of the documentation site of `document`, as buildDocs() writes them; nothing is written. */
export async function renderDocs(document: OpenApiDocument, options: BuildDocsOptions = {}): Promise<DocsFile[]> {
  const guides = await loadGuides(options.guidesDir ?? GUIDES_DIR);
  const decorated = decorateForDocs(document, guides);
  const languages = addCodeSamples(decorated, xCodeSamples(document));
  if (options.signal) {
    await new Promise((r) => setImmediate(r)); // lets an abort arrive before the build starts
    options.signal.throwIfAborted();
  }
  const html = await renderHtml(
    decorated,
    options.config ?? DOCS_CONFIG,
    guides.map((g) => g.title),
    languages,
    options.signal,
  );

  // The console: the same decorated copy, without the guides (Redoc's trait tags), with the samples;
  // Scalar routes by other anchors than Redoc, so its links name their target operation without one.
  const forConsole = decorateForDocs(document, [], { anchors: false });
  addCodeSamples(forConsole, xCodeSamples(document));

  const files: DocsFile[] = [
    { path: 'docs/index.html', content: html },
    { path: 'docs/console.html', content: consoleHtml(forConsole) },
    { path: `docs/${CONSOLE_BUNDLE}`, content: await scalarBundle() },
    // The contract as-is (not the decorated copy), for the download buttons.
    { path: 'docs/openapi.json', content: `${JSON.stringify(document, null, 2)}\n` },
    {
      path: 'docs/openapi.yaml',
      content:
        '# Payment Service API v2: the bundled contract, as generated/openapi.yaml. Do not edit: edit openapi/.\n' +
        (options.portableYaml ?? toPortableYaml(document)),
    },
    ...(await publishedWorkflows(options.arazzoDir ?? ARAZZO_DIR)).map(([name, content]) => ({
      path: `docs/arazzo/${name}`,
      content,
    })),
  ];
  options.signal?.throwIfAborted();
  return files;
}

/** In the repository, workflows use the generator's bundle; published, the copy beside the page. */
const BUNDLE_SOURCE = 'url: ../generated/openapi.yaml';
const PUBLISHED_SOURCE = 'url: ../openapi.yaml';

/** The files of arazzo/ as docs/arazzo/ carries them: [file name, content]. */
export async function publishedWorkflows(dir: string): Promise<Array<[string, string]>> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(
    names.map(async (name): Promise<[string, string]> => {
      const text = await readFile(join(dir, name), 'utf8');
      return [name, text.split(BUNDLE_SOURCE).join(PUBLISHED_SOURCE)];
    }),
  );
}

/** A self-contained page of another document (the sandbox's admin API): the same build, no guides or badges. */
export function renderReferencePage(document: OpenApiDocument, config: string): Promise<string> {
  return renderHtml(document, config, []);
}

/**
 * Runs `redocly build-docs --inlineBundle` on the decorated copy and post-processes the page.
 * `languages`: the code sample tabs (Redoc CE 3 shows a sample only under a tab of its config).
 */
async function renderHtml(
  decorated: OpenApiDocument,
  config: string,
  guideTitles: string[],
  languages: CodeSampleLanguage[] = [],
  signal?: AbortSignal,
): Promise<string> {
  if (!existsSync(config)) throw new Error(`docs: Redocly config not found: ${config}`);
  const tmp = await mkdtemp(join(tmpdir(), 'contract-docs-'));
  try {
    if (languages.length > 0) {
      const options = parseYaml(await readFile(config, 'utf8')) as Record<string, unknown>;
      const openapi = isObj(options.openapi) ? options.openapi : {};
      options.openapi = { ...openapi, codeSamples: { languages } };
      config = join(tmp, 'redocly.yaml');
      await writeFile(config, JSON.stringify(options, null, 2)); // JSON is YAML
    }
    const input = join(tmp, 'openapi.json');
    const output = join(tmp, 'index.html');
    await writeFile(input, JSON.stringify(decorated));
    const title = `${String((decorated.info as Record<string, unknown> | undefined)?.title ?? 'API')} reference`;
    const run = await runRedocly(
      [
        'build-docs',
        input,
        '--output',
        output,
        '--inlineBundle',
        '--config',
        config,
        '--lint-config',
        'error',
        '--title',
        title,
      ],
      tmp, // nothing in the working directory (a redocly.yaml) may change the build
      signal,
    );
    if (run.code !== 0 || !existsSync(output)) {
      const message = cleanStderr(run.stderr) || run.stdout.trim() || `exit code ${run.code}`;
      throw new Error(`docs: redocly build-docs failed (exit code ${run.code}):\n${message}`);
    }
    return postProcess(await readFile(output, 'utf8'), guideTitles);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Badge styles into <head>, CDN assets inlined; fails when the page is not self-contained. */
export function postProcess(html: string, guideTitles: string[] = []): string {
  if (!html.includes('</head>')) throw new Error('docs: unexpected build-docs output: no </head>');
  const css = BADGE_CSS + guideTitles.map(guideSectionCss).join('');
  // the first </head> is the page's: the inlined Redoc bundle comes later, in <body>
  let out = html.replace('</head>', () => `<style data-generator="docs">${css}</style>\n</head>`);
  for (const [url, replacement] of Object.entries(CDN_ASSETS)) out = out.split(url).join(replacement);
  const external = externalResourceUrls(out);
  if (external.length > 0) throw new Error(`docs: the page would load ${external.join(', ')} from the network`);
  return out;
}

/** Redoc's slug of a tag or heading: `Payment plans` → `payment-plans`. */
export const sectionSlug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** The page anchor Redoc gives an operation: `#/<tag slug>/<operationId in lower case>`. */
export const operationAnchor = (tag: string, operationId: string) =>
  `#/${sectionSlug(tag)}/${operationId.toLowerCase()}`;

/**
 * Guides are prose: their sections take the width of the empty right-hand (samples) panel. Redoc
 * marks each section with `data-section-id="/<slug of the tag>[/<slug of the heading>]"`; if that
 * ever changes the guides merely stay narrower.
 */
function guideSectionCss(title: string): string {
  const slug = sectionSlug(title);
  const sections = `[data-section-id="/${slug}"],[data-section-id^="/${slug}/"]`;
  const scope = (sel: string) =>
    sections
      .split(',')
      .map((s) => `${s} ${sel}`)
      .join(',');
  return `\n${scope('[data-testid="right-panel"]')}{display:none}${scope('[data-testid="middle-panel"]')}{flex:1 1 auto;max-width:100%;width:auto}`;
}

/**
 * http(s) URLs the page's markup or styles would load: <script src>, <link href> (stylesheets,
 * preloads, fonts), <img src>, CSS url() and @import. Links (<a href>) and URLs inside script
 * code are not resources; the browser test counts the requests actually made.
 */
export function externalResourceUrls(html: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /<script\b[^>]*\bsrc\s*=\s*["']?(https?:\/\/[^"'\s>]+)/gi,
    /<link\b[^>]*\bhref\s*=\s*["']?(https?:\/\/[^"'\s>]+)/gi,
    /<img\b[^>]*\bsrc\s*=\s*["']?(https?:\/\/[^"'\s>]+)/gi,
    /url\(\s*["']?(https?:\/\/[^"')\s]+)/gi,
    /@import\s+["'](https?:\/\/[^"']+)/gi,
  ];
  for (const re of patterns) for (const m of html.matchAll(re)) found.add(m[1]!);
  return [...found].sort();
}

/** The guides, in file name order: `# Title` on the first line, Markdown after it. */
export async function loadGuides(dir: string): Promise<Guide[]> {
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.md')).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = (await readFile(join(dir, file), 'utf8')).replace(/\r\n/g, '\n');
      const m = /^# +(.+?) *\n([\s\S]*)$/.exec(text);
      if (!m) throw new Error(`docs: ${join(dir, file)} must start with a "# Title" line`);
      return { file, title: m[1]!, body: await inlineImages(m[2]!.trim(), dir, file) };
    }),
  );
}

/**
 * `<img src="diagram.svg">` with a file next to the guide → a data: URI, so the page stays one
 * self-contained file. Diagrams are images rather than inline <svg>: Redoc's Markdown renderer
 * lower-cases attribute names, and SVG's camelCase attributes (viewBox, refX, markerWidth...)
 * then stop working.
 */
async function inlineImages(body: string, dir: string, file: string): Promise<string> {
  const types: Record<string, string> = {
    svg: 'image/svg+xml',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    webp: 'image/webp',
  };
  let out = body;
  for (const m of body.matchAll(/(<img\b[^>]*\bsrc=")([^":?#]+\.(svg|png|jpe?g|webp))"/gi)) {
    const path = join(dir, m[2]!);
    if (!existsSync(path)) throw new Error(`docs: ${join(dir, file)} shows ${m[2]}, which does not exist next to it`);
    const data = (await readFile(path)).toString('base64');
    out = out.replace(m[0], `${m[1]}data:${types[m[3]!.toLowerCase()]};base64,${data}"`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The decorated copy

type Obj = Record<string, unknown>;

/**
 * A copy of `document` for rendering: guides as trait tags ("Guides" group first), and every
 * inferred part badged:
 *  - every object with `x-provenance: inferred` that has a Markdown description (operations,
 *    responses, request bodies, parameters, headers, schemas, properties): its leading
 *    "Inferred:" becomes the badge; operations, parameters and schemas also get `x-badges`, which
 *    Redoc shows next to their names (operation title, sidebar entry, property/parameter name);
 *  - every status an operation lists in `x-inferred-responses` whose response is not itself
 *    inferred: an "Inferred status" badge on a per-operation copy of the response;
 *  - a request body whose schema is inferred: the schema's reason as the body's description
 *    (Redoc does not render the description of a body's root schema).
 * Servers keep their plain "Inferred: …" descriptions: Redoc renders server descriptions as text.
 * The responses' links, which neither Redoc nor Scalar renders, close their operation's description
 * as words (linksSection); the Link Objects themselves are dropped from the copy.
 */
export function decorateForDocs(
  document: OpenApiDocument,
  guides: Guide[],
  options: DecorateOptions = {},
): OpenApiDocument {
  const doc = structuredClone(document) as Obj;

  // 0. the contract's extensions in words: an operation's version, SDK method and business rules
  //    lead its description; a property's inferred constraints follow its own. The raw extensions
  //    are dropped from the copy, so that no renderer prints them as data.
  for (const op of operationsOf(doc)) describeExtensions(op);
  const everyOperation = businessRules(doc['x-business-rules']);
  delete doc['x-business-rules'];
  walkSchemas(doc, (schema) => {
    const constraints = schema['x-inferred-constraints'];
    if (!Array.isArray(constraints)) return;
    const list = constraints.map((c) => `\`${String(c)}\``).join(', ');
    const note = `${INFERRED_BADGE} The interface document gives no ${list} here: chosen by the contract.`;
    schema.description = typeof schema.description === 'string' ? `${schema.description.trimEnd()}\n\n${note}` : note;
    delete schema['x-inferred-constraints'];
  });

  // 1. operation-level: inferred statuses and inferred body schemas (before the global walk, which
  //    would otherwise badge the copied descriptions twice)
  for (const op of operationsOf(doc)) {
    const inferredStatuses = new Set(
      (Array.isArray(op['x-inferred-responses']) ? op['x-inferred-responses'] : []).map(String),
    );
    delete op['x-inferred-responses'];
    const responses = isObj(op.responses) ? op.responses : {};
    for (const [status, raw] of Object.entries(responses)) {
      if (!inferredStatuses.has(status)) continue;
      const response = deref(doc, raw);
      if (!isObj(response) || response['x-provenance'] === INFERRED) continue; // badged below
      const text = typeof response.description === 'string' ? response.description : '';
      responses[status] = { ...response, description: `${INFERRED_STATUS_BADGE} ${text}`.trim() };
    }
    const body = deref(doc, op.requestBody);
    if (isObj(body) && body['x-provenance'] !== INFERRED && typeof body.description !== 'string') {
      const schemas = Object.values(isObj(body.content) ? body.content : {}).map((media) =>
        isObj(media) ? deref(doc, media.schema) : undefined,
      );
      const inferred = schemas.find(
        (s) => isObj(s) && s['x-provenance'] === INFERRED && typeof s.description === 'string',
      ) as Obj | undefined;
      if (inferred) {
        const copy: Obj = { ...body, description: badged(inferred.description as string) };
        if (isObj(op.requestBody) && typeof op.requestBody.$ref === 'string') op.requestBody = copy;
        else Object.assign(body, copy);
      }
    }
  }

  // 2. every inferred object (the walker skips data: example values are never badged); those that
  //    Redoc shows by name (operations, parameters, schemas) also get x-badges
  const named = new Set<unknown>(operationsOf(doc));
  walkSchemas(doc, (schema) => named.add(schema));
  walkObjects(doc, (node, tokens) => {
    if (node['x-provenance'] !== INFERRED) return;
    if (tokens[0] === 'servers') return;
    node.description = typeof node.description === 'string' ? badged(node.description) : INFERRED_BADGE;
    if (named.has(node) || isParameter(tokens)) {
      const existing = Array.isArray(node['x-badges']) ? node['x-badges'] : [];
      if (!existing.some((b) => isObj(b) && b.name === X_BADGE.name)) node['x-badges'] = [...existing, { ...X_BADGE }];
    }
  });

  // 2b. the links of each operation's responses, as words at the end of its description (after the
  //     badges: a link's reason is badged by step 2, and a badge in the operation's description
  //     would have kept step 2 from badging the description itself)
  for (const entry of operations(doc)) {
    const op = entry.operation as Obj;
    const section = linksSection(doc, op, options.anchors ?? true);
    if (section)
      op.description = typeof op.description === 'string' ? `${op.description.trimEnd()}\n\n${section}` : section;
  }
  dropLinks(doc);

  // 3. how to read the badges, after the contract's own provenance section
  if (!isObj(doc.info)) doc.info = {};
  const info = doc.info as Record<string, unknown>;
  info.description =
    `${typeof info.description === 'string' ? info.description.trimEnd() : ''}\n\n` +
    `In this documentation every inferred part carries the badge ${INFERRED_BADGE}: operations (next to their title and in the sidebar), ` +
    `parameters and properties (next to their name), responses, request bodies and headers (in their description). ` +
    `A response status that the interface document does not give for that operation carries ${INFERRED_STATUS_BADGE}, ` +
    `even when its body is a documented shape. Servers say in their description when they are inferred.\n` +
    (everyOperation ? `\n## Rules of every operation\n\n${everyOperation}\n` : '');

  addGuides(doc, guides);
  return doc;
}

export interface DecorateOptions {
  /**
   * Whether a link's target operation is a Markdown link to its place in the reference (Redoc's
   * anchor: operationAnchor); default true. The console (Scalar) routes otherwise: it names the
   * operation only.
   */
  anchors?: boolean;
}

/**
 * The links of an operation's responses as Markdown, one list per status in the order of the
 * responses: the target (its summary, linked to its place in the reference, and its operationId),
 * each parameter with the runtime expression that fills it, and the link's description (badged
 * when inferred). Undefined when no response has links.
 */
export function linksSection(doc: Obj, op: Obj, anchors: boolean): string | undefined {
  const byId = new Map(operations(doc).map((entry) => [entry.operation.operationId, entry.operation as Obj]));
  const parts: string[] = [];
  for (const [status, raw] of Object.entries(isObj(op.responses) ? op.responses : {})) {
    const response = deref(doc, raw);
    if (!isObj(response) || !isObj(response.links)) continue;
    const items = Object.values(response.links).map((rawLink) => {
      const link = deref(doc, rawLink);
      if (!isObj(link)) return '- (an unresolvable link)';
      const id = String(link.operationId ?? link.operationRef ?? '?');
      const target = byId.get(id);
      const summary = typeof target?.summary === 'string' ? target.summary : id;
      const tag = Array.isArray(target?.tags) ? target.tags[0] : undefined;
      const name =
        anchors && tag !== undefined ? `[${summary}](${operationAnchor(String(tag), id)})` : `**${summary}**`;
      const parameters = Object.entries(isObj(link.parameters) ? link.parameters : {})
        .map(([key, value]) => `\`${key}\` ← \`${typeof value === 'string' ? value : JSON.stringify(value)}\``)
        .join(', ');
      const description = typeof link.description === 'string' ? link.description.trim() : '';
      const text = link['x-provenance'] === INFERRED && description ? badged(description) : description;
      return `- ${name} (\`${id}\`)${parameters ? `: ${parameters}` : ''}.${text ? ` ${text}` : ''}`;
    });
    if (items.length > 0)
      parts.push(`**Links** of the ${status} answer, to the requests its values fill:\n\n${items.join('\n')}`);
  }
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** Removes the Link Objects from the copy (their words are in the operations' descriptions). */
function dropLinks(doc: Obj): void {
  const responses = [
    ...operations(doc).flatMap((entry) => Object.values(entry.operation.responses ?? {})),
    ...Object.values(componentsOf(doc, 'responses')),
  ];
  for (const raw of responses) {
    const response = deref(doc, raw);
    if (isObj(response)) delete response.links;
  }
  if (isObj(doc.components)) delete doc.components.links;
}

/** Extensions the decorated copy shows as words (describeExtensions) and never as raw data. */
export const WORDED_EXTENSIONS = [
  'x-since',
  'x-earlier-versions',
  'x-sdk-method',
  'x-inferred-responses',
  'x-business-rules',
  'x-inferred-constraints',
] as const;

/**
 * An operation's extensions as a leading paragraph: "Since 2.4.0 (earlier description 2.0.0) ·
 * SDK `client.payments.refund()`", and its business rules as a list with their statuses. The
 * inferred statuses are badged on the responses themselves (step 1), so the list is dropped here.
 */
function describeExtensions(op: Obj): void {
  const facts: string[] = [];
  if (typeof op['x-since'] === 'string') {
    const earlier = Array.isArray(op['x-earlier-versions']) ? op['x-earlier-versions'].map(String) : [];
    facts.push(
      `**Since version** ${op['x-since']}${earlier.length > 0 ? ` (an earlier description: ${earlier.join(', ')})` : ''}`,
    );
  }
  if (typeof op['x-sdk-method'] === 'string') facts.push(`**SDK** \`client.${op['x-sdk-method']}()\``);
  const parts: string[] = [];
  if (facts.length > 0) parts.push(facts.join(' · '));
  if (typeof op.description === 'string') parts.push(op.description.trimEnd());
  const rules = businessRules(op['x-business-rules']);
  if (rules) parts.push(`**Business rules** ${rules}`);
  if (parts.length > 0) op.description = parts.join('\n\n');
  // x-inferred-responses stays for step 1, which badges those statuses and then drops it
  for (const name of WORDED_EXTENSIONS) if (name !== 'x-inferred-responses') delete op[name];
}

/** `x-business-rules` as Markdown: the badge, its reason, then one item per rule with its answer. */
function businessRules(extension: unknown): string | undefined {
  if (!isObj(extension) || !Array.isArray(extension.rules)) return undefined;
  const text = typeof extension.description === 'string' ? extension.description.replace(/^\s*Inferred:\s*/, '') : '';
  const reason = text.charAt(0).toUpperCase() + text.slice(1);
  const items = extension.rules.filter(isObj).map((r) => {
    const answer = [r.status, r.responseCode].filter((v) => v !== undefined).join(' ');
    return `- ${String(r.rule)}${answer ? ` Otherwise: ${answer}.` : ''}`;
  });
  return `${INFERRED_BADGE} ${reason}\n\n${items.join('\n')}`;
}

/** A tab of Redoc's request samples panel: `lang` one of Redocly's names, `label` what the tab shows. */
interface CodeSampleLanguage {
  lang: string;
  label: string;
}

/**
 * Adds each operation's samples as `x-codeSamples` (to the docs' copy only: they are derived from
 * the contract's examples) and returns the tabs Redoc needs to show them. Redoc CE 3 matches a
 * sample to a configured language by its label and shows only the languages an operation has, so
 * every label (`curl → 201 Created`) is a language: curl ones first, then TypeScript, then the
 * request payload.
 */
function addCodeSamples(doc: OpenApiDocument, samples: Map<string, XCodeSample[]>): CodeSampleLanguage[] {
  const labels = new Map<string, CodeSampleLanguage>();
  for (const { operation } of operations(doc, ['paths'])) {
    const list = samples.get(String(operation.operationId));
    if (!list?.length) continue;
    (operation as Obj)['x-codeSamples'] = list;
    // Redocly's config accepts only its own language names; `lang` colours a tab without a sample only.
    for (const s of list)
      if (!labels.has(s.label)) labels.set(s.label, { lang: s.lang === 'curl' ? 'curl' : 'Node.js', label: s.label });
  }
  if (labels.size === 0) return [];
  const all = [...labels.values()];
  return [
    ...all.filter((l) => l.lang === 'curl'),
    ...all.filter((l) => l.lang !== 'curl'),
    { lang: 'Payload', label: 'Payload' },
  ];
}

/** "Inferred: reason" → badge + "Reason". */
function badged(description: string): string {
  if (description.includes(`class="${BADGE_CLASS}"`)) return description;
  const rest = description.replace(/^\s*Inferred:\s*/, '');
  return `${INFERRED_BADGE} ${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
}

function addGuides(doc: Obj, guides: Guide[]): void {
  if (guides.length === 0) return;
  const tags = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObj);
  const tagNames = new Set(tags.map((t) => String(t.name)));
  for (const g of guides) {
    if (tagNames.has(g.title))
      throw new Error(`docs: the guide ${g.file} is titled "${g.title}", which is already a tag of the contract`);
  }
  doc.tags = [...guides.map((g) => ({ name: g.title, description: g.body, 'x-traitTag': true })), ...tags];

  // With x-tagGroups Redoc shows only grouped tags: the reference group takes every tag the
  // contract declares or uses. An untagged operation could not be placed; keep Redoc's default
  // layout then (the guides come last instead of first).
  const ops = operationsOf(doc);
  if (ops.some((op) => !Array.isArray(op.tags) || op.tags.length === 0)) return;
  const reference: string[] = [];
  const add = (name: string) => reference.includes(name) || reference.push(name);
  for (const t of tags) if (t['x-traitTag'] !== true) add(String(t.name));
  for (const op of ops) for (const t of op.tags as unknown[]) add(String(t));
  const existing = (Array.isArray(doc['x-tagGroups']) ? doc['x-tagGroups'] : []).filter(isObj);
  const groups = existing.length > 0 ? existing : [{ name: REFERENCE_GROUP, tags: reference }];
  doc['x-tagGroups'] = [{ name: GUIDES_GROUP, tags: guides.map((g) => g.title) }, ...groups];
}

/** The operation objects of paths and webhooks (mutable: the copy is decorated in place). */
const operationsOf = (doc: Obj): Obj[] => operations(doc).map((entry) => entry.operation as Obj);

/** Follows local $refs (`#/...`); anything else, or an unresolvable one, is returned as is. */
const deref = (doc: Obj, node: unknown): unknown => derefLenient<unknown>(doc, node);

/** A Parameter Object: an item of a path item's or operation's `parameters`, or a component. */
const isParameter = (tokens: readonly (string | number)[]) => tokens.at(-2) === 'parameters';
