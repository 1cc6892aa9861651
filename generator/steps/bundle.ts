import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import { COMPONENT_KINDS } from '../../tooling/openapi/walker.js';
import { DEFAULT_ROOT, REDOCLY_CONFIG, REPO_ROOT } from '../support/paths.js';
import { cleanStderr, parseCliProblems, runRedocly } from '../support/redocly.js';
import { BundleError } from '../support/step-error.js';

export type OpenApiDocument = Record<string, unknown>;

export interface BundleOptions {
  /** Root of the multi-file source (default openapi/openapi.yaml). */
  root?: string;
  /** Redocly config (default redocly.yaml when present); false for none. */
  config?: string | false;
  /** Aborting kills the Redocly process and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface BundleResult {
  /** Absolute path of the source root. */
  root: string;
  /** The bundled document: one file, external refs moved into components, internal $refs kept. */
  document: OpenApiDocument;
  /** Serialized forms, exactly what `npm run generate` writes to generated/openapi.{yaml,json}. */
  yaml: string;
  json: string;
}

export type { SourceProblem } from '../support/redocly.js';
export { BundleError } from '../support/step-error.js';

/**
 * Bundles the contract like `redocly bundle` (not dereferenced) and serializes it
 * deterministically. Nothing is written: the pipeline (generator/generate.ts) writes it after lint passed.
 */
export async function bundleContract(options: BundleOptions = {}): Promise<BundleResult> {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  if (!existsSync(root)) {
    throw new BundleError(`root file not found: ${root}`, [
      { file: relative(process.cwd(), root), line: 1, col: 1, message: 'file not found' },
    ]);
  }
  const config = options.config ?? (existsSync(REDOCLY_CONFIG) ? REDOCLY_CONFIG : false);
  const tmp = await mkdtemp(join(tmpdir(), 'contract-bundle-'));
  try {
    const out = join(tmp, 'openapi.json');
    const args = [
      'bundle',
      root,
      '--output',
      out,
      '--ext',
      'json',
      // A second file with the same base name would otherwise become `Name-2`, silently
      // renaming generated types; fail instead.
      '--component-renaming-conflicts-severity',
      'error',
      '--lint-config',
      'off', // config problems are reported by `npm run lint`, not here
      ...(config ? ['--config', config] : []),
    ];
    const run = await runRedocly(args, process.cwd(), options.signal);
    if (run.code !== 0 || !existsSync(out)) {
      const text = cleanStderr(run.stderr);
      const problems = parseCliProblems(text);
      throw new BundleError(
        problems.length > 0
          ? problems.map((p) => `${p.file}:${p.line}:${p.col} error bundle ${p.message}`).join('\n')
          : text || `redocly bundle exited with ${run.code}`,
        problems,
      );
    }
    const document = normalize(JSON.parse(await readFile(out, 'utf8')) as OpenApiDocument);
    return { root, document, ...serialize(document, root) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

// The Components Object's field order in the OpenAPI 3.1 specification.
const COMPONENT_ORDER: readonly string[] = COMPONENT_KINDS;
const byName = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Component types in specification order and names sorted within each type: Redocly adds
 * components in the order it meets the refs, so an edit that reorders refs would otherwise
 * reshuffle the whole file.
 */
function normalize(doc: OpenApiDocument): OpenApiDocument {
  const components = doc.components;
  if (components && typeof components === 'object' && !Array.isArray(components)) {
    const rank = (k: string) => (COMPONENT_ORDER.includes(k) ? COMPONENT_ORDER.indexOf(k) : COMPONENT_ORDER.length);
    const types = Object.entries(components as Record<string, unknown>).sort(
      ([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0),
    );
    doc.components = Object.fromEntries(
      types.map(([type, map]) => [
        type,
        map && typeof map === 'object' && !Array.isArray(map) && !type.startsWith('x-')
          ? Object.fromEntries(Object.entries(map).sort(byName))
          : map,
      ]),
    );
  }
  return doc;
}

/**
 * YAML that every loader reads as the same data:
 *  - version '1.1': strings that a YAML 1.1 loader (js-yaml's default schema, PyYAML, Dredd) would
 *    take for something else are quoted: dates (`"2026-11-21"`), `yes`/`no`/`on`/`off`, `1:20`…;
 *    YAML 1.2 loaders read the quoted strings the same;
 *  - lineWidth 0: no folding, so a changed word never rewraps a paragraph (and diffs stay small);
 *  - aliasDuplicateObjects false: no YAML anchors, which some OpenAPI tools reject.
 */
export function toPortableYaml(value: unknown): string {
  return stringify(value, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}

/** The bundle's YAML without its header line: toPortableYaml() of its document, made once. */
export function portableYamlOf(bundle: BundleResult): string {
  return bundle.yaml.slice(bundle.yaml.indexOf('\n') + 1);
}

function serialize(document: OpenApiDocument, root: string): { yaml: string; json: string } {
  const source = relative(REPO_ROOT, root).split('\\').join('/');
  // one line: portableYamlOf() takes it off
  const header = `# Generated by \`npm run generate\` from ${source}. Do not edit: edit the source.\n`;
  const yaml = header + toPortableYaml(document);
  const json = `${JSON.stringify(document, null, 2)}\n`;
  return { yaml, json };
}
