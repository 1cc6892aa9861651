import type { OpenApiDocument } from './bundle.js';

// The operations module: one entry per operation of the contract, read by the client SDK to build
// its methods, so that a new operation in the contract becomes a new method with no hand edit.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** `resource.method` of the client SDK (x-sdk-method) */
  sdkMethod: string;
  tag: string;
  summary: string;
  /** Security alternatives: each entry is one requirement (all its schemes at once). */
  security: string[][];
  /** Accepts the Idempotency-Key header. */
  idempotencyKey: boolean;
  /** Version of the operation's description (x-since), when the interface document gives one. */
  version: string | null;
  provenance: 'documented' | 'inferred';
  pathParams: string[];
  queryParams: string[];
  /** Media type of the request body, or null without a body. */
  requestBody: { mediaType: string; required: boolean } | null;
  /** First 2xx status of the responses. */
  successStatus: number;
  /** Page-numbered list: the query parameter and the field holding the items. */
  pagination: { pageParam: string; itemsField: string; totalPagesField: string } | null;
}

function resolve(doc: OpenApiDocument, node: unknown): Obj {
  let current = node;
  for (let i = 0; isObj(current) && typeof current.$ref === 'string' && i < 20; i++) {
    let target: unknown = doc;
    for (const raw of (current.$ref as string).slice(2).split('/')) {
      target = isObj(target) ? target[raw.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    current = target;
  }
  if (!isObj(current)) throw new Error(`unresolvable reference ${JSON.stringify(node)}`);
  return current;
}

/** Top-level property names of a (composed) schema. */
function propertyNames(doc: OpenApiDocument, schema: unknown, seen = new Set<unknown>()): Set<string> {
  const s = resolve(doc, schema);
  const names = new Set<string>(Object.keys(isObj(s.properties) ? s.properties : {}));
  if (seen.has(s)) return names;
  seen.add(s);
  for (const member of Array.isArray(s.allOf) ? s.allOf : []) for (const n of propertyNames(doc, member, seen)) names.add(n);
  return names;
}

/** Client properties that are not resources (see src/client): an operation may not shadow them. */
const RESERVED_RESOURCES = ['raw', 'baseUrl'];

export interface SecuritySchemeInfo {
  type: string;
  scheme?: string;
  bearerFormat?: string;
  in?: string;
  name?: string;
}

export function extractSecuritySchemes(doc: OpenApiDocument): Record<string, SecuritySchemeInfo> {
  const components = isObj(doc.components) ? doc.components : {};
  const schemes = isObj(components.securitySchemes) ? components.securitySchemes : {};
  return Object.fromEntries(
    Object.entries(schemes).map(([name, raw]) => {
      const s = resolve(doc, raw);
      const info: SecuritySchemeInfo = { type: String(s.type) };
      for (const k of ['scheme', 'bearerFormat', 'in', 'name'] as const) if (typeof s[k] === 'string') info[k] = s[k] as string;
      return [name, info];
    }),
  );
}

export function extractOperations(doc: OpenApiDocument): OperationInfo[] {
  const out: OperationInfo[] = [];
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolve(doc, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const id = String(op.operationId);
      const where = `${method.toUpperCase()} ${path} (${id})`;
      const params = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])].map((p) => resolve(doc, p));
      const byIn = (loc: string) => params.filter((p) => p.in === loc).map((p) => String(p.name));
      const security = ((op.security ?? doc.security ?? []) as Obj[]).map((req) => Object.keys(req).sort());
      const sdkMethod = op['x-sdk-method'];
      if (typeof sdkMethod !== 'string' || !/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(sdkMethod)) {
        throw new Error(`${where}: x-sdk-method must be "resource.method", got ${JSON.stringify(sdkMethod)}`);
      }
      let requestBody: OperationInfo['requestBody'] = null;
      if (op.requestBody) {
        const body = resolve(doc, op.requestBody);
        const mediaTypes = Object.keys(isObj(body.content) ? body.content : {});
        if (mediaTypes.length !== 1) throw new Error(`${where}: expected one request media type, got ${mediaTypes.join(', ')}`);
        requestBody = { mediaType: mediaTypes[0]!, required: body.required === true };
      }
      const responses = isObj(op.responses) ? op.responses : {};
      const success = Object.keys(responses).filter((s) => /^2\d\d$/.test(s)).sort()[0];
      if (!success) throw new Error(`${where}: no 2xx response`);
      let pagination: OperationInfo['pagination'] = null;
      const successBody = resolve(doc, responses[success]);
      const json = isObj(successBody.content) ? (successBody.content as Obj)['application/json'] : undefined;
      if (byIn('query').includes('Page') && isObj(json) && json.schema) {
        const fields = propertyNames(doc, json.schema);
        if (fields.has('data') && fields.has('totalNumberOfPages')) {
          pagination = { pageParam: 'Page', itemsField: 'data', totalPagesField: 'totalNumberOfPages' };
        }
      }
      out.push({
        operationId: id,
        method,
        path,
        sdkMethod,
        tag: Array.isArray(op.tags) ? String(op.tags[0]) : '',
        summary: String(op.summary ?? ''),
        security,
        idempotencyKey: byIn('header').includes('Idempotency-Key'),
        version: typeof op['x-since'] === 'string' ? op['x-since'] : null,
        provenance: op['x-provenance'] === 'inferred' ? 'inferred' : 'documented',
        pathParams: byIn('path'),
        queryParams: byIn('query'),
        requestBody,
        successStatus: Number(success),
        pagination,
      });
    }
  }
  const seen = new Map<string, string>();
  for (const o of out) {
    const resource = o.sdkMethod.split('.')[0]!;
    if (RESERVED_RESOURCES.includes(resource)) throw new Error(`${o.operationId}: x-sdk-method resource "${resource}" is reserved by the client`);
    const clash = seen.get(o.sdkMethod);
    if (clash) throw new Error(`x-sdk-method ${o.sdkMethod} is used by both ${clash} and ${o.operationId}`);
    seen.set(o.sdkMethod, o.operationId);
  }
  return out;
}

export function renderOperations(doc: OpenApiDocument): string {
  const ops = extractOperations(doc);
  const servers = (Array.isArray(doc.servers) ? doc.servers : []).filter(isObj).map((s) => ({ environment: String(s['x-environment'] ?? ''), url: String(s.url) }));
  const entries = ops.map((o) => `  ${o.operationId}: ${JSON.stringify(o, null, 2).replace(/\n/g, '\n  ')},`).join('\n');
  return `// Generated by \`npm run generate\` from openapi/openapi.yaml. Do not edit.
// One entry per operation of the contract; the client SDK builds its methods from it.

export interface OperationInfo {
  readonly operationId: string;
  readonly method: 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';
  readonly path: string;
  /** \`resource.method\` of the client SDK (x-sdk-method) */
  readonly sdkMethod: string;
  readonly tag: string;
  readonly summary: string;
  /** Security alternatives; each is one requirement (all of its schemes at once). */
  readonly security: readonly (readonly string[])[];
  /** Accepts the Idempotency-Key header. */
  readonly idempotencyKey: boolean;
  /** Version of the operation's description (x-since), when the interface document gives one. */
  readonly version: string | null;
  readonly provenance: 'documented' | 'inferred';
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  readonly requestBody: { readonly mediaType: string; readonly required: boolean } | null;
  readonly successStatus: number;
  readonly pagination: { readonly pageParam: string; readonly itemsField: string; readonly totalPagesField: string } | null;
}

/** The contract's servers: the root URL decides whether a request is a test or a live request. */
export const servers = ${JSON.stringify(servers, null, 2)} as const;

/** The contract's security schemes, by the names the operations' \`security\` uses. */
export const securitySchemes = ${JSON.stringify(extractSecuritySchemes(doc), null, 2)} as const;

export const operations = {
${entries}
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;
`;
}
