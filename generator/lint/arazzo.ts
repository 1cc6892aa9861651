// The Arazzo workflows (arazzo/*.arazzo.yaml) and the hosted page's test description beside them
// (arazzo/*.openapi.yaml). Redocly lints both kinds with the contract's configuration (redocly.yaml's
// arazzo1Rules add Respect's rules on `x-security`), but it does not open the source descriptions:
// a step naming an operation or a security scheme that its description lacks (a renamed
// operationId in the contract) is found here, where it is written. The same bar: no error, no warning.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Node } from 'yaml';
import { isObject, operations } from '../../tooling/openapi/walker.js';
import { ARAZZO_DIR, REDOCLY_CONFIG } from '../support/paths.js';
import { SourceFiles } from '../support/sourcemap.js';
import { type LintProblem, type LintResult, redoclyLint } from './lint.js';

/** The YAML files of `dir`, sorted: the workflows and the descriptions they use. */
export async function arazzoFiles(dir = ARAZZO_DIR): Promise<string[]> {
  const names = await readdir(dir).catch(() => []);
  return names
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

export async function lintArazzo(options: { dir?: string; redoclyConfig?: string } = {}): Promise<LintResult> {
  const t0 = performance.now();
  const files = await arazzoFiles(options.dir);
  const redocly = files.length ? await redoclyLint(files, options.redoclyConfig ?? REDOCLY_CONFIG) : [];
  const timingsMs = { redocly: Math.round(performance.now() - t0) };
  // references only once the files parse and are well formed
  const problems = redocly.some((p) => p.severity === 'error') ? redocly : [...redocly, ...checkReferences(files)];
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  return { problems, errors, warnings, ok: errors === 0 && warnings === 0, timingsMs };
}

/** What a source description offers a step: its operationIds and security scheme names. */
interface Source {
  operationIds: Set<string>;
  schemes: Set<string>;
}

/** Every step's `operationId` and `x-security` `schemeName` against the description it names. */
export function checkReferences(files: string[], sources = new SourceFiles()): LintProblem[] {
  const problems: LintProblem[] = [];
  for (const file of files.filter((f) => f.endsWith('.arazzo.yaml'))) {
    const parsed = sources.get(file);
    if (!parsed || !isObject(parsed.value)) continue;
    const at = (path: (string | number)[], rule: string, message: string) => {
      const node = parsed.doc.getIn(path, true) as Node | undefined;
      const pos = parsed.lines.linePos(node?.range?.[0] ?? 0);
      problems.push({
        tool: 'redocly',
        file: relative(process.cwd(), file),
        line: pos.line,
        col: pos.col,
        severity: 'error',
        rule,
        message,
      });
    };
    // a description that cannot be read is reported once, at its url; its steps are not checked
    const described = new Map<string, Source | undefined>();
    const list = (v: unknown) => (Array.isArray(v) ? v : []);
    for (const [i, d] of list(parsed.value.sourceDescriptions).entries()) {
      if (!isObject(d) || d.type !== 'openapi' || typeof d.name !== 'string' || typeof d.url !== 'string') continue;
      const path = resolve(dirname(file), d.url);
      const document = existsSync(path) ? sources.get(path)?.value : undefined;
      if (!isObject(document)) {
        at(
          ['sourceDescriptions', i, 'url'],
          'arazzo-source-description',
          `${d.url} cannot be read as an OpenAPI description`,
        );
        described.set(d.name, undefined);
        continue;
      }
      const components = isObject(document.components) ? document.components : {};
      described.set(d.name, {
        operationIds: new Set(operations(document).map((o) => String(o.operation.operationId))),
        schemes: new Set(isObject(components.securitySchemes) ? Object.keys(components.securitySchemes) : []),
      });
    }
    for (const [w, workflow] of list(parsed.value.workflows).entries()) {
      if (!isObject(workflow)) continue;
      for (const [s, step] of list(workflow.steps).entries()) {
        if (!isObject(step) || typeof step.operationId !== 'string') continue;
        // `name.operationId` when there are several descriptions, as the Arazzo specification asks
        const dot = step.operationId.indexOf('.');
        const prefix = dot > 0 ? step.operationId.slice(0, dot) : '';
        const named = described.has(prefix);
        const id = named ? step.operationId.slice(dot + 1) : step.operationId;
        const stepPath = ['workflows', w, 'steps', s];
        if (!named && described.size !== 1) {
          at(
            [...stepPath, 'operationId'],
            'arazzo-operation',
            `${step.operationId}: name its source description (name.operationId)`,
          );
          continue;
        }
        const source = named ? described.get(prefix) : [...described.values()][0];
        if (!source) continue; // unreadable: reported at its url
        if (!source.operationIds.has(id))
          at(
            [...stepPath, 'operationId'],
            'arazzo-operation',
            `${step.operationId}: no such operation in its source description`,
          );
        for (const [k, security] of list(step['x-security']).entries())
          if (isObject(security) && typeof security.schemeName === 'string' && !source.schemes.has(security.schemeName))
            at(
              [...stepPath, 'x-security', k, 'schemeName'],
              'arazzo-security-scheme',
              `${security.schemeName}: no such security scheme in the step's source description`,
            );
      }
    }
  }
  return problems;
}
