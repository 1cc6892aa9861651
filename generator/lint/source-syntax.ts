// YAML syntax of the multi-file source, checked before anyone else reads it: read as Redocly's bundler
// reads it (js-yaml), and described from the `yaml` package's parse where that fails.
// Redocly reports a broken file as `no-unresolved-refs`, once in the file and once per `$ref` to it,
// at the line where the parser gave up (the line AFTER an unclosed `[`); here it is one problem,
// where the mistake is, with a hint.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CST, Parser, type YAMLError } from 'yaml';
import { walkObjects } from '../../tooling/openapi/walker.js';
import { type SourceFile, SourceFiles } from '../support/sourcemap.js';

export interface SyntaxProblem {
  file: string; // absolute
  line: number;
  col: number;
  message: string;
}

/**
 * The first YAML syntax error of each file reachable from `root` through `$ref`s (files that do not
 * exist are left to Redocly's no-unresolved-refs). A broken file's own refs are not followed.
 */
export function checkSourceSyntax(root: string, files = new SourceFiles()): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const queue = [resolve(root)];
  const seen = new Set(queue);
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const source = files.get(file);
    if (!source) continue;
    if (source.readError) {
      problems.push({ file, ...syntaxProblem(source) });
      continue;
    }
    for (const ref of refsIn(source.value)) {
      const path = ref.split('#')[0]!;
      // local refs, URLs, and Markdown or other text that Redocly includes as a string
      if (!path || /^[a-z][a-z0-9+.-]*:/i.test(path) || !/\.(ya?ml|json)$/i.test(path)) continue;
      const target = resolve(dirname(file), decodeURI(path));
      if (!seen.has(target) && existsSync(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return problems;
}

/** Every `$ref` of a source file, data included: every file a `$ref` names is checked, wherever the `$ref` sits. */
function refsIn(value: unknown): string[] {
  const out: string[] = [];
  walkObjects(
    value,
    (node) => {
      if (typeof node.$ref === 'string') out.push(node.$ref);
    },
    { data: true },
  );
  return out;
}

type LinePos = (offset: number) => { line: number; col: number };

/**
 * A file Redocly's bundler cannot read (js-yaml, SourceFile), described from `yaml`'s parse, whose
 * errors say more; js-yaml's own where `yaml` reads the file.
 */
function syntaxProblem(source: SourceFile): Omit<SyntaxProblem, 'file'> {
  const error = source.doc.errors[0];
  if (error) return describe(source.text, error, source.lines.linePos);
  const { mark, reason } = source.readError!;
  return { line: mark.line + 1, col: mark.column + 1, message: reason };
}

/**
 * Where the mistake is and what to do. An unclosed `[`, `{` or quote is reported where it was
 * opened: the parser only notices at the next line (or at the end of the file).
 */
function describe(text: string, error: YAMLError, linePos: LinePos): Omit<SyntaxProblem, 'file'> {
  const at = linePos(error.pos[0]);
  const said = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const open = unclosed(text);
  if (open && open.offset <= error.pos[0]) {
    const where = linePos(open.offset);
    const close = open.char === '[' ? ']' : open.char === '{' ? '}' : open.char;
    return {
      ...where,
      message: `a '${open.char}' opened on line ${where.line} is never closed: add the '${close}' (the YAML parser noticed at ${at.line}:${at.col}: ${said})`,
    };
  }
  const hint = HINTS[error.code];
  return { ...at, message: hint ? `${said}: ${hint}` : said };
}

const HINTS: Partial<Record<YAMLError['code'], string>> = {
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  DUPLICATE_KEY: 'a key may appear only once in a mapping',
  BAD_INDENT: 'check the indentation of this line against the lines above it',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line; is a ":" or a quote missing on the line above?',
  BLOCK_AS_IMPLICIT_KEY: 'quote a value that contains ": "',
  UNEXPECTED_TOKEN: 'quote a value that starts with a YAML indicator (@ ` | > % ! & * [ {)',
};

/** The first flow collection or quoted scalar that the CST shows without its closing character. */
function unclosed(text: string): { char: string; offset: number } | undefined {
  let found: { char: string; offset: number } | undefined;
  const check = (token: CST.Token | null | undefined): void => {
    if (!token || found) return;
    if (token.type === 'flow-collection') {
      const closer = token.start.source === '[' ? 'flow-seq-end' : 'flow-map-end';
      if (!token.end.some((t) => t.type === closer)) found = { char: token.start.source, offset: token.offset };
    } else if (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') {
      const q = token.type === 'double-quoted-scalar' ? '"' : "'";
      const body = token.source;
      const closed = body.length >= 2 && body.endsWith(q) && (q === "'" || !/(^|[^\\])(\\\\)*\\"$/.test(body));
      if (!closed) found = { char: q, offset: token.offset };
    }
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    check(token.value);
    CST.visit(token, (item) => {
      check(item.key);
      check(item.value);
      return found ? CST.visit.BREAK : undefined;
    });
    if (found) break;
  }
  return found;
}
