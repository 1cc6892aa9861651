import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { JSON_SCHEMA, load, type Type, types, YAMLException } from 'js-yaml';
import { type Document, isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { isReference, parsePointer } from '../../tooling/openapi/walker.js';

// Redocly's bundle keeps no record of where each node came from, so we rebuild it: walk the
// bundle and the multi-file source side by side. Where the source has an external `$ref` and
// the bundle has `#/components/<type>/<Name>`, that component came from the ref's target. A
// bundle path is then mapped by stepping through the source, following `$ref`s as the bundler
// did. This relies only on the bundle being the source with refs moved, not on how Redocly
// names components.

export type JsonPath = ReadonlyArray<string | number>;

export interface SourceLocation {
  file: string; // absolute
  line: number; // 1-based
  col: number; // 1-based
  /** false when the path ends in something the bundler made up; the location is the nearest source ancestor */
  exact: boolean;
}

interface Loc {
  file: string;
  path: (string | number)[];
}

/**
 * A source file: its text, its value as Redocly's bundler reads it, and its parse by `yaml`, whose
 * nodes know their places, made only when asked for (where a problem is, what a syntax error is):
 * js-yaml reads a file in a fraction of the time `yaml` takes to build its document.
 */
export interface SourceFile {
  text: string;
  /** Undefined where js-yaml cannot read the file (`readError`). */
  value: unknown;
  readError?: YAMLException;
  readonly doc: Document;
  readonly lines: LineCounter;
}

// js-yaml exports its types, which @types/js-yaml leaves out.
declare module 'js-yaml' {
  export const types: Record<'merge' | 'binary' | 'omap' | 'pairs' | 'set', Type>;
}

/** @redocly/openapi-core's reading of YAML (its parseYaml): JSON's scalars, no timestamps, merge keys. */
const BUNDLER_SCHEMA = JSON_SCHEMA.extend({
  implicit: [types.merge],
  explicit: [types.binary, types.omap, types.pairs, types.set],
});

class ReadFile implements SourceFile {
  value: unknown;
  readError?: YAMLException;
  private parsed?: { doc: Document; lines: LineCounter };

  constructor(readonly text: string) {
    try {
      this.value = load(text, { schema: BUNDLER_SCHEMA });
    } catch (err) {
      if (!(err instanceof YAMLException)) throw err;
      this.readError = err;
    }
  }

  get doc(): Document {
    return this.parse().doc;
  }

  get lines(): LineCounter {
    return this.parse().lines;
  }

  private parse(): { doc: Document; lines: LineCounter } {
    if (!this.parsed) {
      const lines = new LineCounter();
      this.parsed = { doc: parseDocument(this.text, { lineCounter: lines, prettyErrors: false }), lines };
    }
    return this.parsed;
  }
}

/** Source files read once, shared by the syntax check and the locator (null: unreadable). */
export class SourceFiles {
  private readonly files = new Map<string, SourceFile | null>();

  get(file: string): SourceFile | null {
    if (!this.files.has(file)) {
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // a file that is not there, or not a file
      }
      this.files.set(file, text === undefined ? null : new ReadFile(text));
    }
    return this.files.get(file)!;
  }
}

const refOf = (v: unknown): string | undefined => (isReference(v) ? v.$ref : undefined);

export class SourceLocator {
  /** "schemas/Payment" -> where that component's content lives in the source */
  private readonly components = new Map<string, Loc>();

  constructor(
    private readonly root: string,
    private readonly bundle: unknown,
    private readonly files = new SourceFiles(),
  ) {
    this.index();
  }

  /** Source location of a node of the bundle, or undefined when even the root can't be read. */
  locate(path: JsonPath): SourceLocation | undefined {
    let loc: Loc = { file: this.root, path: [] };
    let rest = [...path];
    const [first, type, name] = path;
    if (first === 'components' && typeof type === 'string' && name !== undefined) {
      const hit = this.components.get(`${type}/${name}`);
      if (hit) {
        loc = hit;
        rest = rest.slice(3);
      }
    }
    let exact = true;
    for (const seg of rest) {
      loc = this.follow(loc);
      const v = this.valueAt(loc);
      const key = Array.isArray(v) ? Number(seg) : String(seg);
      if (v === null || typeof v !== 'object' || !(key in (v as object))) {
        exact = false;
        break;
      }
      loc = { file: loc.file, path: [...loc.path, key] };
    }
    return this.position(loc, exact);
  }

  private index(): void {
    const queue: Array<[unknown, Loc]> = [[this.bundle, { file: this.root, path: [] }]];
    while (queue.length > 0) {
      const [node, loc] = queue.shift()!;
      this.walk(node, loc, queue, 0);
    }
  }

  private walk(bundleNode: unknown, loc: Loc, queue: Array<[unknown, Loc]>, depth: number): void {
    if (depth > 200 || bundleNode === null || typeof bundleNode !== 'object') return;
    const bundleRef = refOf(bundleNode);
    const srcRef = refOf(this.valueAt(loc));
    if (srcRef !== undefined && srcRef !== bundleRef) {
      const target = this.follow(loc);
      const [section, type, name, ...deeper] = bundleRef?.startsWith('#/') ? parsePointer(bundleRef) : [];
      if (section === 'components' && type !== undefined && name !== undefined && deeper.length === 0) {
        // the bundler moved the ref's target into components
        const key = `${type}/${name}`;
        if (!this.components.has(key)) {
          this.components.set(key, target);
          const comps = (this.bundle as { components?: Record<string, Record<string, unknown> | undefined> })
            .components;
          queue.push([comps?.[type]?.[name], target]);
        }
        return;
      }
      loc = target; // inlined (path items, or a ref into the root's own components)
    }
    if (bundleRef !== undefined) return;
    const src = this.valueAt(loc);
    if (src === null || typeof src !== 'object') return;
    for (const [k, child] of Object.entries(bundleNode)) {
      const key = Array.isArray(bundleNode) ? Number(k) : k;
      if (key in (src as object)) this.walk(child, { file: loc.file, path: [...loc.path, key] }, queue, depth + 1);
    }
  }

  /** Follows `$ref`s at loc (through files) until a non-ref node. */
  private follow(loc: Loc): Loc {
    const seen = new Set<string>();
    for (let ref = refOf(this.valueAt(loc)); ref !== undefined; ref = refOf(this.valueAt(loc))) {
      const [filePart = '', frag = ''] = ref.split('#');
      const file = filePart ? resolve(dirname(loc.file), decodeURI(filePart)) : loc.file;
      const key = `${file}#${frag}`;
      if (seen.has(key)) break;
      seen.add(key);
      const next: Loc = { file, path: frag ? parsePointer(frag) : [] };
      if (this.valueAt(next) === undefined) break;
      loc = next;
    }
    return loc;
  }

  private load(file: string): SourceFile | null {
    return this.files.get(file);
  }

  private valueAt(loc: Loc): unknown {
    let v: unknown = this.load(loc.file)?.value;
    for (const seg of loc.path) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[seg];
    }
    return v;
  }

  private position(loc: Loc, exact: boolean): SourceLocation | undefined {
    const f = this.load(loc.file);
    if (!f) return undefined;
    let offset = 0;
    if (loc.path.length > 0) {
      // point at the key of a mapping entry (the line a reader looks for), else at the node
      const parent = f.doc.getIn(loc.path.slice(0, -1), true);
      const last = loc.path.at(-1);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => (p.key as { value?: unknown })?.value === last);
        offset = (pair?.key as { range?: number[] })?.range?.[0] ?? 0;
      } else if (isSeq(parent)) {
        offset = (parent.items[Number(last)] as { range?: number[] })?.range?.[0] ?? 0;
      }
    }
    const { line, col } = f.lines.linePos(offset);
    return { file: loc.file, line, col, exact };
  }
}
