// What the tests hold the sandbox's answers with: the operation a request addresses (a router over
// an API document's path templates) and everything wrong with a response of an operation. The
// sandbox itself routes with fastify; only the tests need these, so they live here.
import type { ApiDocument, OperationContract } from '../../sandbox/contract/api-document.js';

/** Headers of HTTP itself, which the contract does not list. */
const STANDARD_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
]);

interface Matcher<Id extends string> {
  method: string;
  pattern: RegExp;
  names: string[];
  operation: OperationContract<Id>;
}

const routers = new WeakMap<ApiDocument<string>, Matcher<string>[]>();

function matchersOf<Id extends string>(document: ApiDocument<Id>): Matcher<Id>[] {
  let matchers = routers.get(document) as Matcher<Id>[] | undefined;
  if (!matchers) {
    matchers = [...document.operations.values()].map((operation) => {
      const names: string[] = [];
      const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { method: operation.method, pattern: new RegExp(`^${source}$`), names, operation };
    });
    routers.set(document, matchers as Matcher<string>[]);
  }
  return matchers;
}

/** A path segment decoded, or as sent when it is not valid percent-encoding (the operation's 400 says so). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The operation a request path (after the root) and method address, with its path parameters. */
export function matchOperation<Id extends string>(
  document: ApiDocument<Id>,
  method: string,
  path: string,
): { operation: OperationContract<Id>; params: Record<string, string> } | undefined {
  const lower = method.toLowerCase();
  // Static segments win over parameters (`/payments/refunds` is not `/payments/{id}` …): the most
  // specific template first, as routers do.
  const hit = matchersOf(document)
    .filter((m) => m.method === lower)
    .map((m) => ({ m, groups: m.pattern.exec(path) }))
    .filter((h): h is { m: Matcher<Id>; groups: RegExpExecArray } => h.groups !== null)
    .sort((a, b) => a.m.names.length - b.m.names.length)[0];
  if (!hit) return undefined;
  return {
    operation: hit.m.operation,
    params: Object.fromEntries(hit.m.names.map((n, i) => [n, decoded(hit.groups[i + 1]!)])),
  };
}

/** Everything wrong with a response of an operation (empty when it conforms). */
export function checkResponse<Id extends string>(
  document: ApiDocument<Id>,
  operationId: Id,
  status: number,
  headers: Record<string, string>,
  body: string,
): string[] {
  const op = document.operations.get(operationId);
  if (!op) return [`${operationId} is not an operation of the contract`];
  const response = op.responses.get(status);
  if (!response)
    return [
      `${operationId} answered ${status}, which the contract does not declare (it declares ${[...op.responses.keys()].join(', ')})`,
    ];
  const problems: string[] = [];
  const sent = Object.keys(headers).map((h) => h.toLowerCase());
  for (const name of sent) {
    if (!STANDARD_HEADERS.has(name) && !name.startsWith('access-control-') && !response.headers.includes(name)) {
      problems.push(`${operationId} ${status}: header ${name} is not declared for this response`);
    }
  }
  for (const name of response.requiredHeaders)
    if (!sent.includes(name)) problems.push(`${operationId} ${status}: the required header ${name} is missing`);
  if (!response.schemaPointer) {
    if (body !== '') problems.push(`${operationId} ${status}: the contract declares no body, got ${body.slice(0, 80)}`);
    return problems;
  }
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (contentType.split(';')[0]!.trim().toLowerCase() !== response.mediaType)
    problems.push(`${operationId} ${status}: content-type ${contentType || '(none)'}, not ${response.mediaType}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [...problems, `${operationId} ${status}: the body is not JSON: ${body.slice(0, 80)}`];
  }
  const validate = document.validator(response.schemaPointer);
  if (!validate(parsed)) {
    for (const e of validate.errors ?? [])
      problems.push(`${operationId} ${status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
  return problems;
}
