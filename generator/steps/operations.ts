import type { OperationInfo, SecuritySchemeInfo } from '../../src/client/operation-info.js';
import {
  componentsOf,
  deref,
  isObject as isObj,
  type OperationEntry,
  operations,
  parametersOf,
  propertiesOf,
  securityOf,
} from '../../tooling/openapi/walker.js';
import type { OpenApiDocument } from './bundle.js';

// The operations module: one entry per operation of the contract, read by the client SDK to build
// its methods, so that a new operation in the contract becomes a new method with no hand edit.

type Obj = Record<string, unknown>;

/** The object a (possibly $ref'd) node stands for; an unresolvable reference, or a non-object, is an error. */
function resolve(doc: OpenApiDocument, node: unknown): Obj {
  const target = deref<unknown>(doc, node);
  if (!isObj(target)) throw new Error(`${JSON.stringify(node)} is not an object`);
  return target;
}

/** Client properties that are not resources (see src/client): an operation may not shadow them. */
const RESERVED_RESOURCES = ['raw', 'baseUrl'];

export function extractSecuritySchemes(doc: OpenApiDocument): Record<string, SecuritySchemeInfo> {
  return Object.fromEntries(
    Object.entries(componentsOf(doc, 'securitySchemes')).map(([name, raw]) => {
      const s = resolve(doc, raw);
      const info: Record<string, string> = { type: String(s.type) };
      for (const k of ['scheme', 'bearerFormat', 'in', 'name'] as const)
        if (typeof s[k] === 'string') info[k] = s[k] as string;
      return [name, info as unknown as SecuritySchemeInfo];
    }),
  );
}

export function extractOperations(doc: OpenApiDocument): OperationInfo[] {
  const out = operations(doc, ['paths']).map((entry) => operationInfo(doc, entry));
  const seen = new Map<string, string>();
  for (const o of out) {
    const resource = o.sdkMethod.split('.')[0]!;
    if (RESERVED_RESOURCES.includes(resource))
      throw new Error(`${o.operationId}: x-sdk-method resource "${resource}" is reserved by the client`);
    const clash = seen.get(o.sdkMethod);
    if (clash) throw new Error(`x-sdk-method ${o.sdkMethod} is used by both ${clash} and ${o.operationId}`);
    seen.set(o.sdkMethod, o.operationId);
  }
  return out;
}

function operationInfo(doc: OpenApiDocument, entry: OperationEntry): OperationInfo {
  const { key: path, method } = entry;
  const op = entry.operation as Obj;
  const id = String(op.operationId);
  const where = `${method.toUpperCase()} ${path} (${id})`;
  const params = parametersOf(doc, entry);
  const byIn = (loc: string) => params.filter((p) => p.in === loc).map((p) => String(p.name));
  const security = securityOf(doc, entry).map((req) => Object.keys(req).sort());
  const sdkMethod = op['x-sdk-method'];
  if (typeof sdkMethod !== 'string' || !/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(sdkMethod)) {
    throw new Error(`${where}: x-sdk-method must be "resource.method", got ${JSON.stringify(sdkMethod)}`);
  }
  let requestBody: OperationInfo['requestBody'] = null;
  if (op.requestBody) {
    const body = resolve(doc, op.requestBody);
    const mediaTypes = Object.keys(isObj(body.content) ? body.content : {});
    if (mediaTypes.length !== 1)
      throw new Error(`${where}: expected one request media type, got ${mediaTypes.join(', ')}`);
    requestBody = { mediaType: mediaTypes[0]!, required: body.required === true };
  }
  const responses = isObj(op.responses) ? op.responses : {};
  const success = Object.keys(responses)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];
  if (!success) throw new Error(`${where}: no 2xx response`);
  let pagination: OperationInfo['pagination'] = null;
  const successBody = resolve(doc, responses[success]);
  const json = isObj(successBody.content) ? (successBody.content as Obj)['application/json'] : undefined;
  if (byIn('query').includes('Page') && isObj(json) && json.schema) {
    const fields = propertiesOf(doc, json.schema);
    if (fields.has('data') && fields.has('totalNumberOfPages')) {
      pagination = { pageParam: 'Page', itemsField: 'data', totalPagesField: 'totalNumberOfPages' };
    }
  }
  return {
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
  };
}

export function renderOperations(doc: OpenApiDocument): string {
  const ops = extractOperations(doc);
  const servers = (Array.isArray(doc.servers) ? doc.servers : [])
    .filter(isObj)
    .map((s) => ({ environment: String(s['x-environment'] ?? ''), url: String(s.url) }));
  const entries = ops
    .map((o) => `  ${o.operationId}: ${JSON.stringify(o, null, 2).replace(/\n/g, '\n  ')},`)
    .join('\n');
  return `// Generated by \`npm run generate\` from openapi/openapi.yaml. Do not edit.
// One entry per operation of the contract; the client SDK builds its methods from it.

import type { OperationInfo, SecuritySchemeInfo } from '../src/client/operation-info.js';

export type { OperationInfo, SecuritySchemeInfo };

/** The contract's servers: the root URL decides whether a request is a test or a live request. */
export const servers = ${JSON.stringify(servers, null, 2)} as const;

/** The contract's security schemes, by the names the operations' \`security\` uses. */
export const securitySchemes = ${JSON.stringify(extractSecuritySchemes(doc), null, 2)} as const satisfies Record<string, SecuritySchemeInfo>;

export const operations = {
${entries}
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof operations;
`;
}
