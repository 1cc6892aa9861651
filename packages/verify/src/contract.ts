// What the verifier knows of the API: the contract's bundle read with the shared walker, as plain
// facts per operation (its request, its responses and their required headers, the schemes it
// accepts, its business rules, its links) and per webhook. Nothing here knows any server.
import {
  deref,
  isObject,
  type JsonObject,
  operations,
  parametersOf,
  resolve,
  securityOf,
  toPointer,
} from '../../../tooling/openapi/walker.js';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonObject;
  example?: unknown;
}

export interface HeaderSpec {
  name: string;
  required: boolean;
}

export interface ResponseSpec {
  status: number;
  description: string;
  /** The declared media type, or undefined for a response without a body. */
  mediaType?: string;
  /** Where the body's schema lives in the bundle (a JSON pointer). */
  schemaPointer?: string;
  headers: HeaderSpec[];
}

export interface RequestBodySpec {
  required: boolean;
  mediaType: string;
  schemaPointer?: string;
  /** The documented examples' values, by name. */
  examples: Map<string, unknown>;
}

/**
 * One entry of `x-business-rules` (on an operation, or on the document for every operation): a rule
 * the schemas cannot state, with the answer that refuses it.
 */
export interface BusinessRule {
  id: string;
  rule: string;
  status: number;
  /** The field as a 400's `errors` name it; `*` any field; `metadata` any field named so. */
  field: string;
  /** For a 422: the name of the response code in `x-response-codes`. */
  responseCode?: string;
}

export interface LinkSpec {
  name: string;
  status: number;
  operationId: string;
  parameters: Record<string, string>;
}

export interface OperationSpec {
  id: string;
  method: string;
  /** The path template under the root: `/payments/{id}/captures`. */
  path: string;
  parameters: ParameterSpec[];
  body?: RequestBodySpec;
  responses: Map<number, ResponseSpec>;
  /** The security alternatives, each a list of scheme names that must all be present. */
  security: string[][];
  rules: BusinessRule[];
  links: LinkSpec[];
}

export interface WebhookHeaderSpec {
  /** Lower-cased. */
  name: string;
  required: boolean;
  /** Its schema's `pattern`, if it has one. */
  pattern?: string;
  description: string;
}

export interface WebhookSpec {
  name: string;
  method: string;
  mediaType: string;
  schemaPointer: string;
  /** Its header parameters. */
  headers: WebhookHeaderSpec[];
}

/** The header parameters a delivery of the webhook must carry (lower-cased). */
export const requiredHeadersOf = (webhook: WebhookSpec): string[] =>
  webhook.headers.filter((h) => h.required).map((h) => h.name);

export interface SecuritySchemeSpec {
  name: string;
  type: string;
  scheme?: string;
  in?: string;
  headerName?: string;
}

export interface ServerSpec {
  url: string;
  environment?: string;
}

export interface Contract {
  document: JsonObject;
  title: string;
  version: string;
  operations: Map<string, OperationSpec>;
  webhooks: WebhookSpec[];
  securitySchemes: Map<string, SecuritySchemeSpec>;
  servers: ServerSpec[];
  /** Rules of every operation (the document's own `x-business-rules`). */
  commonRules: BusinessRule[];
}

/** A location in the bundle as a URI fragment a validator can take (`~1` escapes, then percent-encoding). */
const fragment = (tokens: readonly (string | number)[]) =>
  `#${toPointer(tokens)
    .slice(1)
    .split('/')
    .map((t) => encodeURIComponent(t).replace(/%7E/gi, '~'))
    .join('/')}`;

function rulesOf(node: unknown): BusinessRule[] {
  const rules = isObject(node) && Array.isArray(node.rules) ? node.rules : [];
  return rules.filter(isObject).map((r) => ({
    id: String(r.id),
    rule: String(r.rule),
    status: Number(r.status),
    field: String(r.field),
    ...(typeof r.responseCode === 'string' ? { responseCode: r.responseCode } : {}),
  }));
}

function responseOf(document: JsonObject, raw: unknown, at: string[], status: number): ResponseSpec {
  const { node, tokens } = resolve<JsonObject>(document, raw, at);
  const headers = Object.entries(isObject(node.headers) ? node.headers : {}).map(([name, header]) => ({
    name: name.toLowerCase(),
    required: deref<JsonObject>(document, header).required === true,
  }));
  const content = isObject(node.content) ? node.content : {};
  const [mediaType, media] = Object.entries(content)[0] ?? [];
  const description = typeof node.description === 'string' ? node.description : '';
  if (!mediaType || !isObject(media) || media.schema === undefined) return { status, description, headers };
  const base = tokens ?? at;
  const schemaAt = resolve(document, media.schema, [...base, 'content', mediaType, 'schema']);
  return { status, description, mediaType, schemaPointer: fragment(schemaAt.tokens ?? []), headers };
}

function bodyOf(document: JsonObject, raw: unknown, at: string[]): RequestBodySpec | undefined {
  if (raw === undefined) return undefined;
  const { node, tokens } = resolve<JsonObject>(document, raw, at);
  const [mediaType, media] = Object.entries(isObject(node.content) ? node.content : {})[0] ?? [];
  if (!mediaType || !isObject(media)) return undefined;
  const base = tokens ?? at;
  const examples = new Map<string, unknown>();
  for (const [name, example] of Object.entries(isObject(media.examples) ? media.examples : {}))
    examples.set(name, deref<JsonObject>(document, example).value);
  if (media.example !== undefined) examples.set('example', media.example);
  const schemaAt =
    media.schema === undefined ? undefined : resolve(document, media.schema, [...base, 'content', mediaType, 'schema']);
  return {
    required: node.required === true,
    mediaType,
    ...(schemaAt?.tokens ? { schemaPointer: fragment(schemaAt.tokens) } : {}),
    examples,
  };
}

function linksOf(document: JsonObject, raw: unknown, status: number): LinkSpec[] {
  const response = deref<JsonObject>(document, raw);
  return Object.entries(isObject(response.links) ? response.links : {}).flatMap(([name, link]) => {
    const node = deref<JsonObject>(document, link);
    if (typeof node.operationId !== 'string') return [];
    const parameters = Object.fromEntries(
      Object.entries(isObject(node.parameters) ? node.parameters : {}).map(([k, v]) => [k, String(v)]),
    );
    return [{ name, status, operationId: node.operationId, parameters }];
  });
}

function operationOf(document: JsonObject, entry: ReturnType<typeof operations>[number]): OperationSpec {
  const op = entry.operation as JsonObject;
  const responses = new Map<number, ResponseSpec>();
  const links: LinkSpec[] = [];
  for (const [code, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
    const status = Number(code);
    if (!Number.isInteger(status)) continue;
    responses.set(status, responseOf(document, raw, [...entry.tokens, 'responses', code], status));
    links.push(...linksOf(document, raw, status));
  }
  return {
    id: String(op.operationId),
    method: entry.method.toUpperCase(),
    path: entry.key,
    parameters: parametersOf(document, entry).map((p) => ({
      name: p.name,
      in: p.in as ParameterSpec['in'],
      required: p.required === true,
      schema: deref<JsonObject>(document, p.schema ?? {}),
      ...(p.example !== undefined ? { example: p.example } : {}),
    })),
    body: bodyOf(document, op.requestBody, [...entry.tokens, 'requestBody']),
    responses,
    security: securityOf(document, entry).map((requirement) => Object.keys(requirement)),
    rules: rulesOf(op['x-business-rules']),
    links,
  };
}

function webhookOf(document: JsonObject, entry: ReturnType<typeof operations>[number]): WebhookSpec | undefined {
  const body = bodyOf(document, (entry.operation as JsonObject).requestBody, [...entry.tokens, 'requestBody']);
  if (!body?.schemaPointer) return undefined;
  return {
    name: entry.key,
    method: entry.method.toUpperCase(),
    mediaType: body.mediaType,
    schemaPointer: body.schemaPointer,
    headers: parametersOf(document, entry)
      .filter((p) => p.in === 'header')
      .map((p) => {
        const pattern = deref<JsonObject>(document, p.schema ?? {}).pattern;
        return {
          name: p.name.toLowerCase(),
          required: p.required === true,
          ...(typeof pattern === 'string' ? { pattern } : {}),
          description: p.description ?? '',
        };
      }),
  };
}

/** The contract's facts, read from its bundle (an OpenAPI 3.1 document with local `$ref`s only). */
export function readContract(document: JsonObject): Contract {
  const info = isObject(document.info) ? document.info : {};
  const schemes = new Map<string, SecuritySchemeSpec>();
  const components = isObject(document.components) ? document.components : {};
  for (const [name, raw] of Object.entries(isObject(components.securitySchemes) ? components.securitySchemes : {})) {
    const s = deref<JsonObject>(document, raw);
    schemes.set(name, {
      name,
      type: String(s.type),
      ...(typeof s.scheme === 'string' ? { scheme: s.scheme.toLowerCase() } : {}),
      ...(typeof s.in === 'string' ? { in: s.in } : {}),
      ...(typeof s.name === 'string' ? { headerName: s.name } : {}),
    });
  }
  return {
    document,
    title: String(info.title ?? ''),
    version: String(info.version ?? ''),
    operations: new Map(
      operations(document, ['paths']).map((e) => [String(e.operation.operationId), operationOf(document, e)]),
    ),
    webhooks: operations(document, ['webhooks'])
      .map((e) => webhookOf(document, e))
      .filter((w): w is WebhookSpec => w !== undefined),
    securitySchemes: schemes,
    servers: (Array.isArray(document.servers) ? document.servers : []).filter(isObject).map((s) => ({
      url: String(s.url),
      ...(typeof s['x-environment'] === 'string' ? { environment: s['x-environment'] } : {}),
    })),
    commonRules: rulesOf(document['x-business-rules']),
  };
}

/** The statuses a well-behaved client can provoke, where an operation declares them. */
export const REACHABLE_STATUSES = new Set([400, 401, 404, 409, 413, 415, 422]);

/** `operationId status` for every pair a client can reach: 2xx and the statuses above. */
export function reachablePairs(contract: Contract): string[] {
  return [...contract.operations.values()].flatMap((op) =>
    [...op.responses.keys()]
      .filter((s) => (s >= 200 && s < 300) || REACHABLE_STATUSES.has(s))
      .map((s) => `${op.id} ${s}`),
  );
}
