import {
  componentsOf,
  deref,
  isObject,
  isReference,
  type JsonObject,
  type OperationEntry,
  operations,
  parametersOf,
  parsePointer,
  propertiesOf,
  requiredOf,
  schemaTypes,
  subschemas,
} from '../../tooling/openapi/walker.js';

// A human changelog of the contract between two bundled documents: operations, their security,
// parameters, request bodies, response statuses and headers, fields, types, constraints and enum
// values added, removed or changed.
// It describes; it does not judge (generator/review/breaking.ts rates changes with Redocly's rules).
// A named schema (components/schemas) is compared once, under its own name, and listed with the
// operations that use it; an operation's entries cover only what is inline in it, so a change
// to a shared schema is not repeated for every operation that reaches it.

export type ChangeKind = 'added' | 'removed' | 'changed';
export type ChangeTopic =
  | 'operation'
  | 'security'
  | 'parameter'
  | 'request-body'
  | 'status'
  | 'header'
  | 'media-type'
  | 'field'
  | 'required'
  | 'type'
  | 'constraint'
  | 'enum'
  | 'schema'
  | 'composition';

export interface ChangelogEntry {
  scope: 'operation' | 'schema';
  /** operationId (else `METHOD /path`, or `webhook name`), or the schema's name. */
  subject: string;
  kind: ChangeKind;
  topic: ChangeTopic;
  /** The change in words, without the subject: "response 409 added". */
  text: string;
}

export interface Changelog {
  entries: ChangelogEntry[];
  /** Per operation subject: `METHOD /path` (head's, else base's). */
  operations: Record<string, string>;
  /** Per named schema: the operations whose requests and responses reach it (head's, else base's). */
  usage: Record<string, { requests: string[]; responses: string[] }>;
}

export function changelog(base: JsonObject, head: JsonObject): Changelog {
  const entries: ChangelogEntry[] = [];
  const ctx: Docs = { base, head };
  const baseOps = operationMap(base);
  const headOps = operationMap(head);
  const opLabels: Record<string, string> = {};

  for (const [id, h] of headOps) {
    opLabels[id] = endpoint(h);
    const b = baseOps.get(id);
    const emit = (kind: ChangeKind, topic: ChangeTopic, text: string) =>
      entries.push({ scope: 'operation', subject: id, kind, topic, text });
    if (!b) {
      emit('added', 'operation', 'operation added');
      continue;
    }
    diffOperation(ctx, b, h, emit);
  }
  for (const [id, b] of baseOps) {
    if (headOps.has(id)) continue;
    opLabels[id] = endpoint(b);
    entries.push({ scope: 'operation', subject: id, kind: 'removed', topic: 'operation', text: 'operation removed' });
  }

  const baseSchemas = namedSchemas(base);
  const headSchemas = namedSchemas(head);
  const names = [...new Set([...Object.keys(baseSchemas), ...Object.keys(headSchemas)])].sort();
  for (const name of names) {
    const emit = (kind: ChangeKind, topic: ChangeTopic, text: string) =>
      entries.push({ scope: 'schema', subject: name, kind, topic, text });
    if (!(name in baseSchemas)) emit('added', 'schema', 'schema added');
    else if (!(name in headSchemas)) emit('removed', 'schema', 'schema removed');
    else diffSchema(ctx, baseSchemas[name], headSchemas[name], { prefix: '', path: '' }, emit);
  }

  const usage: Changelog['usage'] = {};
  const subjects = new Set(entries.filter((e) => e.scope === 'schema').map((e) => e.subject));
  if (subjects.size > 0) {
    const [headUse, baseUse] = [schemaUsage(head), schemaUsage(base)];
    for (const name of subjects)
      usage[name] = headUse.get(name) ?? baseUse.get(name) ?? { requests: [], responses: [] };
  }
  return { entries, operations: opLabels, usage };
}

// ---------------------------------------------------------------------------------------------
// Operations

interface Docs {
  base: JsonObject;
  head: JsonObject;
}

type Emit = (kind: ChangeKind, topic: ChangeTopic, text: string) => void;

const endpoint = (e: OperationEntry) =>
  e.section === 'webhooks' ? `webhook ${e.key}` : `${e.method.toUpperCase()} ${e.key}`;

/** Operations by operationId (an operation without one by its endpoint). */
function operationMap(doc: JsonObject): Map<string, OperationEntry> {
  const out = new Map<string, OperationEntry>();
  for (const e of operations(doc))
    out.set(typeof e.operation.operationId === 'string' ? e.operation.operationId : endpoint(e), e);
  return out;
}

function diffOperation(ctx: Docs, b: OperationEntry, h: OperationEntry, emit: Emit): void {
  const { base, head } = ctx;
  if (endpoint(b) !== endpoint(h)) emit('changed', 'operation', `moved from \`${endpoint(b)}\` to \`${endpoint(h)}\``);
  if (Boolean(b.operation.deprecated) !== Boolean(h.operation.deprecated)) {
    emit('changed', 'operation', h.operation.deprecated ? 'deprecated' : 'no longer deprecated');
  }

  // security: the requirements the operation accepts (its own, else the document's)
  const [bs, hs] = [securityOf(base, b), securityOf(head, h)];
  for (const r of hs) if (!bs.has(r)) emit('added', 'security', `accepts ${r}`);
  for (const r of bs) if (!hs.has(r)) emit('removed', 'security', `no longer accepts ${r}`);

  // parameters, by location and name
  const params = (doc: JsonObject, e: OperationEntry) =>
    new Map(parametersOf(doc, e).map((p) => [`${p.in} parameter \`${p.name}\``, p]));
  const [bp, hp] = [params(base, b), params(head, h)];
  for (const [key, p] of hp) {
    const old = bp.get(key);
    if (!old) emit('added', 'parameter', `${key} added (${p.required ? 'required' : 'optional'})`);
    else {
      if (Boolean(old.required) !== Boolean(p.required))
        emit('changed', 'required', `${key} ${p.required ? 'became required' : 'became optional'}`);
      diffSchema(ctx, old.schema, p.schema, { prefix: key, path: '' }, emit);
    }
  }
  for (const key of bp.keys()) if (!hp.has(key)) emit('removed', 'parameter', `${key} removed`);

  // request body
  const bBody = derefOr(base, b.operation.requestBody);
  const hBody = derefOr(head, h.operation.requestBody);
  if (!bBody && hBody)
    emit('added', 'request-body', `request body added (${hBody.required ? 'required' : 'optional'})`);
  else if (bBody && !hBody) emit('removed', 'request-body', 'request body removed');
  else if (bBody && hBody) {
    if (Boolean(bBody.required) !== Boolean(hBody.required))
      emit('changed', 'required', `request body ${hBody.required ? 'became required' : 'became optional'}`);
    diffContent(ctx, bBody.content, hBody.content, 'request', emit);
  }

  // responses, by status
  const bRes = isObject(b.operation.responses) ? (b.operation.responses as JsonObject) : {};
  const hRes = isObject(h.operation.responses) ? (h.operation.responses as JsonObject) : {};
  for (const status of Object.keys(hRes)) {
    if (!(status in bRes)) {
      emit('added', 'status', `response ${status} added`);
      continue;
    }
    const [bResponse, hResponse] = [derefOr(base, bRes[status]), derefOr(head, hRes[status])];
    diffHeaders(ctx, bResponse?.headers, hResponse?.headers, `response ${status}`, emit);
    diffContent(ctx, bResponse?.content, hResponse?.content, `response ${status}`, emit);
  }
  for (const status of Object.keys(bRes))
    if (!(status in hRes)) emit('removed', 'status', `response ${status} removed`);
}

/** `` `basicAuth` ``, `` `a` + `b` `` (both at once), `` `oauth` (read, write) ``, `anonymous access` for `{}`. */
function securityOf(doc: JsonObject, e: OperationEntry): Set<string> {
  const requirements = Array.isArray(e.operation.security)
    ? e.operation.security
    : Array.isArray(doc.security)
      ? doc.security
      : [];
  const scheme = ([name, scopes]: [string, unknown]) =>
    `\`${name}\`${Array.isArray(scopes) && scopes.length > 0 ? ` (${scopes.join(', ')})` : ''}`;
  return new Set(
    requirements.filter(isObject).map(
      (r) =>
        Object.entries(r)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(scheme)
          .join(' + ') || 'anonymous access',
    ),
  );
}

/** Response headers by name (case-insensitive, as HTTP has them). */
function diffHeaders(ctx: Docs, b: unknown, h: unknown, prefix: string, emit: Emit): void {
  const headers = (doc: JsonObject, node: unknown) =>
    new Map(
      Object.entries(isObject(node) ? node : {}).map(([name, header]) => [
        name.toLowerCase(),
        { name, header: derefOr(doc, header) ?? {} },
      ]),
    );
  const [bh, hh] = [headers(ctx.base, b), headers(ctx.head, h)];
  for (const [key, { name, header }] of hh) {
    const label = `${prefix} header \`${name}\``;
    const old = bh.get(key);
    if (!old) emit('added', 'header', `${label} added (${header.required ? 'always sent' : 'optional'})`);
    else {
      if (Boolean(old.header.required) !== Boolean(header.required))
        emit('changed', 'required', `${label} ${header.required ? 'became always sent' : 'became optional'}`);
      diffSchema(ctx, old.header.schema, header.schema, { prefix: label, path: '' }, emit);
    }
  }
  for (const [key, { name }] of bh) if (!hh.has(key)) emit('removed', 'header', `${prefix} header \`${name}\` removed`);
}

function diffContent(ctx: Docs, b: unknown, h: unknown, prefix: string, emit: Emit): void {
  const bc = isObject(b) ? b : {};
  const hc = isObject(h) ? h : {};
  const shared = Object.keys(hc).filter((m) => m in bc);
  for (const m of Object.keys(hc)) if (!(m in bc)) emit('added', 'media-type', `${prefix} media type \`${m}\` added`);
  for (const m of Object.keys(bc))
    if (!(m in hc)) emit('removed', 'media-type', `${prefix} media type \`${m}\` removed`);
  for (const m of shared) {
    const label = shared.length > 1 ? `${prefix} (${m})` : prefix;
    diffSchema(
      ctx,
      (bc[m] as JsonObject | undefined)?.schema,
      (hc[m] as JsonObject | undefined)?.schema,
      { prefix: label, path: '' },
      emit,
    );
  }
}

const derefOr = (doc: JsonObject, node: unknown): JsonObject | undefined => {
  if (node === undefined) return undefined;
  const target = deref<unknown>(doc, node);
  return isObject(target) ? target : undefined;
};

// ---------------------------------------------------------------------------------------------
// Schemas

const namedSchemas = (doc: JsonObject): JsonObject => componentsOf(doc, 'schemas');

/** `Payment` for `#/components/schemas/Payment`, else the $ref itself. */
function refName(node: unknown): string | undefined {
  if (!isReference(node)) return undefined;
  const tokens = node.$ref.startsWith('#') ? parsePointer(node.$ref) : [];
  return tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas' ? tokens[2] : node.$ref;
}

/** A schema in a few words: `` `Payment` ``, `string (date-time)`, `object`, `any`. */
function describe(node: unknown): string {
  const ref = refName(node);
  if (ref !== undefined) return `\`${ref}\``;
  if (typeof node === 'boolean') return node ? 'any' : 'nothing';
  if (!isObject(node)) return 'none';
  const types = schemaTypes(node);
  const fmt = typeof node.format === 'string' ? ` (${node.format})` : '';
  if (types.length > 0) return types.join(' | ') + fmt;
  if (isObject(node.properties)) return 'object';
  for (const k of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(node[k])) return k;
  return `any${fmt}`;
}

/** The validation keywords that narrow or widen what a value may be (format is part of the type). */
const CONSTRAINTS = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;

interface Where {
  /** `request`, `response 200`, `query parameter \`limit\``, or '' for a named schema. */
  prefix: string;
  /** Field path inside the schema: `order.items[].sku`, '' for the schema itself. */
  path: string;
}

/** "request field `a.b`", "response 200 body", "field `a`", "" (a named schema itself). */
function subject(where: Where): string {
  if (where.path) return `${where.prefix ? `${where.prefix} ` : ''}field \`${where.path}\``;
  if (!where.prefix) return '';
  return /parameter|header/.test(where.prefix) ? where.prefix : `${where.prefix} body`;
}
const withSubject = (where: Where, text: string) => (subject(where) ? `${subject(where)}: ${text}` : text);
const child = (where: Where, name: string): Where => ({
  prefix: where.prefix,
  path: where.path ? `${where.path}.${name}` : name,
});
const value = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/**
 * The schema's own fields: its properties and those of its inline allOf members (the contract's
 * composition shape puts properties there), and the named schemas it includes through allOf.
 */
function ownFields(schema: JsonObject): { properties: Set<string>; required: Set<string>; bases: Set<string> } {
  const properties = new Set<string>();
  const required = new Set<string>();
  const bases = new Set<string>();
  const visit = (s: JsonObject) => {
    if (isObject(s.properties)) for (const k of Object.keys(s.properties)) properties.add(k);
    if (Array.isArray(s.required)) for (const r of s.required) required.add(String(r));
    if (Array.isArray(s.allOf)) {
      for (const m of s.allOf) {
        const ref = refName(m);
        if (ref !== undefined) bases.add(ref);
        else if (isObject(m)) visit(m);
      }
    }
  };
  visit(schema);
  return { properties, required, bases };
}

function diffSchema(ctx: Docs, b: unknown, h: unknown, where: Where, emit: Emit): void {
  if (b === undefined && h === undefined) return;
  const [bRef, hRef] = [refName(b), refName(h)];
  if (bRef !== undefined || hRef !== undefined || !isObject(b) || !isObject(h)) {
    // a named schema is compared under its own name; here only which one is used matters
    if (bRef !== hRef || (bRef === undefined && describe(b) !== describe(h))) {
      emit('changed', 'type', withSubject(where, `schema changed from ${describe(b)} to ${describe(h)}`));
    }
    return;
  }
  if (describe(b) !== describe(h))
    emit('changed', 'type', withSubject(where, `type changed from ${describe(b)} to ${describe(h)}`));

  const enumOf = (s: JsonObject): unknown[] | undefined =>
    Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : undefined;
  const [bEnum, hEnum] = [enumOf(b), enumOf(h)];
  if (bEnum && hEnum) {
    const has = (list: unknown[], v: unknown) => list.some((x) => JSON.stringify(x) === JSON.stringify(v));
    for (const v of hEnum)
      if (!has(bEnum, v)) emit('added', 'enum', withSubject(where, `enum value ${value(v)} added`));
    for (const v of bEnum)
      if (!has(hEnum, v)) emit('removed', 'enum', withSubject(where, `enum value ${value(v)} removed`));
  } else if (bEnum || hEnum) {
    emit(
      'changed',
      'enum',
      withSubject(where, hEnum ? `now limited to ${hEnum.map(value).join(', ')}` : 'no longer limited to an enum'),
    );
  }

  for (const keyword of CONSTRAINTS) {
    const [bv, hv] = [b[keyword], h[keyword]];
    if (JSON.stringify(bv) === JSON.stringify(hv)) continue;
    const text =
      bv === undefined
        ? `${keyword} ${value(hv)} added`
        : hv === undefined
          ? `${keyword} ${value(bv)} removed`
          : `${keyword} ${value(bv)} → ${value(hv)}`;
    emit('changed', 'constraint', withSubject(where, text));
  }

  // Fields as a client sees them (inherited through allOf $refs too), reported only where they are
  // the schema's own on either side: an inherited field's change belongs to the schema it is in,
  // and a field moved between a schema and its allOf members is no change.
  const [bo, ho] = [ownFields(b), ownFields(h)];
  const [bProps, hProps] = [propertiesOf(ctx.base, b), propertiesOf(ctx.head, h)];
  const [bReq, hReq] = [requiredOf(ctx.base, b), requiredOf(ctx.head, h)];
  for (const base of ho.bases)
    if (!bo.bases.has(base)) emit('added', 'composition', withSubject(where, `now includes \`${base}\` (allOf)`));
  for (const base of bo.bases)
    if (!ho.bases.has(base))
      emit('removed', 'composition', withSubject(where, `no longer includes \`${base}\` (allOf)`));
  const own = (name: string) =>
    bo.properties.has(name) || ho.properties.has(name) || bo.required.has(name) || ho.required.has(name);
  for (const [name, sub] of hProps) {
    if (!own(name)) continue;
    const at = child(where, name);
    if (!bProps.has(name)) {
      emit('added', 'field', `${subject(at)} added (${hReq.has(name) ? 'required' : 'optional'}, ${describe(sub)})`);
      continue;
    }
    if (bReq.has(name) !== hReq.has(name))
      emit('changed', 'required', `${subject(at)} became ${hReq.has(name) ? 'required' : 'optional'}`);
    diffSchema(ctx, bProps.get(name), sub, at, emit);
  }
  for (const name of bProps.keys())
    if (own(name) && !hProps.has(name)) emit('removed', 'field', `${subject(child(where, name))} removed`);

  if (b.items !== undefined || h.items !== undefined)
    diffSchema(ctx, b.items, h.items, { prefix: where.prefix, path: `${where.path}[]` }, emit);

  for (const k of ['oneOf', 'anyOf'] as const) {
    const refs = (s: JsonObject) =>
      new Set(
        (Array.isArray(s[k]) ? (s[k] as unknown[]) : []).map(refName).filter((r): r is string => r !== undefined),
      );
    const [br, hr] = [refs(b), refs(h)];
    for (const r of hr) if (!br.has(r)) emit('added', 'composition', withSubject(where, `\`${r}\` added to ${k}`));
    for (const r of br)
      if (!hr.has(r)) emit('removed', 'composition', withSubject(where, `\`${r}\` removed from ${k}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Which operations use a named schema

/** Named schema → operations whose request (body, parameters) or responses reach it through $refs. */
function schemaUsage(doc: JsonObject): Map<string, { requests: string[]; responses: string[] }> {
  /** The named schemas reachable from a node (schemas only; other objects are searched for `schema`). */
  const collect = (node: unknown, into: Set<string>): void => {
    if (!isObject(node)) return;
    const ref = refName(node);
    if (ref !== undefined) {
      if (!ref.startsWith('#') && !into.has(ref)) {
        into.add(ref);
        const schema = namedSchemas(doc)[ref];
        for (const [sub] of isObject(schema) ? subschemas(schema) : []) collect(sub, into);
      }
      return;
    }
    for (const [sub] of subschemas(node)) collect(sub, into);
  };
  const fromContent = (content: unknown, into: Set<string>) => {
    if (isObject(content)) for (const media of Object.values(content)) if (isObject(media)) collect(media.schema, into);
  };
  const add = (name: string, id: string, side: 'requests' | 'responses') => {
    const use = out.get(name) ?? { requests: [], responses: [] };
    if (!use[side].includes(id)) use[side].push(id);
    out.set(name, use);
  };
  const out = new Map<string, { requests: string[]; responses: string[] }>();
  for (const [id, e] of operationMap(doc)) {
    const req = new Set<string>();
    for (const p of parametersOf(doc, e)) collect(p.schema, req);
    fromContent(derefOr(doc, e.operation.requestBody)?.content, req);
    const res = new Set<string>();
    for (const r of Object.values(isObject(e.operation.responses) ? e.operation.responses : {}))
      fromContent(derefOr(doc, r)?.content, res);
    for (const name of req) add(name, id, 'requests');
    for (const name of res) add(name, id, 'responses');
  }
  return out;
}
