// Functions one can hold in one's head: none of the product's is over MAX_LINES lines (from its
// first token to its last: a declaration, a method, an arrow function, a function expression), in
// the folders of code that runs or builds what ships. Split a longer one by what its parts do.
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = ['sandbox', 'generator', 'src', 'tooling', 'scripts', 'bench', 'mock', 'packages'];
const MAX_LINES = 120;

/** The functions of `text` over `max` lines, as `path:line name (n lines)`. */
function longFunctions(path: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const [first, last] = [lineOf(node.getStart(source)), lineOf(node.getEnd())];
      if (last - first + 1 > max) found.push(`${path}:${first} ${nameOf(node)} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** The product's source files: every script under FOLDERS but packages' builds and installs. */
function productFiles(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((entry) => /\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts'))
      .map((entry) => entry.split(sep))
      .filter((parts) => !parts.includes('node_modules') && !(folder === 'packages' && parts[1] === 'dist'))
      .map((parts) => `${folder}/${parts.join('/')}`),
  );
}

describe('function size', () => {
  it('finds a function over the limit, by its name and line, and leaves one at it alone', () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `function atLimit() {\n${body(MAX_LINES)}\n}\nconst over = () => {\n${body(MAX_LINES + 1)}\n};\n`;
    expect(longFunctions('x.ts', text)).toEqual([`x.ts:${MAX_LINES + 1} over (${MAX_LINES + 1} lines)`]);
  });

  it(`holds in the product's folders: no function over ${MAX_LINES} lines`, () => {
    const files = productFiles();
    expect(files).toEqual(expect.arrayContaining(['sandbox/http/core.ts', 'generator/generate.ts']));
    expect(files.flatMap((path) => longFunctions(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
  });
});
