// Requests drawn from the contract's request schemas, for property-based tests against the sandbox.
// Each operation's parameters and body make one JSON Schema (a request: `path`, `query`, `header`,
// `body`), kept in a copy of the bundle so that its `$ref`s resolve. json-schema-faker draws a
// request from it (seeded), a mutation may break it, and @hyperjump/json-schema (a 2020-12 validator
// independent of the sandbox's Ajv, in OpenAPI 3.1's dialect, where `format` is an annotation) says
// whether the request is valid and, if not, which fields are wrong. json-schema-faker 0.6 is installed
// as json-schema-faker-2020: Prism's 0.5 must stay the one hoisted copy, or Prism's CLI and HTTP
// packages get an instance each and its options (fillProperties) stop reaching the generator. Parameters are judged as they
// travel: their text read back as the schema's type, the way a server reads them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompiledSchema } from '@hyperjump/json-schema/experimental';
import type { OutputUnit } from '@hyperjump/json-schema/openapi-3-1';
import { generate } from 'json-schema-faker-2020';
import type { BusinessRule } from '../../packages/verify/src/contract.js';
import { judged, schemaCompiler } from '../../packages/verify/src/validator.js';
import {
  deref,
  isObject,
  type JsonObject,
  operations,
  parametersOf,
  schemaTypes,
  unescapeToken,
} from '../../tooling/openapi/walker.js';

export type { BusinessRule };

export type ParameterLocation = 'path' | 'query' | 'header';

export interface FuzzParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: JsonObject;
  example?: unknown;
}

export interface FuzzOperation {
  id: string;
  method: string;
  /** The path template, `/payments/{id}/captures`. */
  path: string;
  parameters: FuzzParameter[];
  mediaType: string | undefined;
  bodyRequired: boolean;
  /** The operation's business rules and the document's. */
  rules: BusinessRule[];
}

export interface FuzzRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

export interface Verdict {
  valid: boolean;
  /** The fields the validator found wrong, named as the sandbox's `errors` name them (`amount.value`, `Page`). */
  fields: string[];
}

const rulesAt = (node: unknown): BusinessRule[] => {
  const extension = isObject(node) ? node['x-business-rules'] : undefined;
  return isObject(extension) && Array.isArray(extension.rules) ? (extension.rules as BusinessRule[]) : [];
};

/** The operations of the contract with their parameters, body and business rules. */
export function fuzzOperations(document: JsonObject): FuzzOperation[] {
  const everywhere = rulesAt(document);
  return operations(document, ['paths']).map((entry) => {
    const body = entry.operation.requestBody ? deref<JsonObject>(document, entry.operation.requestBody) : undefined;
    const [mediaType] = Object.keys(isObject(body?.content) ? body.content : {});
    return {
      id: String(entry.operation.operationId),
      method: entry.method.toUpperCase(),
      path: entry.key,
      parameters: parametersOf(document, entry).map((p) => ({
        name: p.name,
        in: p.in as ParameterLocation,
        required: p.required === true,
        schema: (p.schema ?? {}) as JsonObject,
        ...(p.example !== undefined ? { example: p.example } : {}),
      })),
      mediaType,
      bodyRequired: body?.required === true,
      rules: [...rulesAt(entry.operation), ...everywhere],
    };
  });
}

/** The JSON Schema of a whole request of `operation` (its `$ref`s point into the bundle). */
function requestSchema(document: JsonObject, operation: FuzzOperation): JsonObject {
  const group = (location: ParameterLocation): JsonObject => {
    const own = operation.parameters.filter((p) => p.in === location);
    return {
      type: 'object',
      properties: Object.fromEntries(own.map((p) => [p.name, p.schema])),
      required: own.filter((p) => p.required).map((p) => p.name),
      // Headers other than the declared ones are any client's; unknown query parameters are refused.
      ...(location === 'header' ? {} : { additionalProperties: false }),
    };
  };
  const entry = operations(document, ['paths']).find((e) => e.operation.operationId === operation.id)!;
  const body = entry.operation.requestBody ? deref<JsonObject>(document, entry.operation.requestBody) : undefined;
  const media = operation.mediaType && isObject(body?.content) ? (body.content[operation.mediaType] as JsonObject) : {};
  return {
    type: 'object',
    required: ['path', 'query', 'header', ...(operation.bodyRequired ? ['body'] : [])],
    properties: {
      path: group('path'),
      query: group('query'),
      header: group('header'),
      ...(media.schema ? { body: media.schema } : {}),
    },
  };
}

const schemaName = (operationId: string) => `FuzzRequest_${operationId}`;

/** Reads a parameter's text as its schema's type, as a server does; text that is no such value stays text. */
function readParameter(document: JsonObject, schema: JsonObject, text: string): unknown {
  const types = schemaTypes(deref(document, schema));
  if (
    (types.includes('integer') || types.includes('number')) &&
    /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)
  )
    return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A value as a parameter's text: a scalar as itself, anything else as JSON. */
const parameterText = (value: unknown) =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null
      ? JSON.stringify(value)
      : String(value);

/** Header text a client can send: printable ASCII without spaces (fetch refuses other bytes and trims spaces). */
const headerText = (text: string) =>
  text.replace(/[^\x21-\x7e]/g, (c) => String.fromCharCode(0x21 + ((c.codePointAt(0) ?? 0) % 94)));

/** A path segment the URL parser keeps as it is: `.` and `..` would be resolved away. */
const pathText = (text: string) => (text === '.' || text === '..' ? `${text}x` : text);

export interface RequestFuzzer {
  operations: FuzzOperation[];
  /** A request of `operation` drawn from its schema with `seed`; parameters already as they travel. */
  draw(operation: FuzzOperation, seed: number): Promise<FuzzRequest>;
  /** Parameters as text a client can send, read back as their schemas' types. */
  asSent(operation: FuzzOperation, request: FuzzRequest): FuzzRequest;
  /** The independent validator's verdict on a request (parameters as sent). */
  judge(operation: FuzzOperation, request: FuzzRequest): Verdict;
  /** The request on the wire: path and query, headers, body text. */
  wire(
    operation: FuzzOperation,
    request: FuzzRequest,
  ): { target: string; headers: Record<string, string>; body?: string };
  close(): void;
}

/** A fuzzer for `document` (a bundle): writes a copy with the request schemas to a temporary `*.openapi.json`. */
export async function requestFuzzer(document: JsonObject): Promise<RequestFuzzer> {
  const fuzzOps = fuzzOperations(document);
  const schemas = Object.fromEntries(fuzzOps.map((op) => [schemaName(op.id), requestSchema(document, op)]));
  const components = (document.components ?? {}) as JsonObject;
  const copy = {
    ...document,
    components: { ...components, schemas: { ...(components.schemas as JsonObject), ...schemas } },
  };
  const dir = mkdtempSync(join(tmpdir(), 'request-fuzz-'));
  // @hyperjump/json-schema reads a file named *.openapi.json as an OpenAPI document.
  const file = join(dir, 'contract.openapi.json');
  writeFileSync(file, JSON.stringify(copy));
  const compiler = schemaCompiler(pathToFileURL(file).href);
  const compiled = new Map<string, CompiledSchema>();
  for (const op of fuzzOps) compiled.set(op.id, await compiler(`#/components/schemas/${schemaName(op.id)}`));

  const asSent = (operation: FuzzOperation, request: FuzzRequest): FuzzRequest => {
    const sent: FuzzRequest = {
      path: {},
      query: {},
      header: {},
      ...(request.body !== undefined ? { body: request.body } : {}),
    };
    for (const location of ['path', 'query', 'header'] as const) {
      for (const [name, value] of Object.entries(request[location] ?? {})) {
        if (value === undefined) continue;
        let text = parameterText(value);
        if (location === 'header') text = headerText(text);
        if (location === 'path') text = pathText(text);
        const declared = operation.parameters.find((p) => p.in === location && p.name === name);
        sent[location][name] = declared ? readParameter(document, declared.schema, text) : text;
      }
    }
    return sent;
  };

  return {
    operations: fuzzOps,
    async draw(operation, seed) {
      const drawn = (await generate({ ...schemas[schemaName(operation.id)], components } as never, {
        seed,
        optionalsProbability: 0.5,
        maxDepth: 6,
      })) as FuzzRequest;
      return asSent(operation, {
        ...drawn,
        path: drawn.path ?? {},
        query: drawn.query ?? {},
        header: drawn.header ?? {},
      });
    },
    asSent,
    judge(operation, request) {
      const output = judged(compiled.get(operation.id)!, request);
      if (output.valid) return { valid: true, fields: [] };
      const errors: OutputUnit[] = output.errors ?? [];
      return { valid: false, fields: [...new Set(errors.map(fieldOf))] };
    },
    wire(operation, request) {
      let target = operation.path;
      for (const p of operation.parameters.filter((p) => p.in === 'path'))
        target = target.replace(`{${p.name}}`, encodeURIComponent(parameterText(request.path[p.name] ?? '')));
      const search = new URLSearchParams(
        Object.entries(request.query).map(([k, v]) => [k, parameterText(v)] as [string, string]),
      ).toString();
      const headers = Object.fromEntries(Object.entries(request.header).map(([k, v]) => [k, parameterText(v)]));
      const body =
        request.body === undefined
          ? undefined
          : operation.mediaType === 'application/x-www-form-urlencoded' && isObject(request.body)
            ? new URLSearchParams(Object.entries(request.body).map(([k, v]) => [k, parameterText(v)])).toString()
            : JSON.stringify(request.body);
      return {
        target: search ? `${target}?${search}` : target,
        headers: {
          ...headers,
          ...(body !== undefined ? { 'content-type': operation.mediaType ?? 'application/json' } : {}),
        },
        ...(body !== undefined ? { body } : {}),
      };
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A validator's error location as the sandbox names the field: `#/body/order/items/0/name` → `order.items[0].name`. */
function fieldOf(error: OutputUnit): string {
  const tokens = error.instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map(unescapeToken);
  const [location, ...rest] = tokens;
  if (location === undefined) return '(request)';
  if (location !== 'body') return rest[0] ?? `(${location})`;
  const path = rest.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return path || '(body)';
}

/** Whether a field the sandbox named and a field the validator found are the same, or one holds the other. */
export function sameField(named: string, found: string): boolean {
  const norm = (f: string) => f.replace(/\[(\d+)\]/g, '.$1');
  const [a, b] = [norm(named), norm(found)];
  if (a === b) return true;
  if (b === '(body)' || b === '(request)' || a === '(body)') return true;
  if (/^\((path|query|header)\)$/.test(b)) return true;
  return a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** Whether a field a 400 named is one a business rule names. */
export function ruleNames(rule: BusinessRule, named: string): boolean {
  if (rule.field === '*') return true;
  if (rule.field === 'metadata') return named === 'metadata' || named.endsWith('.metadata');
  return rule.field === named;
}

// ---------------------------------------------------------------------------------------------
// Mutations: one change to a drawn request, chosen by plain numbers so that fast-check can shrink it.

export type MutationKind = 'remove' | 'retype' | 'overlong' | 'word' | 'unknownQuery' | 'emptyPath' | 'wholeBody';
export const MUTATION_KINDS: readonly MutationKind[] = [
  'remove',
  'retype',
  'overlong',
  'word',
  'unknownQuery',
  'emptyPath',
  'wholeBody',
];

export interface Mutation {
  kind: MutationKind;
  /** Which place of the request, modulo the places there are. */
  pick: number;
  /** The value put there (retype, wholeBody). */
  value: unknown;
}

type Place = { location: 'body' | ParameterLocation; path: string[] };

function placesOf(request: FuzzRequest, strings: boolean): Place[] {
  const places: Place[] = [];
  const walk = (v: unknown, path: string[]) => {
    if (path.length > 0 && (!strings || typeof v === 'string')) places.push({ location: 'body', path });
    if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) walk(child, [...path, k]);
  };
  walk(request.body, []);
  for (const location of ['path', 'query', 'header'] as const)
    for (const name of Object.keys(request[location])) places.push({ location, path: [name] });
  return places;
}

function setAt(request: FuzzRequest, place: Place, value: unknown, remove = false): FuzzRequest {
  const copy = structuredClone(request);
  const root = place.location === 'body' ? copy.body : copy[place.location];
  const parent = place.path.slice(0, -1).reduce<any>((node, k) => node?.[k], root);
  const last = place.path.at(-1)!;
  if (parent === undefined || parent === null || typeof parent !== 'object') return copy;
  if (remove && Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (remove) delete parent[last];
  else parent[last] = place.location === 'body' ? value : parameterText(value);
  return copy;
}

/** The request with one mutation applied (it may stay valid: the validator decides). */
export function mutate(request: FuzzRequest, mutation: Mutation): FuzzRequest {
  const choose = (places: Place[]) => places[mutation.pick % places.length];
  switch (mutation.kind) {
    case 'remove': {
      const place = choose(placesOf(request, false));
      return place ? setAt(request, place, undefined, true) : request;
    }
    case 'retype': {
      const place = choose(placesOf(request, false));
      return place ? setAt(request, place, mutation.value) : request;
    }
    case 'overlong': {
      const place = choose(placesOf(request, true));
      return place ? setAt(request, place, 'x'.repeat(place.location === 'body' ? 5000 : 300)) : request;
    }
    case 'word': {
      const place = choose(placesOf(request, true));
      return place ? setAt(request, place, `NOT_${mutation.pick % 1000}`) : request;
    }
    case 'unknownQuery':
      return { ...request, query: { ...request.query, [`unknown${mutation.pick % 10}`]: 'x' } };
    case 'emptyPath': {
      const [name] = Object.keys(request.path);
      return name === undefined ? request : { ...request, path: { ...request.path, [name]: '' } };
    }
    case 'wholeBody':
      return request.body === undefined ? request : { ...request, body: mutation.value };
  }
}
