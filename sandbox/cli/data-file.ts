// A data file as a client reads it from disk (the CLI's `seed --data`, the Node API's `data:
// 'data.yaml'`): YAML or JSON (JSON is YAML), parsed with the position of every node, so that the
// sandbox's findings, which name each field by its JSON pointer, come back at their lines
// (data-findings.ts). Node only.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { parsePointer } from '../../tooling/openapi/walker.js';
import { DataFileError, type DataFileSource } from './data-findings.js';

export { DataFileError, type DataFileSource } from './data-findings.js';

/** Reads and parses the data file at `path`; a file that cannot be read, or is not YAML, is a DataFileError. */
export function readDataFile(path: string): DataFileSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new DataFileError([`${path}: cannot read the data file: ${(err as Error).message}`]);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0)
    throw new DataFileError(
      document.errors.map((e) => {
        const { line, column } = at(e.pos[0]);
        return `${path}:${line}:${column} ${e.message}`;
      }),
    );
  return {
    path,
    data: document.toJS(),
    positionOf: (pointer) => at(offsetOf(document.contents, parsePointer(pointer))),
  };
}

/**
 * Where the field `tokens` name begins: a map's field at its key, an item at itself; a field that is
 * not there (a required one missing) at the nearest ancestor that is.
 */
function offsetOf(root: Node | null, tokens: string[]): number {
  let node = root;
  let offset = root?.range?.[0] ?? 0;
  for (const token of tokens) {
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown } | null)?.value ?? p.key) === token);
      if (!pair) break;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(token)] as Node | undefined;
      if (!/^\d+$/.test(token) || !item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset;
}
