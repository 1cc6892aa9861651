// One corpus of values per component schema of the contract, to hold two readings of the contract
// to each other: the released and the current contract (test/equivalence.test.ts), the contract and
// the zod schemas other generators make from it (test/generators.test.ts).
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
import { deref, derefLenient, isObject, locate, operations, propertiesOf, requiredOf, schemaTypes, toPointer, walkSchemas, type JsonObject } from '../../src/openapi/walker.js';

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
  isObject(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith(SCHEMA_PREFIX) ? schema.$ref.slice(SCHEMA_PREFIX.length) : undefined;

/** The schema (or an allOf member) has keywords that may require more than `required` says: no minimal variant. */
function conditional(root: JsonObject, schema: unknown, seen = new Set<unknown>()): boolean {
  const s = derefLenient<unknown>(root, schema);
  if (!isObject(s) || seen.has(s)) return false;
  seen.add(s);
  if (['oneOf', 'anyOf', 'if', 'minProperties', 'dependentRequired', 'not'].some((k) => s[k] !== undefined)) return true;
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
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, unknown>;
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
      for (const [key, sub] of propertiesOf(doc, s)) if (key in value) collect(sub, value[key], `${label}.${key}`, depth + 1);
    }
    if (Array.isArray(value) && s.items !== undefined) value.forEach((item, i) => collect(s.items, item, `${label}[${i}]`, depth + 1));
  };

  // The schemas' own examples, everywhere in the document.
  walkSchemas(doc, (schema, path) => {
    if (Array.isArray(schema.examples)) schema.examples.forEach((value, i) => collect(schema, value, `${path.join('/')}/examples/${i}`));
  });
  for (const [name, schema] of Object.entries(schemas)) {
    if (isObject(schema) && Array.isArray(schema.examples)) schema.examples.forEach((value, i) => collect({ $ref: `${SCHEMA_PREFIX}${name}` }, value, `${name}.examples[${i}]`));
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
      if (!conditional(doc, schema) && Object.keys(minimal).length < Object.keys(value).length) corpus.push({ schema: name, kind: 'valid', label: `${label} with its required properties only`, value: minimal });
      for (const key of required) {
        if (!(key in value)) continue;
        const { [key]: _, ...rest } = value;
        corpus.push({ schema: name, kind: 'missing-required', label: `${label} without ${key}`, value: rest, property: key });
      }
      for (const key of Object.keys(value)) {
        const sub = properties.get(key);
        if (sub === undefined) continue;
        corpus.push({ schema: name, kind: 'wrong-type', label: `${label} with ${key} of another type`, value: { ...value, [key]: otherType(doc, sub) }, property: key });
      }
      if (closed) corpus.push({ schema: name, kind: 'extra-property', label: `${label} with an undeclared property`, value: { ...value, undeclaredProperty: 1 } });
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
    for (const [status, response] of Object.entries(operation.responses ?? {})) holders.push([response, [...tokens, 'responses', status]]);
    for (const [holder, at] of holders) {
      const h = derefLenient<unknown>(doc, holder);
      if (isObject(h) && isObject(h.content)) for (const mediaType of Object.keys(h.content)) media(toPointer([...at, 'content', mediaType]));
    }
  }
}
