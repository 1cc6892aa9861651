// The one OpenAPI walker: JSON pointers, `$ref` resolution, the operations of a document, every
// schema in it and every object. The generator, the Spectral house rules, the scripts, the tests
// and the sandbox all walk the contract through this module; none writes its own loop over
// `paths` or its own pointer escaping.
//
// Plain TypeScript with no runtime imports (no `node:`), so that any layer may use it. The types
// are openapi-typescript's OpenAPI 3.1 object types (type-only imports: nothing of it is loaded).
import type {
  OpenAPI3,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  SchemaObject,
  SecurityRequirementObject,
} from 'openapi-typescript';

/** The HTTP methods an OpenAPI path item can hold, in the specification's order. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];

export type {
  OpenAPI3,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  SchemaObject,
  SecurityRequirementObject,
};

/** A JSON object: what every OpenAPI object is once parsed. */
export type JsonObject = Record<string, unknown>;

/** A location in a document as reference tokens: `['paths', '/payments', 'post']`. */
export type PointerTokens = readonly (string | number)[];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isReference(value: unknown): value is ReferenceObject {
  return isObject(value) && typeof value.$ref === 'string';
}

// ---------------------------------------------------------------------------------------------
// JSON pointers (RFC 6901) as URI fragments: `#/paths/~1payments~1%7Bid%7D/post`

/** One reference token escaped for a pointer (`~` → `~0`, `/` → `~1`). */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token of a pointer, unescaped. */
export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `#/a/b~1c` from `['a', 'b/c']`. */
export function toPointer(tokens: PointerTokens): string {
  return tokens.length === 0 ? '#' : `#/${tokens.map(escapeToken).join('/')}`;
}

/**
 * The tokens of a pointer in either of RFC 6901's forms: a URI fragment (`#/a/b~1c`, the fragment
 * of a `$ref`: percent-encoded characters decoded) or a plain string (`/a/b~1c`, as Ajv's
 * instancePath and a data file's findings: taken as it is, a `%` is a `%`). Throws on anything
 * else, and on a fragment whose percent-encoding is broken.
 */
export function parsePointer(pointer: string): string[] {
  if (pointer === '#' || pointer === '') return [];
  if (pointer.startsWith('#/'))
    return pointer
      .slice(2)
      .split('/')
      .map((raw) => unescapeToken(raw.includes('%') ? decodeURIComponent(raw) : raw));
  if (pointer.startsWith('/')) return pointer.slice(1).split('/').map(unescapeToken);
  throw new Error(`not a JSON pointer: ${pointer}`);
}

/** The value at a location, or undefined when any step is missing. */
export function getAt(root: unknown, location: string | PointerTokens): unknown {
  const tokens = typeof location === 'string' ? parsePointer(location) : location;
  let node = root;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[token];
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// $ref resolution (local references, as in a bundle)

export class UnresolvedReferenceError extends Error {
  constructor(
    readonly ref: string,
    readonly reason: 'missing' | 'external' | 'circular',
  ) {
    super(
      reason === 'external'
        ? `external $ref ${ref}: bundle the document first`
        : `${reason === 'missing' ? 'unresolvable' : 'circular'} $ref ${ref}`,
    );
    this.name = 'UnresolvedReferenceError';
  }
}

export interface Resolved<T> {
  /** The first node of the chain that is not a Reference Object. */
  node: T;
  /** Where that node lives: the last `$ref` followed, or the starting location (undefined when unknown). */
  tokens: string[] | undefined;
}

/**
 * Follows a chain of local `$ref`s (Reference Objects and schema `$ref`s) to the node it stands for.
 * A missing, external or circular reference throws UnresolvedReferenceError.
 */
export function resolve<T = unknown>(root: unknown, node: unknown, at?: PointerTokens): Resolved<T> {
  let current: unknown = node;
  let tokens = at ? at.map(String) : undefined;
  const seen = new Set<string>();
  while (isReference(current)) {
    const ref = current.$ref;
    if (!ref.startsWith('#')) throw new UnresolvedReferenceError(ref, 'external');
    if (seen.has(ref)) throw new UnresolvedReferenceError(ref, 'circular');
    seen.add(ref);
    tokens = parsePointer(ref);
    const target = getAt(root, tokens);
    if (target === undefined) throw new UnresolvedReferenceError(ref, 'missing');
    current = target;
  }
  return { node: current as T, tokens };
}

/** The node a (possibly referenced) node stands for. */
export function deref<T = JsonObject>(root: unknown, node: unknown): T {
  return resolve<T>(root, node).node;
}

/** Like resolve, but undefined for a missing, external or circular reference (linters report those elsewhere). */
export function tryResolve<T = unknown>(root: unknown, node: unknown, at?: PointerTokens): Resolved<T> | undefined {
  try {
    return resolve(root, node, at);
  } catch (error) {
    if (error instanceof UnresolvedReferenceError) return undefined;
    throw error;
  }
}

/** Like deref, but an unresolvable reference yields the reference itself. */
export function derefLenient<T = JsonObject>(root: unknown, node: unknown): T {
  return tryResolve<T>(root, node)?.node ?? (node as T);
}

/**
 * The node at a pointer, following `$ref`s on the way and at the end, with the pointer where it
 * really lives (so that a validator can compile the schema there by reference). A missing last
 * step gives an undefined node; a step below a missing one throws.
 */
export function locate<T = unknown>(root: unknown, pointer: string): { node: T; pointer: string } {
  let node: unknown = root;
  let tokens: string[] = [];
  const hop = () => {
    const resolved = resolve<unknown>(root, node, tokens);
    node = resolved.node;
    tokens = resolved.tokens ?? tokens;
  };
  for (const token of parsePointer(pointer)) {
    if (node === undefined) throw new Error(`cannot resolve ${pointer}: nothing at ${toPointer(tokens)}`);
    hop();
    if (typeof node !== 'object' || node === null)
      throw new Error(`cannot resolve ${pointer}: nothing at ${toPointer(tokens)}`);
    node = (node as Record<string, unknown>)[token];
    tokens = [...tokens, token];
  }
  hop();
  return { node: node as T, pointer: toPointer(tokens) };
}

// ---------------------------------------------------------------------------------------------
// Operations

export type OperationSection = 'paths' | 'webhooks';

export interface OperationEntry {
  section: OperationSection;
  /** The path template (`/payments/{id}/captures`) or the webhook name. */
  key: string;
  method: HttpMethod;
  operation: OperationObject;
  pathItem: PathItemObject;
  /** Where the operation lives: under its path item, or where a referenced path item is. */
  tokens: string[];
  /** `tokens` as a JSON pointer. */
  pointer: string;
}

/**
 * Every operation of the document, paths first, then webhooks, in document order and in the
 * HTTP_METHODS order within a path item. A path item that is a `$ref` is followed; an operation
 * reached twice through references is listed once, where it lives.
 */
export function operations(
  root: OpenAPI3 | JsonObject,
  sections: readonly OperationSection[] = ['paths', 'webhooks'],
): OperationEntry[] {
  const out: OperationEntry[] = [];
  const seen = new Set<string>();
  for (const section of sections) {
    const map = (root as JsonObject)[section];
    if (!isObject(map)) continue;
    for (const [key, raw] of Object.entries(map)) {
      const { node: pathItem, tokens: itemTokens } = resolve<unknown>(root, raw, [section, key]);
      if (!isObject(pathItem)) continue;
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method];
        if (!isObject(operation)) continue;
        const tokens = [...(itemTokens ?? [section, key]), method];
        const pointer = toPointer(tokens);
        if (seen.has(pointer)) continue;
        seen.add(pointer);
        out.push({
          section,
          key,
          method,
          operation: operation as OperationObject,
          pathItem: pathItem as PathItemObject,
          tokens,
          pointer,
        });
      }
    }
  }
  return out;
}

/** The operation with this operationId; throws when the document has none. */
export function operationById(root: OpenAPI3 | JsonObject, operationId: string): OperationEntry {
  const found = operations(root).find((entry) => entry.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId} in the document`);
  return found;
}

/** The parameters of an operation, resolved: the path item's, overridden by the operation's of the same name and location. */
export function parametersOf(
  root: OpenAPI3 | JsonObject,
  entry: Pick<OperationEntry, 'operation' | 'pathItem'>,
): ParameterObject[] {
  const byKey = new Map<string, ParameterObject>();
  for (const raw of [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])]) {
    const parameter = deref<ParameterObject>(root, raw);
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

/** The security alternatives of an operation: its own `security`, else the document's. */
export function securityOf(
  root: OpenAPI3 | JsonObject,
  entry: Pick<OperationEntry, 'operation'>,
): SecurityRequirementObject[] {
  return (entry.operation.security ?? (root as OpenAPI3).security ?? []) as SecurityRequirementObject[];
}

// ---------------------------------------------------------------------------------------------
// Components

/**
 * The kinds of the Components Object, each a map from names to objects (or `$ref`s), in the order
 * the OpenAPI 3.1 specification lists them.
 */
export const COMPONENT_KINDS = [
  'schemas',
  'responses',
  'parameters',
  'examples',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
] as const;

export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/**
 * The components of one kind by name, in document order (each lives at
 * `['components', kind, name]`): the document's own map, or a new empty one when the
 * document has none.
 */
export function componentsOf(root: OpenAPI3 | JsonObject, kind: ComponentKind): JsonObject {
  const components = (root as JsonObject).components;
  const map = isObject(components) ? components[kind] : undefined;
  return isObject(map) ? map : {};
}

// ---------------------------------------------------------------------------------------------
// Schemas

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
const SCHEMA_SINGLE = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const;
const SCHEMA_LISTS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'] as const;

/** The subschemas of one schema object, each with its tokens relative to the schema. */
export function subschemas(schema: JsonObject): Array<[unknown, (string | number)[]]> {
  const out: Array<[unknown, (string | number)[]]> = [];
  for (const k of SCHEMA_MAPS) {
    const map = schema[k];
    if (isObject(map)) for (const [name, sub] of Object.entries(map)) out.push([sub, [k, name]]);
  }
  for (const k of SCHEMA_SINGLE) {
    const sub = schema[k];
    if (Array.isArray(sub))
      sub.forEach((s, i) => out.push([s, [k, i]])); // draft-04 tuple `items`
    else if (sub !== undefined) out.push([sub, [k]]);
  }
  for (const k of SCHEMA_LISTS) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((s, i) => out.push([s, [k, i]]));
  }
  return out;
}

export type SchemaVisitor = (
  schema: SchemaObject & JsonObject,
  tokens: (string | number)[],
  parent: JsonObject | undefined,
) => void;

/**
 * Calls `visit` for every schema object in the document where it physically lives: under
 * parameters, headers, media types (and their encodings), request bodies, responses, callbacks,
 * path items and webhooks, and the components. `$ref`s are not followed, so a shared schema is
 * visited once; boolean schemas are skipped.
 */
export function walkSchemas(root: OpenAPI3 | JsonObject, visit: SchemaVisitor): void {
  const doc = root as JsonObject;
  const schema = (s: unknown, tokens: (string | number)[], parent?: JsonObject): void => {
    if (!isObject(s)) return;
    visit(s as SchemaObject & JsonObject, tokens, parent);
    if (s.$ref !== undefined) return;
    for (const [sub, rel] of subschemas(s)) schema(sub, [...tokens, ...rel], s);
  };
  const content = (c: unknown, tokens: (string | number)[]): void => {
    if (!isObject(c)) return;
    for (const [mediaType, media] of Object.entries(c)) {
      if (!isObject(media)) continue;
      schema(media.schema, [...tokens, mediaType, 'schema']);
      if (isObject(media.encoding)) {
        for (const [name, encoding] of Object.entries(media.encoding)) {
          if (isObject(encoding)) headers(encoding.headers, [...tokens, mediaType, 'encoding', name, 'headers']);
        }
      }
    }
  };
  const parameterOrHeader = (p: unknown, tokens: (string | number)[]): void => {
    if (!isObject(p) || p.$ref !== undefined) return;
    schema(p.schema, [...tokens, 'schema']);
    content(p.content, [...tokens, 'content']);
  };
  const headers = (h: unknown, tokens: (string | number)[]): void => {
    if (isObject(h)) for (const [name, header] of Object.entries(h)) parameterOrHeader(header, [...tokens, name]);
  };
  const response = (r: unknown, tokens: (string | number)[]): void => {
    if (!isObject(r) || r.$ref !== undefined) return;
    headers(r.headers, [...tokens, 'headers']);
    content(r.content, [...tokens, 'content']);
  };
  const requestBody = (b: unknown, tokens: (string | number)[]): void => {
    if (isObject(b) && b.$ref === undefined) content(b.content, [...tokens, 'content']);
  };
  const callbacks = (cbs: unknown, tokens: (string | number)[]): void => {
    if (!isObject(cbs)) return;
    for (const [name, cb] of Object.entries(cbs)) {
      if (isObject(cb) && cb.$ref === undefined) {
        for (const [expression, item] of Object.entries(cb)) pathItem(item, [...tokens, name, expression]);
      }
    }
  };
  const pathItem = (item: unknown, tokens: (string | number)[]): void => {
    if (!isObject(item) || item.$ref !== undefined) return;
    (Array.isArray(item.parameters) ? item.parameters : []).forEach((p, i) =>
      parameterOrHeader(p, [...tokens, 'parameters', i]),
    );
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      (Array.isArray(op.parameters) ? op.parameters : []).forEach((p, i) =>
        parameterOrHeader(p, [...tokens, method, 'parameters', i]),
      );
      requestBody(op.requestBody, [...tokens, method, 'requestBody']);
      if (isObject(op.responses))
        for (const [code, r] of Object.entries(op.responses)) response(r, [...tokens, method, 'responses', code]);
      callbacks(op.callbacks, [...tokens, method, 'callbacks']);
    }
  };

  for (const section of ['paths', 'webhooks']) {
    const map = doc[section];
    if (isObject(map)) for (const [key, item] of Object.entries(map)) pathItem(item, [section, key]);
  }
  const each = (kind: ComponentKind, fn: (value: unknown, tokens: (string | number)[]) => void) => {
    for (const [name, value] of Object.entries(componentsOf(doc, kind))) fn(value, ['components', kind, name]);
  };
  each('schemas', (s, t) => schema(s, t));
  each('parameters', parameterOrHeader);
  each('headers', parameterOrHeader);
  each('responses', response);
  each('requestBodies', requestBody);
  each('pathItems', pathItem);
  each('callbacks', (cb, t) => callbacks({ [String(t.at(-1))]: cb }, t.slice(0, -1)));
}

// ---------------------------------------------------------------------------------------------
// Every object

/** Keywords whose values are data (instances, literal values), never OpenAPI or schema objects. */
const DATA_KEYWORDS = new Set(['example', 'default', 'enum', 'const']);
/**
 * Keywords whose value is a map from names an author chose to objects: its keys are names, never
 * keywords (a property called `default`, the `default` response, a media type).
 */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'paths',
  'webhooks',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
  'variables',
  'mapping',
]);

export type ObjectVisitor = (node: JsonObject, tokens: (string | number)[]) => void;

export interface WalkObjectsOptions {
  /** Walk the data too (every object of a JSON value, whatever it means: e.g. every `$ref` of a source file). Default false. */
  data?: boolean;
}

/**
 * Calls `visit` for every JSON object under `root` (OpenAPI objects, schemas, the maps that hold
 * them, extensions) where it physically lives, with its tokens: parent before children, in
 * document order. `$ref`s are not followed. Data is skipped: the values of `example`, `default`,
 * `enum` and `const`, a schema's `examples` array and the `value` of an Example Object (its other
 * fields, such as `summary` and `description`, are visited). A key of a map of names
 * (`properties`, `responses`, `content`, `schemas`, …) is a name, never a keyword: a property
 * called `default` is visited like any other.
 */
export function walkObjects(root: unknown, visit: ObjectVisitor, options: WalkObjectsOptions = {}): void {
  const data = options.data === true;
  /** What `node` is: a map of names, a map of Example Objects, an Example Object, or any other object. */
  type Kind = 'names' | 'examples' | 'example' | 'object';
  const walk = (node: unknown, tokens: (string | number)[], kind: Kind): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...tokens, i], 'object'));
      return;
    }
    if (!isObject(node)) return;
    visit(node, tokens);
    for (const [key, child] of Object.entries(node)) {
      const at = [...tokens, key];
      if (data || kind === 'names') walk(child, at, 'object');
      else if (kind === 'examples') walk(child, at, 'example');
      else if (
        DATA_KEYWORDS.has(key) ||
        (key === 'value' && kind === 'example') ||
        (key === 'examples' && !isObject(child))
      )
        continue;
      else walk(child, at, key === 'examples' ? 'examples' : NAME_MAPS.has(key) ? 'names' : 'object');
    }
  };
  walk(root, [], 'object');
}

/**
 * The properties a schema may declare: its own, its `allOf` members' and those of every branch of
 * its `anyOf` and `oneOf`, through `$ref`s (not `if`/`then`/`else`). First declaration wins; a
 * property of one branch only is listed too (which branches apply depends on the instance), and
 * requiredOf says which of them every instance holds.
 */
export function propertiesOf(root: unknown, schema: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const seen = new Set<unknown>();
  const visit = (node: unknown) => {
    const s = derefLenient<unknown>(root, node);
    if (!isObject(s) || seen.has(s)) return;
    seen.add(s);
    if (isObject(s.properties))
      for (const [name, sub] of Object.entries(s.properties)) if (!out.has(name)) out.set(name, sub);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach(visit);
  };
  visit(schema);
  return out;
}

/**
 * The property names every instance of a schema holds: its own `required`, its `allOf` members',
 * and a name an `anyOf` or `oneOf` requires in every one of its branches (a name only some branches
 * require is optional: another branch may be the one that matches). Through `$ref`s; a `$ref` back
 * to a schema being visited adds nothing.
 */
export function requiredOf(root: unknown, schema: unknown): Set<string> {
  const visiting = new Set<unknown>();
  const of = (node: unknown): Set<string> => {
    const out = new Set<string>();
    const s = derefLenient<unknown>(root, node);
    if (!isObject(s) || visiting.has(s)) return out;
    visiting.add(s);
    if (Array.isArray(s.required)) for (const name of s.required) out.add(String(name));
    if (Array.isArray(s.allOf)) for (const member of s.allOf) for (const name of of(member)) out.add(name);
    for (const k of ['anyOf', 'oneOf'] as const) {
      const branches = s[k];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const each = branches.map(of);
      for (const name of each[0]!) if (each.every((set) => set.has(name))) out.add(name);
    }
    visiting.delete(s);
    return out;
  };
  return of(schema);
}

/**
 * The schema that an instance location inside `schema` falls under (the tokens of a JSON pointer
 * into an instance: `['data', '0', 'id']`): each step a property the schema declares (its own, its
 * `allOf` members', any `anyOf`/`oneOf` branch's: propertiesOf) or, on an array, an index (its
 * `prefixItems` at that index, else its `items`, also of its `allOf` members and branches), through
 * `$ref`s. Undefined when a step is declared nowhere (`additionalProperties` declares no name).
 */
export function schemaAt(root: unknown, schema: unknown, tokens: readonly string[]): unknown {
  const itemAt = (node: unknown, index: number, seen: Set<unknown>): unknown => {
    const s = derefLenient<unknown>(root, node);
    if (!isObject(s) || seen.has(s)) return undefined;
    seen.add(s);
    if (Array.isArray(s.prefixItems) && index < s.prefixItems.length) return s.prefixItems[index];
    if (s.items !== undefined && !Array.isArray(s.items)) return s.items;
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const member of Array.isArray(s[k]) ? (s[k] as unknown[]) : []) {
        const found = itemAt(member, index, seen);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  let node = schema;
  for (const token of tokens) {
    const property = propertiesOf(root, node).get(token);
    const next = property ?? (/^(0|[1-9]\d*)$/.test(token) ? itemAt(node, Number(token), new Set()) : undefined);
    if (next === undefined) return undefined;
    node = next;
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// Runtime expressions (the values of a Link Object's parameters and requestBody)

/** A runtime expression, parsed: `$request.path.id`, `$response.body#/payId`, `$statusCode`, … */
export type RuntimeExpression =
  | { kind: 'url' | 'method' | 'statusCode' }
  | { kind: 'parameter'; source: 'request' | 'response'; in: 'header' | 'query' | 'path'; name: string }
  | { kind: 'body'; source: 'request' | 'response'; pointer: string[] };

/**
 * A runtime expression of the OpenAPI 3.1 grammar, parsed; undefined when `text` is none
 * (a response has no query or path parameters; a body pointer is a JSON pointer). The whole string
 * is the expression; one embedded in a string (`{$…}`) is found by runtimeExpressionsIn.
 */
export function parseRuntimeExpression(text: string): RuntimeExpression | undefined {
  if (text === '$url') return { kind: 'url' };
  if (text === '$method') return { kind: 'method' };
  if (text === '$statusCode') return { kind: 'statusCode' };
  const m = /^\$(request|response)\.(?:(header|query|path)\.(.+)|body(?:#(\/.*)?)?)$/s.exec(text);
  if (!m) return undefined;
  const source = m[1] as 'request' | 'response';
  if (m[2] !== undefined) {
    if (source === 'response' && m[2] !== 'header') return undefined;
    if (m[2] === 'header' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(m[3]!)) return undefined;
    return { kind: 'parameter', source, in: m[2] as 'header' | 'query' | 'path', name: m[3]! };
  }
  if (m[4] !== undefined && /~[^01]|~$/.test(m[4])) return undefined;
  return { kind: 'body', source, pointer: m[4] === undefined ? [] : parsePointer(m[4]) };
}

/**
 * The runtime expressions of one value of a link (a parameter's or the request body's): a string
 * that starts with `$` is one expression, `{$…}` embeds one in a string, anything else is a
 * constant (no expression); inside objects and arrays every string counts. Each comes as written,
 * with its parse (undefined: not an expression of the grammar).
 */
export function runtimeExpressionsIn(value: unknown): Array<{ text: string; parsed: RuntimeExpression | undefined }> {
  if (typeof value === 'string') {
    const texts = value.startsWith('$') ? [value] : [...value.matchAll(/\{(\$[^{}]+)\}/g)].map((m) => m[1]!);
    return texts.map((text) => ({ text, parsed: parseRuntimeExpression(text) }));
  }
  if (Array.isArray(value)) return value.flatMap(runtimeExpressionsIn);
  if (isObject(value)) return Object.values(value).flatMap(runtimeExpressionsIn);
  return [];
}

/**
 * The alternatives of a schema, through `$ref`s: each branch of its `anyOf` or `oneOf` (as written,
 * a `$ref` or a schema) with its tokens relative to the schema, or the schema itself (tokens `[]`)
 * when it has neither.
 */
export function branchesOf(root: unknown, schema: unknown): Array<[unknown, (string | number)[]]> {
  const s = derefLenient<unknown>(root, schema);
  if (isObject(s))
    for (const k of ['anyOf', 'oneOf'] as const) {
      const list = s[k];
      if (Array.isArray(list) && list.length > 0) return list.map((branch, i) => [branch, [k, i]]);
    }
  return [[schema, []]];
}

/** The types a schema admits (`[]` when it sets no `type`). */
export function schemaTypes(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.map(String);
  return [];
}

/**
 * Where the node at `tokens` of the allOf-merged form of `root` is declared in `root` itself: the
 * path is followed through `$ref`s, and a step a schema lacks is looked for in its `allOf` members
 * (`…/PaymentCreated/properties/merchantId` → `…/OperationResultCore/allOf/1/properties/merchantId`).
 */
export function declaredAt(root: unknown, tokens: readonly string[]): (string | number)[] | undefined {
  const seen = new Set<string>();
  const find = (node: unknown, path: (string | number)[], rest: readonly string[]): (string | number)[] | undefined => {
    if (rest.length === 0) return path;
    const resolved = tryResolve<unknown>(root, node, path);
    if (!resolved) return undefined;
    const [here, at] = [resolved.node, resolved.tokens ?? path.map(String)];
    const key = `${at.join('/')}|${rest.length}`;
    if (seen.has(key) || typeof here !== 'object' || here === null) return undefined;
    seen.add(key);
    const [step, ...more] = rest as [string, ...string[]];
    if (step in here) {
      const found = find((here as Record<string, unknown>)[step], [...at, step], more);
      if (found) return found;
    }
    if (isObject(here) && Array.isArray(here.allOf)) {
      for (const [i, member] of here.allOf.entries()) {
        const found = find(member, [...at, 'allOf', i], rest);
        if (found) return found;
      }
    }
    return undefined;
  };
  return find(root, [], tokens);
}
