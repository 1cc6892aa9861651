import {
  type ComponentKind,
  componentsOf,
  getAt,
  isObject as isObj,
  isReference,
  type JsonObject,
  operations,
  type PointerTokens,
  walkSchemas,
} from '../../tooling/openapi/walker.js';

// What in the contract the interface document states (documented) and what the contract had
// to choose (inferred, marked `x-provenance: inferred`). Counted on the bundle, each object
// once where it physically lives ($refs are not followed, so a shared schema counts once).
// Inferred = the object carries the marker, or sits inside one that does (a property of an
// inferred schema, an inline response of an inferred operation, ...).
// Responses are counted per operation and status: a status the document does not give for that
// operation is listed in the operation's `x-inferred-responses`, even when its body is documented.
// Links are counted where they live (a named link once, however many responses use it).

export interface Tally {
  documented: number;
  inferred: number;
  total: number;
}

export interface ProvenanceCounts {
  operations: Tally;
  namedSchemas: Tally;
  properties: Tally;
  responses: Tally;
  parameters: Tally;
  requestBodies: Tally;
  /** Link Objects (components and inline ones): the interface document shows none, so every one is the contract's design. */
  links: Tally;
  /** Schemas (properties or not) listing `x-inferred-constraints`: keywords whose values the contract chose. */
  inferredConstraints: { properties: number; schemas: number; keywords: Record<string, number> };
}

export const TALLY_LABELS: Record<Exclude<keyof ProvenanceCounts, 'inferredConstraints'>, string> = {
  operations: 'operations',
  namedSchemas: 'named schemas',
  properties: 'properties',
  responses: 'responses (operation × status)',
  parameters: 'parameters',
  requestBodies: 'request bodies',
  links: 'links',
};

const INFERRED = 'inferred';

export function countProvenance(doc: JsonObject): ProvenanceCounts {
  const tally = (): Tally => ({ documented: 0, inferred: 0, total: 0 });
  const c: ProvenanceCounts = {
    operations: tally(),
    namedSchemas: tally(),
    properties: tally(),
    responses: tally(),
    parameters: tally(),
    requestBodies: tally(),
    links: tally(),
    inferredConstraints: { properties: 0, schemas: 0, keywords: {} },
  };
  const add = (t: Tally, inferred: boolean) => {
    t.total++;
    if (inferred) t.inferred++;
    else t.documented++;
  };
  /** true when the node at `path`, or any object on the way to it, is marked inferred */
  const inferredAt = (path: PointerTokens): boolean => {
    let node: unknown = doc;
    for (const seg of path) {
      if (!isObj(node) && !Array.isArray(node)) return false;
      node = (node as Record<string | number, unknown>)[seg];
      if (isObj(node) && node['x-provenance'] === INFERRED) return true;
    }
    return false;
  };
  const notRef = (v: unknown): v is JsonObject => isObj(v) && v.$ref === undefined;

  for (const { tokens } of operations(doc)) add(c.operations, inferredAt(tokens));

  for (const s of Object.values(componentsOf(doc, 'schemas'))) {
    add(c.namedSchemas, isObj(s) && s['x-provenance'] === INFERRED);
  }

  walkSchemas(doc, (schema, path) => {
    const constraints = schema['x-inferred-constraints'];
    const isProperty = path.at(-2) === 'properties';
    if (Array.isArray(constraints) && constraints.length > 0) {
      c.inferredConstraints.schemas++;
      if (isProperty) c.inferredConstraints.properties++;
      for (const k of constraints)
        c.inferredConstraints.keywords[String(k)] = (c.inferredConstraints.keywords[String(k)] ?? 0) + 1;
    }
    if (isObj(schema.properties)) {
      const parentInferred = inferredAt(path);
      for (const prop of Object.values(schema.properties)) {
        add(c.properties, parentInferred || (isObj(prop) && prop['x-provenance'] === INFERRED));
      }
    }
  });

  // responses, parameters, request bodies: the components, then the inline ones
  const eachComponent = (kind: ComponentKind, t: Tally) => {
    for (const [name, node] of Object.entries(componentsOf(doc, kind)))
      if (notRef(node)) add(t, inferredAt(['components', kind, name]));
  };
  eachComponent('parameters', c.parameters);
  eachComponent('requestBodies', c.requestBodies);
  eachComponent('links', c.links);
  /** The inline Link Objects of a response that lives at `at` (a referenced link is counted where it lives). */
  const inlineLinks = (response: unknown, at: PointerTokens) => {
    if (!notRef(response) || !isObj(response.links)) return;
    for (const [name, link] of Object.entries(response.links))
      if (notRef(link)) add(c.links, inferredAt([...at, 'links', name]));
  };
  for (const [name, response] of Object.entries(componentsOf(doc, 'responses')))
    inlineLinks(response, ['components', 'responses', name]);

  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const countedPathItems = new Set<string>();
  for (const { operation, pathItem, tokens } of operations(doc)) {
    const itemTokens = tokens.slice(0, -1);
    if (!countedPathItems.has(itemTokens.join('/'))) {
      countedPathItems.add(itemTokens.join('/'));
      list(pathItem.parameters).forEach(
        (p, i) => notRef(p) && add(c.parameters, inferredAt([...itemTokens, 'parameters', i])),
      );
    }
    list(operation.parameters).forEach(
      (p, i) => notRef(p) && add(c.parameters, inferredAt([...tokens, 'parameters', i])),
    );
    if (notRef(operation.requestBody)) add(c.requestBodies, inferredAt([...tokens, 'requestBody']));
    const op = operation as JsonObject;
    const inferredStatuses = list(op['x-inferred-responses']);
    for (const [code, r] of Object.entries(operation.responses ?? {})) {
      inlineLinks(r, [...tokens, 'responses', code]);
      const target = isReference(r) ? getAt(doc, r.$ref) : r;
      add(
        c.responses,
        inferredStatuses.includes(code) ||
          inferredAt([...tokens, 'responses', code]) ||
          (isObj(target) && target['x-provenance'] === INFERRED),
      );
    }
  }
  return c;
}

/** Small aligned table for the terminal. */
export function formatProvenance(c: ProvenanceCounts, title?: string): string {
  const rows: string[][] = [['', 'documented', 'inferred', 'total']];
  for (const [key, label] of Object.entries(TALLY_LABELS)) {
    const t = c[key as keyof typeof TALLY_LABELS];
    rows.push([label, String(t.documented), String(t.inferred), String(t.total)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
  );
  const kw = Object.entries(c.inferredConstraints.keywords)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  lines.push(
    '',
    `x-inferred-constraints: ${c.inferredConstraints.properties} properties (${c.inferredConstraints.schemas} schemas in all)` +
      (kw ? `; keywords: ${kw}` : ''),
  );
  return (title ? `${title}\n` : '') + lines.join('\n');
}
