// An OpenAPI document as the sandbox serves it (the merchant contract, or the admin API's document):
// every operation with its path, security, parameters, body and responses, and validators compiled
// from the document's own schemas (JSON Schema 2020-12 with Ajv, `if`/`then` included). Nothing
// here repeats a path or a schema: a new operation in the document is a new route, and needs only
// its handler.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { challengeOf, REALM } from '../../tooling/openapi/challenges.js';
import {
  branchesOf,
  deref,
  type HttpMethod,
  isObject,
  type JsonObject,
  locate,
  type OpenAPI3,
  type OperationEntry,
  operations,
  parametersOf,
  parsePointer,
  propertiesOf,
  securityOf,
  toPointer,
} from '../../tooling/openapi/walker.js';
import { type FieldErrors, fieldErrors, mergeFieldErrors } from './field-errors.js';

export { type FieldErrors, mergeFieldErrors, noFieldErrors } from './field-errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

/** The `$id` the document is registered under in Ajv: schemas refer into it as `${DOCUMENT_ID}#/…`. */
const DOCUMENT_ID = 'https://sandbox.invalid/openapi.json';

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
  /** Those of them it declares `required: true` (lower case). */
  requiredHeaders: string[];
  /**
   * JSON pointer of the schema the sandbox builds its own bodies of this status to: the first
   * branch of an `anyOf`/`oneOf` (the contract lists the current shape first: the refund's 400 is
   * the problem body of its 2.4.0 description, not the older `field`/`error`), else `schemaPointer`.
   */
  builtPointer: string | undefined;
  /** How a problem body of this status is shaped, read off the schema at `builtPointer`. */
  shape: BodyShape;
}

/**
 * The shapes of error bodies in the contract: payment problems (`status` an integer, `traceId`),
 * plan problems (`status` a string, `instance`), OAuth 2.0 token errors (`error`), and the
 * `{responseCode, responseDescription}` of a payment operation's 500.
 */
export type BodyShape = 'problem' | 'planProblem' | 'oauthError' | 'resultCode' | 'other';

export interface OperationContract<Id extends string = string> {
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
  /** The `WWW-Authenticate` of its 401: a challenge per HTTP authentication scheme it accepts. */
  challenge: string | undefined;
  responses: ReadonlyMap<number, ResponseInfo>;
  /** Validates the body (JSON parsed, or the form as an object): undefined when valid, else each offending field. */
  validateBody(body: unknown): FieldErrors | undefined;
  /** Validates and coerces path, query and header parameters (strings in, typed values out). */
  validateParameters(input: {
    path: Record<string, string>;
    query: Record<string, unknown>;
    headers: Record<string, unknown>;
  }): {
    values: { path: Record<string, unknown>; query: Record<string, unknown>; headers: Record<string, unknown> };
    /** undefined when valid */
    errors: FieldErrors | undefined;
  };
}

/** An OpenAPI document as the sandbox serves it: the merchant contract, or the admin API's document. */
export interface ApiDocument<Id extends string = string> {
  document: OpenAPI3 & JsonObject;
  operations: ReadonlyMap<Id, OperationContract<Id>>;
  /** The validator of the schema at `pointer` (a JSON pointer into the document), compiled on first use. */
  validator(pointer: string): ValidateFunction;
}

/** How a document's operations are prepared beyond what the document says. */
export interface ApiDocumentOptions {
  /** The realm of each security scheme's 401 challenge, by the scheme's name (default: the contract's REALM). */
  realms?: Readonly<Record<string, string>>;
}

/** Every operation of `document` with its validators, its router and its response check. */
export function createApiDocument<Id extends string>(
  document: OpenAPI3 & JsonObject,
  options: ApiDocumentOptions = {},
): ApiDocument<Id> {
  const schemas = schemaCompilers(document);
  const realmOf = (scheme: string) => options.realms?.[scheme] ?? REALM;
  const byId = new Map<Id, OperationContract<Id>>();
  for (const entry of operations(document, ['paths'])) {
    const contract = operationContract<Id>(document, entry, schemas, realmOf);
    byId.set(contract.id, contract);
  }
  return { document, operations: byId, validator: schemas.validatorAt };
}

/** The document's schemas as Ajv validators. */
interface SchemaCompilers {
  /** The validator of the schema at `pointer` (a JSON pointer into the document), compiled on first use. */
  validatorAt(pointer: string): ValidateFunction;
  /** A schema of its own (parameters gathered into one object), coercing strings to the types it names. */
  compileCoercing(schema: object): ValidateFunction;
}

function schemaCompilers(document: OpenAPI3 & JsonObject): SchemaCompilers {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  const coercing = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, coerceTypes: true });
  for (const a of [ajv, coercing]) {
    addFormats(a);
    a.addSchema(document as object, DOCUMENT_ID);
  }
  const compiled = new Map<string, ValidateFunction>();
  return {
    // Compiled on first use: a test that calls three operations compiles three.
    validatorAt(pointer) {
      let fn = compiled.get(pointer);
      if (!fn) {
        fn = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
        compiled.set(pointer, fn);
      }
      return fn;
    },
    compileCoercing: (schema) => coercing.compile(schema),
  };
}

/** A parameter with its schema, as the document declares it. */
type DeclaredParameter = ParameterInfo & { schema: unknown };

/** One operation of the document as the sandbox serves it. */
function operationContract<Id extends string>(
  document: OpenAPI3 & JsonObject,
  entry: OperationEntry,
  schemas: SchemaCompilers,
  realmOf: (scheme: string) => string,
): OperationContract<Id> {
  const parameters: DeclaredParameter[] = parametersOf(document, entry).map((p) => ({
    name: p.name,
    in: p.in as ParameterInfo['in'],
    required: p.required === true,
    schema: p.schema,
  }));
  const body = entry.operation.requestBody
    ? (derefObject(document, entry.operation.requestBody) as JsonObject)
    : undefined;
  const content = body && isObject(body.content) ? body.content : {};
  const requestMediaType = Object.keys(content)[0];
  // Where the schema really lives (through the $refs of shared request bodies), for Ajv.
  const bodyPointer = requestMediaType
    ? locate(document, toPointer([...entry.tokens, 'requestBody', 'content', requestMediaType, 'schema'])).pointer
    : undefined;
  return {
    id: String(entry.operation.operationId) as Id,
    method: entry.method,
    path: entry.key,
    security: securityOf(document, entry).flatMap((requirement) => Object.keys(requirement)) as SecurityScheme[],
    parameters: parameters.map(({ name, in: where, required }) => ({ name, in: where, required })),
    requestMediaType,
    requestBodyRequired: body?.required === true,
    idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
    challenge: challengeOf(document, entry, realmOf),
    responses: responsesOf(document, entry),
    validateBody: (value) => {
      if (!bodyPointer) return undefined;
      const validate = schemas.validatorAt(bodyPointer);
      return validate(value) ? undefined : fieldErrors(validate.errors ?? [], (path) => path);
    },
    validateParameters: parameterValidation(parameters, schemas),
  };
}

/** The operation's responses by status: media type, schema, headers and the shape of a problem body. */
function responsesOf(document: OpenAPI3 & JsonObject, entry: OperationEntry): Map<number, ResponseInfo> {
  const responses = new Map<number, ResponseInfo>();
  for (const [status, raw] of Object.entries(entry.operation.responses ?? {})) {
    const response = derefObject(document, raw);
    const content = isObject(response.content) ? response.content : {};
    const mediaType = JSON_MEDIA_TYPES.find((m) => isObject(content[m]));
    const json = mediaType ? content[mediaType] : undefined;
    const schema = isObject(json) ? json.schema : undefined;
    // Where the schemas really live (through the $refs of shared responses), for Ajv.
    const schemaPointer =
      schema && mediaType
        ? locate(document, toPointer([...entry.tokens, 'responses', status, 'content', mediaType, 'schema'])).pointer
        : undefined;
    const [built, builtTokens] = schema ? branchesOf(document, schema)[0]! : [undefined, []];
    const builtPointer =
      schemaPointer && locate(document, toPointer([...parsePointer(schemaPointer), ...builtTokens])).pointer;
    const headers = isObject(response.headers) ? response.headers : {};
    responses.set(Number(status), {
      mediaType,
      schemaPointer,
      headers: Object.keys(headers).map((h) => h.toLowerCase()),
      requiredHeaders: Object.entries(headers)
        .filter(([, h]) => deref<JsonObject>(document, h).required === true)
        .map(([name]) => name.toLowerCase()),
      builtPointer,
      shape: shapeOf(document, built),
    });
  }
  return responses;
}

/** Validates and coerces the path, query and header parameters, each location against one object schema. */
function parameterValidation(
  parameters: readonly DeclaredParameter[],
  schemas: SchemaCompilers,
): OperationContract['validateParameters'] {
  // Compiled on first use, as the bodies' validators are: a start compiles none of them.
  const validators = (['path', 'query', 'header'] as const).map((location) => {
    const schema = parameterSchema(parameters, location);
    let compiled: ValidateFunction | undefined;
    return [location, () => (compiled ??= schemas.compileCoercing(schema))] as const;
  });
  const headerNames = new Map(parameters.filter((p) => p.in === 'header').map((p) => [p.name.toLowerCase(), p.name]));
  return (input) => {
    // Copies: Ajv coerces in place (query strings to integers), and the request's objects are fastify's.
    // Without a prototype: the client names the query's keys (`?constructor=1` is an unknown
    // parameter, not Object.prototype.constructor).
    const values = {
      path: bare(input.path),
      query: bare(input.query),
      headers: Object.create(null) as Record<string, unknown>,
    };
    for (const name of headerNames.keys())
      if (input.headers[name] !== undefined) values.headers[name] = input.headers[name];
    let errors: FieldErrors | undefined;
    for (const [location, validator] of validators) {
      const validate = validator();
      const target = location === 'path' ? values.path : location === 'query' ? values.query : values.headers;
      if (!validate(target))
        errors = mergeFieldErrors(
          errors,
          fieldErrors(validate.errors ?? [], (path) =>
            location === 'header' ? (headerNames.get(path) ?? path) : path,
          ),
        );
    }
    return { values, errors };
  };
}

/** The parameters of one location as one object schema (header names in lower case, as Node gives them). */
function parameterSchema(parameters: readonly DeclaredParameter[], location: ParameterInfo['in']): object {
  const here = parameters.filter((p) => p.in === location);
  const nameOf = (p: DeclaredParameter) => (location === 'header' ? p.name.toLowerCase() : p.name);
  return {
    type: 'object',
    // The parameter schemas are $refs into the bundle: resolve them against it.
    properties: Object.fromEntries(here.map((p) => [nameOf(p), rebase(p.schema)])),
    required: here.filter((p) => p.required).map(nameOf),
    // Unknown query parameters are refused (a misspelt filter would otherwise be silently ignored);
    // requests carry many headers the contract does not name.
    additionalProperties: location !== 'query',
  };
}

/** A parameter schema (often a `$ref` into the bundle) made resolvable from a schema compiled on its own. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${DOCUMENT_ID}${value}` : value,
  );
}

/** A copy of `record` without a prototype (its own keys, `__proto__` included, as data). */
function bare(record: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(record)) copy[key] = record[key];
  return copy;
}

/** The media types of JSON bodies, in the order a response's content is searched. */
const JSON_MEDIA_TYPES = ['application/json', 'application/problem+json'];

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
