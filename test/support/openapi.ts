// Small helpers to walk a bundled OpenAPI 3.1 document in tests.
import { inject } from 'vitest';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function loadBundle(): JsonObject {
  return inject('bundle') as JsonObject;
}

export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...tokens: (string | number)[]): string {
  return '#/' + tokens.map((t) => escapePointer(String(t))).join('/');
}

export function resolvePointer(doc: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are expected in a bundle, got ${ref}`);
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(token in node)) throw new Error(`unresolvable $ref ${ref}`);
    node = (node as JsonObject)[token] as Json;
  }
  return node;
}

/**
 * The node at a JSON pointer, following $refs on the way and at the end, with the pointer where it
 * really lives (so that Ajv can validate against it by pointer).
 */
export function locate(doc: JsonObject, ptr: string): { node: Json; at: string } {
  let node: Json = doc;
  let at = '#';
  const hop = () => {
    for (let i = 0; node !== null && typeof node === 'object' && !Array.isArray(node) && typeof node.$ref === 'string'; i++) {
      if (i > 50) throw new Error(`$ref loop at ${at}`);
      at = node.$ref;
      node = resolvePointer(doc, at);
    }
  };
  for (const token of ptr.slice(2).split('/')) {
    hop();
    if (node === null || typeof node !== 'object') throw new Error(`cannot resolve ${ptr}`);
    node = (node as JsonObject)[token.replace(/~1/g, '/').replace(/~0/g, '~')] as Json;
    at += '/' + token;
  }
  hop();
  return { node, at };
}

/** Follows $ref chains (Reference Objects and schema $refs). */
export function deref<T extends Json = JsonObject>(doc: JsonObject, node: Json): T {
  let current = node;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && !Array.isArray(current) && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`circular $ref ${current.$ref}`);
    seen.add(current.$ref);
    current = resolvePointer(doc, current.$ref);
  }
  return current as T;
}

export interface OperationEntry {
  /** `paths` or `webhooks` */
  kind: 'paths' | 'webhooks';
  /** path template, or webhook name */
  key: string;
  method: string;
  operation: JsonObject;
  pathItem: JsonObject;
  /** JSON pointer of the operation in the bundle */
  at: string;
}

export function operations(doc: JsonObject, kinds: ('paths' | 'webhooks')[] = ['paths', 'webhooks']): OperationEntry[] {
  const out: OperationEntry[] = [];
  for (const kind of kinds) {
    const map = (doc[kind] ?? {}) as JsonObject;
    for (const key of Object.keys(map)) {
      const pathItem = deref(doc, map[key]);
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method] as JsonObject | undefined;
        if (operation) out.push({ kind, key, method, operation, pathItem, at: pointer(kind, key, method) });
      }
    }
  }
  return out;
}

export function operationById(doc: JsonObject, operationId: string): OperationEntry {
  const found = operations(doc).find((o) => o.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the contract`);
  return found;
}

/** Path-item and operation parameters, resolved. */
export function parametersOf(doc: JsonObject, entry: OperationEntry): JsonObject[] {
  const all = [...((entry.pathItem.parameters ?? []) as Json[]), ...((entry.operation.parameters ?? []) as Json[])];
  return all.map((p) => deref(doc, p));
}

export function securitySchemesOf(doc: JsonObject, entry: OperationEntry): string[] {
  const requirements = (entry.operation.security ?? doc.security ?? []) as JsonObject[];
  return [...new Set(requirements.flatMap((r) => Object.keys(r)))].sort();
}
