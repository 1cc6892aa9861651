// Shared helpers for the house-rule functions (not a rule itself: `.spectral.yaml` does not
// list it under `functions:`; Spectral's ruleset bundler follows this relative import).
//
// The house rules run with `resolved: false` on the BUNDLE (one file, internal `#/…` refs only):
// each object is then seen once, at the path where it physically lives, so a schema used ten
// times is reported once. Where a rule needs the target of a `$ref`, it calls `deref`.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
export { isObj };

/** Value at an internal JSON pointer (`#/a/b~1c`), or undefined. */
export function getPointer(root, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  let node = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = node[key];
  }
  return node;
}

/** Follows `$ref` chains inside the document; returns { node, path } of the final target. */
export function deref(root, node, path) {
  const seen = new Set();
  while (isObj(node) && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    const target = getPointer(root, node.$ref);
    if (target === undefined) break; // unresolved refs are Redocly's job (no-unresolved-refs)
    path = node.$ref.slice(2).split('/').map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
    node = target;
  }
  return { node, path };
}

/** Every operation under `paths`, `webhooks` and `components.pathItems`, with its path. */
export function* operations(root) {
  for (const section of ['paths', 'webhooks']) {
    if (!isObj(root[section])) continue;
    for (const [key, item] of Object.entries(root[section])) {
      yield* pathItemOperations(root, item, [section, key]);
    }
  }
  if (isObj(root.components?.pathItems)) {
    for (const [key, item] of Object.entries(root.components.pathItems)) {
      yield* pathItemOperations(root, item, ['components', 'pathItems', key]);
    }
  }
}

function* pathItemOperations(root, item, path) {
  if (!isObj(item) || item.$ref !== undefined) return; // a referenced path item is visited where it lives
  for (const method of HTTP_METHODS) {
    if (isObj(item[method])) yield { operation: item[method], path: [...path, method], pathItem: item };
  }
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_SINGLE = [
  'items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains',
  'propertyNames', 'not', 'if', 'then', 'else', 'contentSchema',
];
const SCHEMA_ARRAYS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];

/** Calls visit(schema, path, parent) for every schema object in the document (refs not followed). */
export function walkSchemas(root, visit) {
  const schema = (s, path, parent) => {
    if (!isObj(s)) return; // boolean schemas carry nothing to check
    visit(s, path, parent);
    if (s.$ref !== undefined) return;
    for (const k of SCHEMA_MAPS) {
      if (isObj(s[k])) for (const [name, sub] of Object.entries(s[k])) schema(sub, [...path, k, name], s);
    }
    for (const k of SCHEMA_SINGLE) {
      if (Array.isArray(s[k])) s[k].forEach((sub, i) => schema(sub, [...path, k, i], s));
      else schema(s[k], [...path, k], s);
    }
    for (const k of SCHEMA_ARRAYS) {
      if (Array.isArray(s[k])) s[k].forEach((sub, i) => schema(sub, [...path, k, i], s));
    }
  };
  const content = (c, path) => {
    if (!isObj(c)) return;
    for (const [mt, media] of Object.entries(c)) {
      if (!isObj(media)) continue;
      schema(media.schema, [...path, mt, 'schema']);
      if (isObj(media.encoding)) {
        for (const [name, enc] of Object.entries(media.encoding)) {
          headers(enc?.headers, [...path, mt, 'encoding', name, 'headers']);
        }
      }
    }
  };
  const paramOrHeader = (p, path) => {
    if (!isObj(p) || p.$ref !== undefined) return;
    schema(p.schema, [...path, 'schema']);
    content(p.content, [...path, 'content']);
  };
  const headers = (h, path) => {
    if (isObj(h)) for (const [name, hd] of Object.entries(h)) paramOrHeader(hd, [...path, name]);
  };
  const response = (r, path) => {
    if (!isObj(r) || r.$ref !== undefined) return;
    headers(r.headers, [...path, 'headers']);
    content(r.content, [...path, 'content']);
  };
  const requestBody = (b, path) => {
    if (isObj(b) && b.$ref === undefined) content(b.content, [...path, 'content']);
  };
  const pathItem = (item, path) => {
    if (!isObj(item) || item.$ref !== undefined) return;
    (item.parameters ?? []).forEach((p, i) => paramOrHeader(p, [...path, 'parameters', i]));
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!isObj(op)) continue;
      (op.parameters ?? []).forEach((p, i) => paramOrHeader(p, [...path, m, 'parameters', i]));
      requestBody(op.requestBody, [...path, m, 'requestBody']);
      if (isObj(op.responses)) {
        for (const [code, r] of Object.entries(op.responses)) response(r, [...path, m, 'responses', code]);
      }
      if (isObj(op.callbacks)) callbacks(op.callbacks, [...path, m, 'callbacks']);
    }
  };
  const callbacks = (cbs, path) => {
    for (const [name, cb] of Object.entries(cbs)) {
      if (isObj(cb) && cb.$ref === undefined) {
        for (const [expr, item] of Object.entries(cb)) pathItem(item, [...path, name, expr]);
      }
    }
  };

  for (const section of ['paths', 'webhooks']) {
    if (isObj(root[section])) for (const [k, item] of Object.entries(root[section])) pathItem(item, [section, k]);
  }
  const c = isObj(root.components) ? root.components : {};
  const each = (k, fn) => {
    if (isObj(c[k])) for (const [name, v] of Object.entries(c[k])) fn(v, ['components', k, name]);
  };
  each('schemas', (s, p) => schema(s, p));
  each('parameters', paramOrHeader);
  each('headers', paramOrHeader);
  each('responses', response);
  each('requestBodies', requestBody);
  each('pathItems', pathItem);
  each('callbacks', (cb, p) => callbacks({ [p.at(-1)]: cb }, p.slice(0, -1)));
}

/** Types a schema admits ([] when it sets no `type`). */
export function typesOf(s) {
  if (!isObj(s)) return [];
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type;
  return [];
}
