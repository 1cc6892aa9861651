// JSON Schema helpers for tests: Ajv 2020 over the whole bundle, and a structural walk that
// collects what a (composed) schema declares.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { type Json, type JsonObject } from './openapi.js';
import { deref } from '../../src/openapi/walker.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const BUNDLE_ID = 'https://contract.test/openapi.json';

export interface SchemaValidator {
  /** Validates `value` against the schema at `pointer` (a `#/…` JSON pointer into the bundle). */
  validate(pointer: string, value: unknown): ErrorObject[];
  /** Validates against a component schema by name. */
  validateComponent(name: string, value: unknown): ErrorObject[];
}

export function createSchemaValidator(doc: JsonObject): SchemaValidator {
  // The dialect the contract declares (jsonSchemaDialect) is 2020-12. strict: false because
  // OpenAPI schemas carry vendor extensions and `example`.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc as object, BUNDLE_ID);
  const cache = new Map<string, ValidateFunction>();
  const validate = (pointer: string, value: unknown): ErrorObject[] => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: BUNDLE_ID + pointer });
      cache.set(pointer, fn);
    }
    return fn(value) ? [] : [...(fn.errors ?? [])];
  };
  return {
    validate,
    validateComponent: (name, value) => validate(`#/components/schemas/${name}`, value),
  };
}

export function formatErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`).join('; ');
}

export interface Declared {
  /** property name → every subschema that declares it */
  properties: Map<string, Json[]>;
  /** true when the schema admits properties it does not declare */
  open: boolean;
  /** subschemas for undeclared properties (additionalProperties objects) */
  additional: Json[];
  required: Set<string>;
}

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;
const CONDITIONALS = ['if', 'then', 'else'] as const;

/**
 * What an object schema declares, through $ref, allOf/anyOf/oneOf and if/then/else.
 * `required` only counts unconditional requirements (top level and allOf).
 */
export function declared(doc: JsonObject, schema: Json): Declared {
  const out: Declared = { properties: new Map(), open: false, additional: [], required: new Set() };
  let sawProperties = false;
  const visit = (node: Json, unconditional: boolean, seen: Set<Json>): void => {
    const s = deref<Json>(doc, node);
    if (s === true) { out.open = true; return; }
    if (!s || typeof s !== 'object' || Array.isArray(s) || seen.has(s)) return;
    seen.add(s);
    const props = s.properties as JsonObject | undefined;
    if (props) {
      sawProperties = true;
      for (const [name, sub] of Object.entries(props)) {
        out.properties.set(name, [...(out.properties.get(name) ?? []), sub]);
      }
    }
    if (unconditional && Array.isArray(s.required)) for (const r of s.required) out.required.add(String(r));
    if (s.additionalProperties === true) out.open = true;
    else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out.open = true;
      out.additional.push(s.additionalProperties);
    }
    for (const k of BRANCHES) {
      for (const b of (s[k] ?? []) as Json[]) visit(b, unconditional && k === 'allOf', seen);
    }
    for (const k of CONDITIONALS) if (s[k] !== undefined) visit(s[k] as Json, false, seen);
  };
  visit(schema, true, new Set());
  // An object schema that declares no properties at all is free-form (e.g. PlanDelayedShipment).
  if (!sawProperties) out.open = true;
  return out;
}

/** Item schema of an array schema, through $ref and composition. */
function itemSchemas(doc: JsonObject, schema: Json, seen = new Set<Json>()): Json[] {
  const s = deref<Json>(doc, schema);
  if (!s || typeof s !== 'object' || Array.isArray(s) || seen.has(s)) return [];
  seen.add(s);
  const out: Json[] = s.items !== undefined ? [s.items as Json] : [];
  for (const k of BRANCHES) for (const b of (s[k] ?? []) as Json[]) out.push(...itemSchemas(doc, b, seen));
  return out;
}

/**
 * JSON paths of object members in `value` that no applicable subschema declares: typos and
 * stale fields in examples, which validation alone lets through (objects are open).
 */
export function undeclaredMembers(doc: JsonObject, schema: Json, value: Json, path = '$'): string[] {
  if (Array.isArray(value)) {
    const items = itemSchemas(doc, schema);
    if (items.length === 0) return [];
    return value.flatMap((v, i) => items.flatMap((it) => undeclaredMembers(doc, it, v, `${path}[${i}]`)));
  }
  if (!value || typeof value !== 'object') return [];
  const d = declared(doc, schema);
  const problems: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const subs = d.properties.get(key) ?? d.additional;
    if (!d.properties.has(key) && !d.open) { problems.push(`${path}.${key}`); continue; }
    // A member must be explained by at least one declaring subschema.
    const results = subs.map((sub) => undeclaredMembers(doc, sub, member as Json, `${path}.${key}`));
    if (results.length > 0 && results.every((r) => r.length > 0)) problems.push(...results[0]);
  }
  return problems;
}
