// The sandbox's admin API document (sandbox/admin/openapi.yaml): not part of the merchant contract,
// but linted like it (its Spectral ruleset extends the contract's), typed for the sandbox's CLI
// (generated/admin/types.ts) and shown in the docs site (docs/sandbox-admin.html). One file, no
// external $refs: it is read as it is, without bundling. Read here as a file, never imported.
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { type LintOptions, type LintResult, lintContract } from '../lint/lint.js';
import { checkSourceSyntax } from '../lint/source-syntax.js';
import { ADMIN_DOCS_CONFIG, ADMIN_ROOT, ADMIN_SPECTRAL_RULESET } from '../support/paths.js';
import { SourceFiles } from '../support/sourcemap.js';
import { StepError } from '../support/step-error.js';
import type { OpenApiDocument } from './bundle.js';
import { renderReferencePage } from './docs.js';
import { renderTypes } from './types.js';

export async function loadAdminDocument(path = ADMIN_ROOT): Promise<OpenApiDocument> {
  // The syntax check's parse is the document's too: one parse of the file.
  const files = new SourceFiles();
  // A YAML mistake as lint reports it (file:line:col, where the mistake is, with a hint), not a parser stack.
  const [problem] = checkSourceSyntax(path, files);
  if (problem)
    throw new AdminDocumentError(
      `${relative(process.cwd(), problem.file)}:${problem.line}:${problem.col} error yaml-syntax ${problem.message}`,
    );
  const source = files.get(resolve(path));
  if (!source) throw new AdminDocumentError(`${relative(process.cwd(), path)}:1:1 error admin-document file not found`);
  return source.value as OpenApiDocument;
}

/** The admin document cannot be read as YAML; the message is the problem's `file:line:col …` line. */
export class AdminDocumentError extends StepError {}

/** Redocly on the document, Spectral with the admin ruleset: the same bar as the contract's. */
export function lintAdminDocument(options: Pick<LintOptions, 'out'> = {}): Promise<LintResult> {
  return lintContract({ ...options, root: ADMIN_ROOT, spectralRuleset: ADMIN_SPECTRAL_RULESET });
}

/** generated/admin/types.ts: openapi-typescript, as for the contract. */
export async function renderAdminTypes(document: OpenApiDocument): Promise<string> {
  const types = await renderTypes(document);
  return types.replace('from openapi/openapi.yaml', 'from sandbox/admin/openapi.yaml');
}

/** docs/sandbox-admin.html and the document it offers for download, docs/sandbox-admin.yaml. */
export async function renderAdminDocs(
  document: OpenApiDocument,
  path = ADMIN_ROOT,
): Promise<Array<{ path: string; content: string }>> {
  return [
    { path: 'docs/sandbox-admin.html', content: await renderReferencePage(document, ADMIN_DOCS_CONFIG) },
    { path: 'docs/sandbox-admin.yaml', content: await readFile(path, 'utf8') },
  ];
}
