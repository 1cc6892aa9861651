// Examples against their schemas, on the bundle: every request, response, header, parameter and
// webhook example and every schema-level `examples`/`example`. The one implementation behind both
// `npm run lint` (rules example-invalid, example-undeclared-property) and test/contract/examples.unit.test.ts.
//  - invalid: Ajv 2020 + formats, the dialect the contract declares (jsonSchemaDialect);
//  - undeclared: a member that no applicable subschema declares, even where the schema admits
//    additional properties: typos and stale fields, which validation alone lets through.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import {
  deref,
  isObject,
  type JsonObject,
  locate,
  operations,
  parsePointer,
  resolve,
  toPointer,
  walkSchemas,
} from '../../tooling/openapi/walker.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

type Json = unknown;
const BUNDLE_ID = 'https://contract.test/openapi.json';

// ---------------------------------------------------------------------------------------------
// Validation

export interface SchemaValidator {
  /** Validates `value` against the schema at `pointer` (a `#/…` JSON pointer into the bundle). */
  validate(pointer: string, value: unknown): ErrorObject[];
  /** Validates against a component schema by name. */
  validateComponent(name: string, value: unknown): ErrorObject[];
}

export interface ValidatorOptions {
  /** Each schema validates a few values only (the lint): skip Ajv's code optimisation, which costs more to compile than it saves. */
  compileOnce?: boolean;
}

export function createSchemaValidator(doc: object, options: ValidatorOptions = {}): SchemaValidator {
  // strict: false because OpenAPI schemas carry vendor extensions and `example`.
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateSchema: false,
    code: options.compileOnce ? { optimize: false } : undefined,
  });
  addFormats(ajv);
  ajv.addSchema(doc, BUNDLE_ID);
  const cache = new Map<string, ValidateFunction>();
  const validate = (pointer: string, value: unknown): ErrorObject[] => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: BUNDLE_ID + pointer });
      cache.set(pointer, fn);
    }
    return fn(value) ? [] : [...(fn.errors ?? [])];
  };
  return { validate, validateComponent: (name, value) => validate(`#/components/schemas/${name}`, value) };
}

export function formatErrors(errors: ErrorObject[]): string {
  return errors
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// What a schema declares

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
export function declared(doc: object, schema: Json): Declared {
  const out: Declared = { properties: new Map(), open: false, additional: [], required: new Set() };
  let sawProperties = false;
  const visit = (node: Json, unconditional: boolean, seen: Set<Json>): void => {
    const s = deref<Json>(doc, node);
    if (s === true) {
      out.open = true;
      return;
    }
    if (!isObject(s) || seen.has(s)) return;
    seen.add(s);
    if (isObject(s.properties)) {
      sawProperties = true;
      for (const [name, sub] of Object.entries(s.properties))
        out.properties.set(name, [...(out.properties.get(name) ?? []), sub]);
    }
    if (unconditional && Array.isArray(s.required)) for (const r of s.required) out.required.add(String(r));
    if (s.additionalProperties === true) out.open = true;
    else if (isObject(s.additionalProperties)) {
      out.open = true;
      out.additional.push(s.additionalProperties);
    }
    for (const k of BRANCHES)
      for (const b of (Array.isArray(s[k]) ? s[k] : []) as Json[]) visit(b, unconditional && k === 'allOf', seen);
    for (const k of CONDITIONALS) if (s[k] !== undefined) visit(s[k], false, seen);
  };
  visit(schema, true, new Set());
  // An object schema that declares no properties at all is free-form (e.g. PlanDelayedShipment).
  if (!sawProperties) out.open = true;
  return out;
}

/** Item schemas of an array schema, through $ref and composition. */
function itemSchemas(doc: object, schema: Json, seen = new Set<Json>()): Json[] {
  const s = deref<Json>(doc, schema);
  if (!isObject(s) || seen.has(s)) return [];
  seen.add(s);
  const out: Json[] = s.items !== undefined ? [s.items] : [];
  for (const k of BRANCHES)
    for (const b of (Array.isArray(s[k]) ? s[k] : []) as Json[]) out.push(...itemSchemas(doc, b, seen));
  return out;
}

/** Paths (as tokens) of object members in `value` that no applicable subschema declares. */
export function undeclaredPaths(
  doc: object,
  schema: Json,
  value: Json,
  at: (string | number)[] = [],
): (string | number)[][] {
  if (Array.isArray(value)) {
    const items = itemSchemas(doc, schema);
    if (items.length === 0) return [];
    return value.flatMap((v, i) => items.flatMap((it) => undeclaredPaths(doc, it, v, [...at, i])));
  }
  if (!isObject(value)) return [];
  const d = declared(doc, schema);
  const problems: (string | number)[][] = [];
  for (const [key, member] of Object.entries(value)) {
    if (!d.properties.has(key) && !d.open) {
      problems.push([...at, key]);
      continue;
    }
    // A member must be explained by at least one declaring subschema.
    const subs = d.properties.get(key) ?? d.additional;
    const results = subs.map((sub) => undeclaredPaths(doc, sub, member, [...at, key]));
    if (results.length > 0 && results.every((r) => r.length > 0)) problems.push(...results[0]!);
  }
  return problems;
}

/** `$.amount.vat`, `$.items[0].name`: a path inside an example value. */
export const valuePath = (tokens: readonly (string | number)[]) =>
  `$${tokens.map((t) => (typeof t === 'number' ? `[${t}]` : `.${t}`)).join('')}`;

/** undeclaredPaths as `$.a.b` strings. */
export function undeclaredMembers(doc: object, schema: Json, value: Json): string[] {
  return undeclaredPaths(doc, schema, value).map(valuePath);
}

// ---------------------------------------------------------------------------------------------
// Every example of a document

export interface ExampleCase {
  /** e.g. `capturePayment request application/json example "fullCapture"` */
  name: string;
  /** where the schema is (a `#/…` pointer into the bundle) */
  schemaPointer: string;
  /** where the example value lives in the bundle (after following the example's `$ref`) */
  at: string[];
  value: Json;
}

/**
 * Every example with its schema: those of the parameters, request bodies, responses and response
 * headers of every operation (paths and webhooks), and the `examples`/`example` of every schema
 * wherever it lives. A shared example component is listed once per use.
 */
export function exampleCases(doc: JsonObject): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const at = (pointer: string): [JsonObject, string[]] => {
    const { node, pointer: where } = locate<JsonObject>(doc, pointer);
    return [node, parsePointer(where)];
  };
  /** `example` and `examples` of a media type, parameter or header whose schema is at schemaTokens. */
  const fromContainer = (container: JsonObject, tokens: string[], schemaTokens: string[], label: string) => {
    if (container.schema === undefined) return;
    const schemaPointer = toPointer(schemaTokens);
    if (container.example !== undefined)
      cases.push({ name: `${label} (example)`, schemaPointer, at: [...tokens, 'example'], value: container.example });
    for (const [key, ex] of Object.entries(isObject(container.examples) ? container.examples : {})) {
      const { node, tokens: where } = resolve<JsonObject>(doc, ex, [...tokens, 'examples', key]);
      if (isObject(node) && 'value' in node)
        cases.push({ name: `${label} example "${key}"`, schemaPointer, at: [...where!, 'value'], value: node.value });
    }
  };
  const content = (c: unknown, tokens: string[], label: string) => {
    for (const [mediaType, media] of Object.entries(isObject(c) ? c : {})) {
      if (isObject(media))
        fromContainer(media, [...tokens, mediaType], [...tokens, mediaType, 'schema'], `${label} ${mediaType}`);
    }
  };
  for (const op of operations(doc)) {
    const label = String(op.operation.operationId ?? `${op.method.toUpperCase()} ${op.key}`);
    const itemTokens = op.tokens.slice(0, -1);
    const params = [
      ...(op.pathItem.parameters ?? []).map((_p, i) => at(toPointer([...itemTokens, 'parameters', i]))),
      ...(op.operation.parameters ?? []).map((_p, i) => at(toPointer([...op.tokens, 'parameters', i]))),
    ];
    for (const [param, tokens] of params)
      fromContainer(param, tokens, [...tokens, 'schema'], `${label} parameter ${String(param.name)}`);
    if (op.operation.requestBody) {
      const [body, tokens] = at(toPointer([...op.tokens, 'requestBody']));
      content(body.content, [...tokens, 'content'], `${label} request`);
    }
    for (const status of Object.keys(op.operation.responses ?? {})) {
      const [res, tokens] = at(toPointer([...op.tokens, 'responses', status]));
      content(res.content, [...tokens, 'content'], `${label} ${status} response`);
      for (const name of Object.keys(isObject(res.headers) ? res.headers : {})) {
        const [h, hTokens] = at(toPointer([...tokens, 'headers', name]));
        fromContainer(h, hTokens, [...hTokens, 'schema'], `${label} ${status} header ${name}`);
      }
    }
  }
  // Schema-level examples, where each schema lives (a shared schema once).
  walkSchemas(doc, (schema, tokens) => {
    const where = tokens.map(String);
    const label = `schema ${toPointer(where)}`;
    if (Array.isArray(schema.examples)) {
      schema.examples.forEach((value, i) =>
        cases.push({
          name: `${label} example ${i}`,
          schemaPointer: toPointer(where),
          at: [...where, 'examples', String(i)],
          value,
        }),
      );
    }
    if (schema.example !== undefined)
      cases.push({
        name: `${label} (example)`,
        schemaPointer: toPointer(where),
        at: [...where, 'example'],
        value: schema.example,
      });
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Findings, for the lint

export type ExampleRule = 'example-invalid' | 'example-undeclared-property';

export interface ExampleFinding {
  rule: ExampleRule;
  case: ExampleCase;
  /** where the offending member is inside the example value */
  path: (string | number)[];
  /** e.g. `must be integer` (invalid) or `is not declared` (undeclared) */
  detail: string;
}

/**
 * The findings of every example: per example, one `example-undeclared-property` per undeclared
 * member and one `example-invalid` per member that fails validation (its messages joined). A
 * schema that itself forbids the member (additionalProperties: false) is reported as undeclared
 * only, once.
 */
export function checkExamples(
  doc: JsonObject,
  validator: SchemaValidator = createSchemaValidator(doc),
  cases = exampleCases(doc),
): ExampleFinding[] {
  const findings: ExampleFinding[] = [];
  for (const c of cases) {
    const undeclared = undeclaredPaths(doc, { $ref: c.schemaPointer }, c.value);
    const undeclaredKeys = new Set(undeclared.map(valuePath));
    for (const path of undeclared)
      findings.push({ rule: 'example-undeclared-property', case: c, path, detail: 'is not declared' });
    const byPath = new Map<string, { path: (string | number)[]; messages: string[] }>();
    for (const e of validator.validate(c.schemaPointer, c.value)) {
      const path = instanceTokens(c.value, e.instancePath);
      const extra =
        (e.params as { additionalProperty?: string; unevaluatedProperty?: string }).additionalProperty ??
        (e.params as { unevaluatedProperty?: string }).unevaluatedProperty;
      if (extra !== undefined) {
        path.push(extra);
        if (undeclaredKeys.has(valuePath(path))) continue;
      }
      const key = valuePath(path);
      const entry = byPath.get(key) ?? byPath.set(key, { path, messages: [] }).get(key)!;
      const message = describeError(e);
      if (!entry.messages.includes(message)) entry.messages.push(message);
    }
    for (const { path, messages } of byPath.values())
      findings.push({ rule: 'example-invalid', case: c, path, detail: messages.join('; ') });
  }
  return findings;
}

/** Ajv's instancePath as tokens (array indices as numbers, as in the value). */
function instanceTokens(value: Json, instancePath: string): (string | number)[] {
  const out: (string | number)[] = [];
  let node = value;
  for (const token of instancePath === '' ? [] : parsePointer(instancePath)) {
    const key = Array.isArray(node) ? Number(token) : token;
    out.push(key);
    node = isObject(node) || Array.isArray(node) ? (node as Record<string | number, Json>)[key] : undefined;
  }
  return out;
}

function describeError(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues))
    return `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties')
    return 'is not allowed by the schema';
  return e.message ?? e.keyword;
}
