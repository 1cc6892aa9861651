// One corpus of values per component schema of the contract, to hold two readings of the contract
// to each other: the released and the current contract (test/contract/equivalence.unit.test.ts), the contract and
// the zod schemas other generators make from it (test/generator/third-party-generators.test.ts).
//
//   example           every example of the contract: the schemas' own `examples`, the Example
//                     Objects of request and response bodies, and every part of those values that a
//                     named schema describes (the `amount` of a payment example is an Amount example);
//   valid             an example without its optional top-level properties;
//   missing-required  an example without one property its schema requires (each in turn);
//   wrong-type        an example with one top-level property of another JSON type (each in turn);
//   extra-property    an example with an undeclared property, where the schema forbids them.
//
// Deterministic: the same contract gives the same corpus, in the same order.
import {
  componentsOf,
  deref,
  derefLenient,
  escapeToken,
  isObject,
  type JsonObject,
  locate,
  operations,
  parsePointer,
  propertiesOf,
  requiredOf,
  schemaTypes,
  toPointer,
  tryResolve,
  walkSchemas,
} from '../../tooling/openapi/walker.js';

export interface CorpusValue {
  /** component schema name, e.g. 'CheckoutSessionRequest' */
  schema: string;
  kind: 'example' | 'valid' | 'missing-required' | 'wrong-type' | 'extra-property';
  /** for messages: where it came from / what was changed */
  label: string;
  value: unknown;
  /** The top-level property a variant removed or changed. */
  property?: string;
}

const SCHEMA_PREFIX = '#/components/schemas/';

/** The component name a (possibly referenced) schema is, or undefined for an inline schema. */
const componentOf = (schema: unknown) =>
  isObject(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith(SCHEMA_PREFIX)
    ? schema.$ref.slice(SCHEMA_PREFIX.length)
    : undefined;

/** The schema (or an allOf member) has keywords that may require more than `required` says: no minimal variant. */
function conditional(root: JsonObject, schema: unknown, seen = new Set<unknown>()): boolean {
  const s = derefLenient<unknown>(root, schema);
  if (!isObject(s) || seen.has(s)) return false;
  seen.add(s);
  if (['oneOf', 'anyOf', 'if', 'minProperties', 'dependentRequired', 'not'].some((k) => s[k] !== undefined))
    return true;
  return Array.isArray(s.allOf) && s.allOf.some((m) => conditional(root, m, seen));
}

/** A value of another JSON type than the ones `schema` admits. */
function otherType(root: JsonObject, schema: unknown): unknown {
  const types = new Set(schemaTypes(derefLenient(root, schema)));
  if (!types.has('string')) return 'not-a-string-value';
  if (!types.has('integer') && !types.has('number')) return 12345;
  if (!types.has('boolean')) return true;
  return { unexpected: 'object' };
}

export function buildCorpus(doc: JsonObject): CorpusValue[] {
  const schemas = componentsOf(doc, 'schemas');
  const examples = new Map<string, Array<{ label: string; value: unknown }>>();
  const seenValues = new Map<string, Set<string>>();
  const record = (name: string, label: string, value: unknown) => {
    const key = JSON.stringify(value);
    const seen = seenValues.get(name) ?? new Set<string>();
    if (seen.has(key)) return;
    seen.add(key);
    seenValues.set(name, seen);
    examples.set(name, [...(examples.get(name) ?? []), { label, value }]);
  };

  /** Records `value` for every named schema that describes it or a part of it. */
  const collect = (schema: unknown, value: unknown, label: string, depth = 0): void => {
    if (depth > 20 || value === undefined) return;
    const name = componentOf(schema);
    if (name) record(name, label, value);
    const s = derefLenient<unknown>(doc, schema);
    if (!isObject(s)) return;
    for (const member of Array.isArray(s.allOf) ? s.allOf : []) collect(member, value, label, depth + 1);
    if (isObject(value)) {
      for (const [key, sub] of propertiesOf(doc, s))
        if (key in value) collect(sub, value[key], `${label}.${key}`, depth + 1);
    }
    if (Array.isArray(value) && s.items !== undefined)
      value.forEach((item, i) => collect(s.items, item, `${label}[${i}]`, depth + 1));
  };

  // The schemas' own examples, everywhere in the document.
  walkSchemas(doc, (schema, path) => {
    if (Array.isArray(schema.examples))
      schema.examples.forEach((value, i) => collect(schema, value, `${path.join('/')}/examples/${i}`));
  });
  for (const [name, schema] of Object.entries(schemas)) {
    if (isObject(schema) && Array.isArray(schema.examples))
      schema.examples.forEach((value, i) =>
        collect({ $ref: `${SCHEMA_PREFIX}${name}` }, value, `${name}.examples[${i}]`),
      );
  }
  // The Example Objects of request and response bodies (and the named examples), with their schemas.
  walkMedia(doc, (mediaSchema, example, label) => collect(mediaSchema, example, label));

  const corpus: CorpusValue[] = [];
  for (const name of Object.keys(schemas).sort()) {
    const ref = { $ref: `${SCHEMA_PREFIX}${name}` };
    const schema = deref<JsonObject>(doc, ref);
    const properties = propertiesOf(doc, schema);
    const required = requiredOf(doc, schema);
    const closed = schema.additionalProperties === false || schema.unevaluatedProperties === false;
    for (const { label, value } of examples.get(name) ?? []) {
      corpus.push({ schema: name, kind: 'example', label, value });
      if (!isObject(value)) continue;
      const minimal = Object.fromEntries(Object.entries(value).filter(([k]) => required.has(k)));
      if (!conditional(doc, schema) && Object.keys(minimal).length < Object.keys(value).length)
        corpus.push({
          schema: name,
          kind: 'valid',
          label: `${label} with its required properties only`,
          value: minimal,
        });
      for (const key of required) {
        if (!(key in value)) continue;
        const { [key]: _, ...rest } = value;
        corpus.push({
          schema: name,
          kind: 'missing-required',
          label: `${label} without ${key}`,
          value: rest,
          property: key,
        });
      }
      for (const key of Object.keys(value)) {
        const sub = properties.get(key);
        if (sub === undefined) continue;
        corpus.push({
          schema: name,
          kind: 'wrong-type',
          label: `${label} with ${key} of another type`,
          value: { ...value, [key]: otherType(doc, sub) },
          property: key,
        });
      }
      if (closed)
        corpus.push({
          schema: name,
          kind: 'extra-property',
          label: `${label} with an undeclared property`,
          value: { ...value, undeclaredProperty: 1 },
        });
    }
  }
  return corpus;
}

/** Calls `visit` with each media type's schema and each of its examples (inline or Example Objects). */
function walkMedia(doc: JsonObject, visit: (schema: unknown, example: unknown, label: string) => void): void {
  const seen = new Set<string>();
  const media = (pointer: string) => {
    if (seen.has(pointer)) return;
    seen.add(pointer);
    const { node } = locate<unknown>(doc, pointer);
    if (!isObject(node) || node.schema === undefined) return;
    if (node.example !== undefined) visit(node.schema, node.example, `${pointer}/example`);
    if (isObject(node.examples)) {
      for (const [name, example] of Object.entries(node.examples)) {
        const value = derefLenient<unknown>(doc, example);
        if (isObject(value) && 'value' in value) visit(node.schema, value.value, `${pointer}/examples/${name}`);
      }
    }
  };
  for (const { operation, tokens } of operations(doc)) {
    const holders: Array<[unknown, (string | number)[]]> = [];
    if (operation.requestBody !== undefined) holders.push([operation.requestBody, [...tokens, 'requestBody']]);
    for (const [status, response] of Object.entries(operation.responses ?? {}))
      holders.push([response, [...tokens, 'responses', status]]);
    for (const [holder, at] of holders) {
      const h = derefLenient<unknown>(doc, holder);
      if (isObject(h) && isObject(h.content))
        for (const mediaType of Object.keys(h.content)) media(toPointer([...at, 'content', mediaType]));
    }
  }
}

/**
 * A value that tests one validation keyword of the contract: a corpus example of an object schema
 * changed at one place where that keyword applies, so that the keyword alone decides its verdict.
 * Readers of the contract (zod schemas other generators make) show by their verdicts which keywords
 * they enforce.
 */
export interface KeywordProbe {
  /** component schema name of the whole value */
  schema: string;
  /** 'minProperties', 'oneOf', 'if/then', 'format: email', … */
  keyword: string;
  /** pointer to the schema object that carries the keyword */
  at: string;
  label: string;
  value: unknown;
  /** the contract's verdict */
  valid: boolean;
  /** for an invalid probe: the only keywords a JSON Schema validator may report (the probe's isolation) */
  failsOn: string[];
}

type Replacement = Omit<KeywordProbe, 'schema' | 'label' | 'value' | 'at'> & { replacement: unknown; note: string };

/** Strings that break each string format (and nothing else, as the tests check). */
const FORMAT_BREAKERS: Record<string, string> = {
  email: 'lena.schmidt.example.org',
  date: '21.11.2026',
  'date-time': '21.11.2026 10:15',
  uri: 'shop.example.com/return',
  'uri-reference': 'https://shop.example.com/a b',
};

/**
 * Every keyword probe the examples of the contract allow. `matches(pointer, value)` is a JSON
 * Schema validator's verdict for the schema at `pointer` (for `if` and `oneOf` branches).
 */
export function buildKeywordProbes(
  doc: JsonObject,
  corpus: CorpusValue[],
  matches: (pointer: string, value: unknown) => boolean,
): KeywordProbe[] {
  interface Occurrence {
    schema: string;
    root: unknown;
    path: (string | number)[];
    pointer: string;
    node: JsonObject;
    value: unknown;
  }
  const occurrences: Occurrence[] = [];
  const valuesAt = new Map<string, unknown[]>();
  const visit = (
    schema: string,
    root: unknown,
    ref: unknown,
    at: string,
    value: unknown,
    path: (string | number)[],
    depth = 0,
  ): void => {
    const resolved = tryResolve<unknown>(doc, ref, parsePointer(at));
    if (depth > 20 || !resolved || !isObject(resolved.node) || value === undefined) return;
    const [node, pointer] = [resolved.node, resolved.tokens ? toPointer(resolved.tokens) : at];
    occurrences.push({ schema, root, path, pointer, node, value });
    valuesAt.set(pointer, [...(valuesAt.get(pointer) ?? []), value]);
    if (Array.isArray(node.allOf))
      node.allOf.forEach((member, i) => visit(schema, root, member, `${pointer}/allOf/${i}`, value, path, depth + 1));
    if (isObject(value) && isObject(node.properties)) {
      for (const [key, sub] of Object.entries(node.properties))
        if (key in value)
          visit(schema, root, sub, `${pointer}/properties/${escapeToken(key)}`, value[key], [...path, key], depth + 1);
    }
    if (Array.isArray(value) && node.items !== undefined)
      value.forEach((item, i) => visit(schema, root, node.items, `${pointer}/items`, item, [...path, i], depth + 1));
  };
  for (const example of corpus) {
    if (example.kind === 'example' && isObject(example.value))
      visit(
        example.schema,
        example.value,
        { $ref: `${SCHEMA_PREFIX}${escapeToken(example.schema)}` },
        '',
        example.value,
        [],
      );
  }

  const replacements = ({ node, value, pointer }: Occurrence): Replacement[] => {
    const out: Replacement[] = [];
    const invalid = (keyword: string, replacement: unknown, note: string, failsOn = [keyword]) =>
      out.push({ keyword, replacement, note, valid: false, failsOn });
    if (
      typeof node.minProperties === 'number' &&
      node.minProperties > 0 &&
      isObject(value) &&
      requiredOf(doc, node).size === 0
    )
      invalid('minProperties', {}, 'an empty object');
    if (typeof node.maxProperties === 'number' && isObject(value) && Object.keys(value).length > 0) {
      const filler = Object.values(value)[0];
      const grown: JsonObject = { ...value };
      for (let i = 1; Object.keys(grown).length <= node.maxProperties; i++)
        grown[`extra${i}`] = filler as JsonObject[string];
      invalid('maxProperties', grown, `${node.maxProperties + 1} properties`);
    }
    if (node.uniqueItems === true && Array.isArray(value) && value.length > 0)
      invalid('uniqueItems', [...value, value[0]], 'its first item twice');
    if (
      isObject(node.if) &&
      isObject(node.then) &&
      Array.isArray(node.then.required) &&
      isObject(value) &&
      matches(`${pointer}/if`, value)
    ) {
      const key = node.then.required.map(String).find((k) => k in value);
      if (key !== undefined) {
        const { [key]: _, ...rest } = value;
        invalid('if/then', rest, `without ${key}, which its \`then\` requires`, ['required', 'if']);
      }
    }
    if (Array.isArray(node.oneOf) && isObject(value)) {
      const branches = node.oneOf;
      const branchOf = (v: unknown) => branches.findIndex((_, i) => matches(`${pointer}/oneOf/${i}`, v));
      const own = branchOf(value);
      const other = (valuesAt.get(pointer) ?? []).find((v) => isObject(v) && branchOf(v) !== own);
      if (isObject(other)) invalid('oneOf', { ...other, ...value }, 'matching two branches');
    }
    if (typeof node.format === 'string' && typeof value === 'string' && FORMAT_BREAKERS[node.format] !== undefined) {
      // A pattern beside the format states it for validators that read `format` as an annotation.
      invalid(`format: ${node.format}`, FORMAT_BREAKERS[node.format], `"${FORMAT_BREAKERS[node.format]}"`, [
        'format',
        ...(typeof node.pattern === 'string' ? ['pattern'] : []),
      ]);
      if (node.format === 'date-time' && value.endsWith('Z'))
        out.push({
          keyword: 'format: date-time',
          replacement: `${value.slice(0, -1)}+01:00`,
          note: 'with a UTC offset',
          valid: true,
          failsOn: [],
        });
    }
    if (node.format === 'int64' && typeof value === 'number')
      invalid('format: int64', String(value), 'as a numeric string', ['type']);
    return out;
  };

  const probes: KeywordProbe[] = [];
  const seen = new Set<string>();
  for (const occurrence of occurrences) {
    for (const { replacement, note, ...probe } of replacements(occurrence)) {
      const key = `${occurrence.schema} ${probe.keyword} ${occurrence.pointer} ${probe.valid}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const where = occurrence.path.length > 0 ? occurrence.path.join('.') : 'the value';
      probes.push({
        schema: occurrence.schema,
        at: occurrence.pointer,
        label: `${occurrence.schema} with ${where} ${note}`,
        value: replaceAt(occurrence.root, occurrence.path, replacement),
        ...probe,
      });
    }
  }
  return probes;
}

/** A copy of `root` with the value at `path` replaced. */
function replaceAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(root) ? [...root] : { ...(root as JsonObject) }) as Record<string | number, unknown>;
  copy[head] = replaceAt(copy[head], rest, value);
  return copy;
}
