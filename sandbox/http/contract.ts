// The contract as the sandbox runs it: every operation of the bundle (generated/openapi.json) with its
// route, security, parameters, body and responses, and validators compiled from the bundle's own
// schemas (JSON Schema 2020-12 with Ajv, `if`/`then` included). Nothing here repeats a path or a
// schema: a new operation in the contract is a new route here, and needs only its handler.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { OperationId } from '../../generated/operations.js';
import {
  deref,
  isObject,
  locate,
  operations,
  parsePointer,
  parametersOf,
  propertiesOf,
  securityOf,
  toPointer,
  type HttpMethod,
  type JsonObject,
  type OpenAPI3,
} from '../../tooling/openapi/walker.js';
import { codeTables, type DomainContext, type ResponseCode, type SimulationCode } from '../domain/context.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

export const BUNDLE_PATH = new URL('../../generated/openapi.json', import.meta.url);
const BUNDLE_ID = 'https://sandbox.invalid/openapi.json';

export type SecurityScheme = 'basicAuth' | 'bearerAuth' | 'apiKeyAuth';

export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
}

export interface ResponseInfo {
  /** The body's JSON media type (application/json, or application/problem+json), or undefined without a body. */
  mediaType: string | undefined;
  /** JSON pointer of that media type's schema, or undefined for a response without a body. */
  schemaPointer: string | undefined;
  /** Header names the contract declares for this response (lower case). */
  headers: string[];
  /** How a problem body of this status is shaped, read off its schema. */
  shape: BodyShape;
}

/**
 * The shapes of error bodies in the contract: payment problems (`status` an integer, `traceId`),
 * plan problems (`status` a string, `instance`), OAuth 2.0 token errors (`error`), and the
 * `{responseCode, responseDescription}` of a payment operation's 500.
 */
export type BodyShape = 'problem' | 'planProblem' | 'oauthError' | 'resultCode' | 'other';

export interface OperationContract<Id extends string = OperationId> {
  id: Id;
  method: HttpMethod;
  /** The contract's path template, `/payments/{id}/captures`. */
  path: string;
  /** Security alternatives in the contract's order (each one scheme in this contract). */
  security: SecurityScheme[];
  parameters: ParameterInfo[];
  /** The request body's media type, or undefined without one. */
  requestMediaType: string | undefined;
  requestBodyRequired: boolean;
  /** Accepts the Idempotency-Key header. */
  idempotent: boolean;
  responses: ReadonlyMap<number, ResponseInfo>;
  /** Validates the body (JSON parsed, or the form as an object): undefined when valid, else each offending field. */
  validateBody(body: unknown): FieldErrors | undefined;
  /** Validates and coerces path, query and header parameters (strings in, typed values out). */
  validateParameters(input: { path: Record<string, string>; query: Record<string, unknown>; headers: Record<string, unknown> }): {
    values: { path: Record<string, unknown>; query: Record<string, unknown>; headers: Record<string, unknown> };
    /** undefined when valid */
    errors: FieldErrors | undefined;
  };
}

/** Field → messages, the `errors` map of the contract's validation problems. */
export type FieldErrors = Record<string, string[]>;

/** An OpenAPI document as the sandbox serves it: the merchant contract, or the admin API's document. */
export interface ApiDocument<Id extends string = string> {
  document: OpenAPI3 & JsonObject;
  operations: ReadonlyMap<Id, OperationContract<Id>>;
  /** The operation a request path (after the root) and method address, with its path parameters. */
  match(method: string, path: string): { operation: OperationContract<Id>; params: Record<string, string> } | undefined;
  /** Everything wrong with a response of an operation (empty when it conforms). */
  checkResponse(operationId: Id, status: number, headers: Record<string, string>, body: string): string[];
}

export interface Contract extends ApiDocument<OperationId> {
  /** The tables the domain needs: response codes and simulation codes. */
  tables: Pick<DomainContext, 'codes' | 'simulations'>;
}

// ---------------------------------------------------------------------------------------------

/** Reads the bundle and prepares every operation. Throws naming the file when it is missing or broken. */
export function loadContract(path: URL | string = BUNDLE_PATH): Contract {
  let document: OpenAPI3 & JsonObject;
  try {
    document = JSON.parse(readFileSync(path, 'utf8')) as OpenAPI3 & JsonObject;
  } catch (err) {
    throw new Error(`cannot read the contract bundle ${String(path)}: ${(err as Error).message} (run \`npm run generate\`)`);
  }
  return createContract(document);
}

export function createContract(document: OpenAPI3 & JsonObject): Contract {
  return { ...createApiDocument<OperationId>(document), tables: readTables(document) };
}

/** A one-file OpenAPI document in YAML or JSON (the admin API's), prepared like the contract. */
export function loadApiDocument<Id extends string = string>(path: URL | string): ApiDocument<Id> {
  let document: OpenAPI3 & JsonObject;
  try {
    document = parseYaml(readFileSync(path, 'utf8')) as OpenAPI3 & JsonObject;
  } catch (err) {
    throw new Error(`cannot read the OpenAPI document ${String(path)}: ${(err as Error).message}`);
  }
  return createApiDocument<Id>(document);
}

/** Every operation of `document` with its validators, its router and its response check. */
export function createApiDocument<Id extends string>(document: OpenAPI3 & JsonObject): ApiDocument<Id> {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  const coercing = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, coerceTypes: true });
  for (const a of [ajv, coercing]) {
    addFormats(a);
    a.addSchema(document as object, BUNDLE_ID);
  }
  const compiled = new Map<string, ValidateFunction>();
  /** Compiled on first use: a test that calls three operations compiles three. */
  const validatorAt = (pointer: string) => {
    let fn = compiled.get(pointer);
    if (!fn) compiled.set(pointer, (fn = ajv.compile({ $ref: `${BUNDLE_ID}${pointer}` })));
    return fn;
  };

  const byId = new Map<Id, OperationContract<Id>>();
  const matchers: Array<{ method: string; pattern: RegExp; names: string[]; operation: OperationContract<Id> }> = [];
  for (const entry of operations(document, ['paths'])) {
    const op = entry.operation;
    const id = String(op.operationId) as Id;
    const parameters = parametersOf(document, entry).map((p) => ({ name: p.name, in: p.in as ParameterInfo['in'], required: p.required === true, schema: p.schema }));
    const body = op.requestBody ? (derefObject(document, op.requestBody) as JsonObject) : undefined;
    const content = body && isObject(body.content) ? body.content : {};
    const requestMediaType = Object.keys(content)[0];
    // Where the schemas really live (through the $refs of shared request bodies and responses), for Ajv.
    const bodyPointer = requestMediaType ? locate(document, toPointer([...entry.tokens, 'requestBody', 'content', requestMediaType, 'schema'])).pointer : undefined;
    const responses = new Map<number, ResponseInfo>();
    for (const [status, raw] of Object.entries(op.responses ?? {})) {
      const response = derefObject(document, raw);
      const content = isObject(response.content) ? response.content : {};
      const mediaType = JSON_MEDIA_TYPES.find((m) => isObject(content[m]));
      const json = mediaType ? content[mediaType] : undefined;
      const schema = isObject(json) ? json.schema : undefined;
      responses.set(Number(status), {
        mediaType,
        schemaPointer: schema && mediaType ? locate(document, toPointer([...entry.tokens, 'responses', status, 'content', mediaType, 'schema'])).pointer : undefined,
        headers: Object.keys(isObject(response.headers) ? response.headers : {}).map((h) => h.toLowerCase()),
        shape: shapeOf(document, schema),
      });
    }

    const parameterSchema = (location: ParameterInfo['in']) => {
      const ps = parameters.filter((p) => p.in === location);
      return {
        type: 'object',
        properties: Object.fromEntries(ps.map((p) => [location === 'header' ? p.name.toLowerCase() : p.name, p.schema ?? {}])),
        required: ps.filter((p) => p.required).map((p) => (location === 'header' ? p.name.toLowerCase() : p.name)),
        // Unknown query parameters are refused (a misspelt filter would otherwise be silently ignored);
        // requests carry many headers the contract does not name.
        ...(location === 'query' ? { additionalProperties: false } : {}),
      };
    };
    const parameterValidators = (['path', 'query', 'header'] as const).map((location) => {
      // The parameter schemas are $refs into the bundle: resolve them against it.
      const schema = parameterSchema(location);
      return [location, coercing.compile({ ...schema, properties: Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, rebase(s)])) })] as const;
    });
    const headerNames = new Map(parameters.filter((p) => p.in === 'header').map((p) => [p.name.toLowerCase(), p.name]));

    const info: OperationContract<Id> = {
      id,
      method: entry.method,
      path: entry.key,
      security: securityOf(document, entry).flatMap((requirement) => Object.keys(requirement)) as SecurityScheme[],
      parameters: parameters.map(({ name, in: where, required }) => ({ name, in: where, required })),
      requestMediaType,
      requestBodyRequired: body?.required === true,
      idempotent: headerNames.has('idempotency-key'),
      responses,
      validateBody: (value) => {
        if (!bodyPointer) return undefined;
        const validate = validatorAt(bodyPointer);
        return validate(value) ? undefined : fieldErrors(validate.errors ?? [], (path) => path);
      },
      validateParameters: (input) => {
        // Copies: Ajv coerces in place (query strings to integers), and the request's objects are fastify's.
        const values = { path: { ...input.path }, query: { ...input.query }, headers: {} as Record<string, unknown> };
        for (const name of headerNames.keys()) if (input.headers[name] !== undefined) values.headers[name] = input.headers[name];
        let errors: FieldErrors | undefined;
        for (const [location, validate] of parameterValidators) {
          const target = location === 'path' ? values.path : location === 'query' ? values.query : values.headers;
          if (!validate(target)) errors = { ...errors, ...fieldErrors(validate.errors ?? [], (path) => (location === 'header' ? (headerNames.get(path) ?? path) : path)) };
        }
        return { values, errors };
      },
    };
    byId.set(id, info);
    const names: string[] = [];
    const pattern = new RegExp(
      `^${entry.key.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`,
    );
    matchers.push({ method: entry.method, pattern, names, operation: info });
  }

  return {
    document,
    operations: byId,
    match(method, path) {
      const lower = method.toLowerCase();
      // Static segments win over parameters (`/payments/refunds` is not `/payments/{id}` …): the
      // most specific template first, as routers do.
      const hits = matchers
        .filter((m) => m.method === lower)
        .map((m) => ({ m, groups: m.pattern.exec(path) }))
        .filter((h): h is { m: (typeof matchers)[number]; groups: RegExpExecArray } => h.groups !== null)
        .sort((a, b) => a.m.names.length - b.m.names.length);
      const hit = hits[0];
      if (!hit) return undefined;
      return { operation: hit.m.operation, params: Object.fromEntries(hit.m.names.map((n, i) => [n, decodeURIComponent(hit.groups[i + 1]!)])) };
    },
    checkResponse(operationId, status, headers, body) {
      const op = byId.get(operationId);
      if (!op) return [`${operationId} is not an operation of the contract`];
      const response = op.responses.get(status);
      if (!response) return [`${operationId} answered ${status}, which the contract does not declare (it declares ${[...op.responses.keys()].join(', ')})`];
      const problems: string[] = [];
      for (const name of Object.keys(headers).map((h) => h.toLowerCase())) {
        if (!STANDARD_HEADERS.has(name) && !name.startsWith('access-control-') && !response.headers.includes(name)) {
          problems.push(`${operationId} ${status}: header ${name} is not declared for this response`);
        }
      }
      if (!response.schemaPointer) {
        if (body !== '') problems.push(`${operationId} ${status}: the contract declares no body, got ${body.slice(0, 80)}`);
        return problems;
      }
      const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
      if (contentType.split(';')[0]!.trim().toLowerCase() !== response.mediaType) problems.push(`${operationId} ${status}: content-type ${contentType || '(none)'}, not ${response.mediaType}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return [...problems, `${operationId} ${status}: the body is not JSON: ${body.slice(0, 80)}`];
      }
      const validate = validatorAt(response.schemaPointer);
      if (!validate(parsed)) {
        for (const e of validate.errors ?? []) problems.push(`${operationId} ${status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
      }
      return problems;
    },
  };

  /** A parameter schema (often a `$ref` into the bundle) made resolvable from a schema compiled on its own. */
  function rebase(schema: unknown): unknown {
    return JSON.parse(JSON.stringify(schema ?? {}), (key, value) => (key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${BUNDLE_ID}${value}` : value));
  }
}

/** The media types of JSON bodies, in the order a response's content is searched. */
const JSON_MEDIA_TYPES = ['application/json', 'application/problem+json'];

/** Headers of HTTP itself, which the contract does not list. */
const STANDARD_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'vary']);

function derefObject(document: JsonObject, node: unknown): JsonObject {
  const target = deref<unknown>(document, node);
  if (!isObject(target)) throw new Error(`not an object: ${JSON.stringify(node)}`);
  return target;
}

function shapeOf(document: JsonObject, schema: unknown): BodyShape {
  if (schema === undefined) return 'other';
  const properties = propertiesOf(document, schema);
  if (properties.has('error')) return 'oauthError';
  if (properties.has('responseCode') && !properties.has('payId')) return 'resultCode';
  const status = properties.get('status');
  if (status === undefined || !properties.has('title')) return 'other';
  const statusSchema = derefObject(document, status);
  return statusSchema.type === 'string' ? 'planProblem' : 'problem';
}

/** Ajv errors as the contract's `errors` map: `amount.currency`, `urls.webhook`, `order.items[0].taxRate`. */
export function fieldErrors(errors: ErrorObject[], name: (path: string) => string): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    // `if` only says that a `then` failed; the `then` errors are reported themselves.
    if (e.keyword === 'if') continue;
    const segments = e.instancePath === '' ? [] : parsePointer(e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      segments.push(String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      segments.push(String((e.params as { additionalProperty: string }).additionalProperty));
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    }
    const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
    const field = name(path) || '(body)';
    const list = (out[field] ??= []);
    if (!list.includes(message) && list.length < 50) list.push(message);
  }
  return out;
}

/** `x-response-codes` (on ResultCode) and `x-simulation-codes` (on SimulationMode), checked. */
function readTables(document: JsonObject): Pick<DomainContext, 'codes' | 'simulations'> {
  const schemas = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  const resultCode = schemas.ResultCode;
  const simulationMode = schemas.SimulationMode;
  const table = (schema: unknown, extension: string) => (isObject(schema) && isObject(schema[extension]) ? (schema[extension] as JsonObject).codes : undefined);
  const responseCodes = table(resultCode, 'x-response-codes') as Record<string, ResponseCode> | undefined;
  const simulationCodes = table(simulationMode, 'x-simulation-codes') as SimulationCode[] | undefined;
  if (!responseCodes || !simulationCodes) throw new Error('the contract lacks x-response-codes (ResultCode) or x-simulation-codes (SimulationMode)');
  return codeTables(responseCodes, simulationCodes);
}
