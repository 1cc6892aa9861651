// The Prism mock of the contract, as front-end teams use it (`npm run mock`), exercised for every
// operation under `paths` (derived from the bundle, so a new operation is covered automatically):
//   (a) every documented request example is accepted, with credentials of a scheme the operation
//       accepts, and answered with the documented 2xx and a body valid against its schema;
//   (b) a request that breaks a documented limit is rejected (4xx) and `sl-violations` names the field;
//   (c) a request without credentials, or with a scheme the operation does not accept, gets 401;
// plus response selection with `Prefer: code=…, example=…` and `Prefer: dynamic=true`.
// Prism runs on the bundle of the current contract (globalSetup), on a free port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deref,
  escapeToken,
  isObject,
  locate as locateIn,
  type OperationEntry,
  operations,
} from '../../tooling/openapi/walker.js';
import { type Json, type JsonObject, loadBundle } from '../support/openapi.js';
import { type PrismServer, sharedPrism, startPrism } from '../support/prism.js';
import { createSchemaValidator, declared, formatErrors } from '../support/schema.js';

const doc = loadBundle();
const validator = createSchemaValidator(doc);
const ops = operations(doc, ['paths']);

// Two mocks: the run's shared one (examples, the default), and one of this file's own in dynamic mode
// (`-d`, as `npm run mock -- --dynamic`), which spends most of its time generating large bodies.
const prism = { baseUrl: await sharedPrism() };
let dynamicPrism: PrismServer | undefined;
beforeAll(async () => {
  dynamicPrism = await startPrism({ dynamic: true });
});
afterAll(async () => {
  await dynamicPrism?.stop();
});

// ---------------------------------------------------------------------------------------------
// Reading the contract

const clone = <T>(v: T): T => structuredClone(v);

const locate = (ptr: string) => locateIn(doc, ptr);

const opId = (op: OperationEntry) => String(op.operation.operationId);
const pathItemAt = (op: OperationEntry) => op.pointer.slice(0, op.pointer.lastIndexOf('/'));

interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schemaAt: string;
  schema: JsonObject;
  example: Json | undefined;
}

function paramsOf(op: OperationEntry): Param[] {
  const byKey = new Map<string, Param>();
  const collect = (listAt: string) => {
    const list = locate(listAt).node;
    if (!Array.isArray(list)) return;
    list.forEach((_, i) => {
      const { node, pointer: at } = locate(`${listAt}/${i}`);
      const p = node as JsonObject;
      const schema = locate(`${at}/schema`);
      const s = schema.node as JsonObject;
      const named = Object.keys((p.examples ?? {}) as JsonObject).map(
        (k) => (locate(`${at}/examples/${escapeToken(k)}`).node as JsonObject).value,
      );
      const example = p.example ?? named[0] ?? (Array.isArray(s.examples) ? s.examples[0] : undefined) ?? s.example;
      // Operation-level parameters override path-item ones with the same name and location.
      byKey.set(`${p.in}:${p.name}`, {
        name: String(p.name),
        in: p.in as Param['in'],
        required: p.required === true,
        schemaAt: schema.pointer,
        schema: s,
        example,
      });
    });
  };
  collect(`${pathItemAt(op)}/parameters`);
  collect(`${op.pointer}/parameters`);
  return [...byKey.values()];
}

interface BodyExample {
  name: string;
  mediaType: string;
  schemaAt: string;
  value: Json;
}

function requestExamples(op: OperationEntry): BodyExample[] {
  if (!op.operation.requestBody) return [];
  const body = locate(`${op.pointer}/requestBody`);
  const out: BodyExample[] = [];
  for (const [mediaType, media] of Object.entries(((body.node as JsonObject).content ?? {}) as JsonObject)) {
    const mediaAt = `${body.pointer}/content/${escapeToken(mediaType)}`;
    const schemaAt = locate(`${mediaAt}/schema`).pointer;
    const m = media as JsonObject;
    if (m.example !== undefined) out.push({ name: 'example', mediaType, schemaAt, value: m.example });
    for (const key of Object.keys((m.examples ?? {}) as JsonObject)) {
      const ex = locate(`${mediaAt}/examples/${escapeToken(key)}`).node as JsonObject;
      out.push({ name: key, mediaType, schemaAt, value: ex.value as Json });
    }
  }
  return out;
}

/** Prism answers a valid request with the lowest documented 2xx. */
function successStatus(op: OperationEntry): number {
  const codes = Object.keys(op.operation.responses ?? {})
    .filter((c) => /^2\d\d$/.test(c))
    .map(Number)
    .sort((a, b) => a - b);
  if (codes.length === 0) throw new Error(`${opId(op)} documents no 2xx response`);
  return codes[0];
}

/** Prism answers an invalid request with the operation's 422 if it documents one, else its 400. */
function invalidStatus(op: OperationEntry): number {
  const responses = op.operation.responses ?? {};
  return '422' in responses ? 422 : '400' in responses ? 400 : 422;
}

function responseSchemaAt(op: OperationEntry, status: number): string | undefined {
  const { node, pointer: at } = locate(`${op.pointer}/responses/${status}`);
  const content = ((node as JsonObject).content ?? {}) as JsonObject;
  const mediaType = Object.keys(content).find((t) => /json/.test(t));
  return mediaType ? locate(`${at}/content/${escapeToken(mediaType)}/schema`).pointer : undefined;
}

// ---------------------------------------------------------------------------------------------
// Credentials: any secret works, Prism only checks that the scheme is one the operation accepts.

const securitySchemes = ((doc.components as JsonObject).securitySchemes ?? {}) as JsonObject;

interface Credentials {
  headers: Record<string, string>;
  query: Record<string, string>;
}

function credentialsFor(scheme: string): Credentials {
  const s = locate(`#/components/securitySchemes/${escapeToken(scheme)}`).node as JsonObject;
  const out: Credentials = { headers: {}, query: {} };
  if (s.type === 'http' && String(s.scheme).toLowerCase() === 'basic') {
    out.headers.Authorization = `Basic ${Buffer.from('merchant:key').toString('base64')}`;
  } else if (s.type === 'http' || s.type === 'oauth2' || s.type === 'openIdConnect') {
    out.headers.Authorization = 'Bearer test-token';
  } else if (s.type === 'apiKey') {
    if (s.in === 'header') out.headers[String(s.name)] = 'test-api-key';
    else if (s.in === 'query') out.query[String(s.name)] = 'test-api-key';
    else out.headers.Cookie = `${String(s.name)}=test-api-key`;
  } else {
    throw new Error(`no test credentials for security scheme ${scheme} (${String(s.type)})`);
  }
  return out;
}

/** Each security requirement of the operation (alternatives), as the schemes it combines. */
function requirementsOf(op: OperationEntry): string[][] {
  const reqs = (op.operation.security ?? doc.security ?? []) as JsonObject[];
  return reqs.map((r) => Object.keys(r));
}

function credentialsForRequirement(schemes: string[]): Credentials {
  const out: Credentials = { headers: {}, query: {} };
  for (const s of schemes) {
    const c = credentialsFor(s);
    Object.assign(out.headers, c.headers);
    Object.assign(out.query, c.query);
  }
  return out;
}

const noCredentials: Credentials = { headers: {}, query: {} };

// ---------------------------------------------------------------------------------------------
// Requests

interface Call {
  op: OperationEntry;
  params?: Record<string, Json | undefined>; // `${in}:${name}` → value (undefined: leave out)
  body?: { mediaType: string; value: Json };
  credentials: Credentials;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
  violations: { location: string[]; code: string | number; message: string }[];
}

function exampleParams(op: OperationEntry): Record<string, Json | undefined> {
  const out: Record<string, Json | undefined> = {};
  for (const p of paramsOf(op)) {
    if (p.example === undefined && p.required)
      throw new Error(`${opId(op)}: required ${p.in} parameter ${p.name} has no example`);
    if (p.example !== undefined) out[`${p.in}:${p.name}`] = p.example;
  }
  return out;
}

/**
 * fetch, sent again once when the connection it reused was reset: Prism closes a kept-alive socket
 * after 5 s idle, and a worker whose event loop was busy longer than fetch's margin sends on one that
 * is closing. Prism keeps no state, so a second send is the same request.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  // Dynamic mode makes up whole lists: slow on a loaded machine, though well within the test's time.
  const send = () => fetch(url, { ...init, signal: AbortSignal.timeout(25_000) });
  try {
    return await send();
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
    return send();
  }
}

async function send(call: Call, server = prism): Promise<Answer> {
  if (!server) throw new Error('Prism is not running');
  const params = call.params ?? exampleParams(call.op);
  let path = call.op.key;
  const query = new URLSearchParams(call.credentials.query);
  const headers: Record<string, string> = { Accept: 'application/json', ...call.credentials.headers, ...call.headers };
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const [where, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(values.join(',')));
    else if (where === 'query') values.forEach((v) => query.append(name, v));
    else if (where === 'header') headers[name] = values.join(',');
    else if (where === 'cookie')
      headers.Cookie = [headers.Cookie, `${name}=${values.join(',')}`].filter(Boolean).join('; ');
  }
  let body: string | undefined;
  if (call.body) {
    headers['Content-Type'] = call.body.mediaType;
    body =
      call.body.mediaType === 'application/x-www-form-urlencoded'
        ? new URLSearchParams(Object.entries(call.body.value as JsonObject).map(([k, v]) => [k, String(v)])).toString()
        : JSON.stringify(call.body.value);
  }
  const qs = query.toString();
  const res = await fetchOnce(`${server.baseUrl}${path}${qs ? `?${qs}` : ''}`, {
    method: call.op.method.toUpperCase(),
    headers,
    body,
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = text ? (JSON.parse(text) as Json) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    headers: res.headers,
    text,
    json,
    violations: parseViolations(res.headers.get('sl-violations')),
  };
}

/** `sl-violations` is a JSON array, or `Too many violations! <first 8 KB of it>` when it is long. */
function parseViolations(header: string | null): Answer['violations'] {
  if (!header) return [];
  try {
    return JSON.parse(header) as Answer['violations'];
  } catch {
    return [{ location: [], code: 'unparsed', message: header }];
  }
}

const describeAnswer = (a: Answer) =>
  `${a.status} sl-violations=${JSON.stringify(a.violations)} body=${a.text.slice(0, 300)}`;

/** A request that Prism accepts: the first request example (or none), example parameters, first accepted scheme. */
function validCall(op: OperationEntry, extra: Partial<Call> = {}): Call {
  const [example] = requestExamples(op);
  return {
    op,
    body: example ? { mediaType: example.mediaType, value: clone(example.value) } : undefined,
    credentials: credentialsForRequirement(requirementsOf(op)[0] ?? []),
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// Breaking documented limits, derived from the schemas

interface Breach {
  /** what is broken, for the test name */
  label: string;
  /** where the offending value is: ['body', 'amount', 'currency'] or ['query', 'Page'] */
  path: (string | number)[];
  call: Call;
}

type BreakingKind = 'required' | 'maxLength' | 'enum' | 'integer' | 'maximum' | 'minimum' | 'pattern' | 'format';

/** The schema nodes that apply to a value, through $ref and allOf (unconditional only). */
function applicable(schema: Json, seen = new Set<Json>()): JsonObject[] {
  const s = deref<Json>(doc, schema);
  if (!isObject(s) || seen.has(s)) return [];
  seen.add(s);
  return [s, ...((s.allOf ?? []) as Json[]).flatMap((b) => applicable(b, seen))];
}

/** Values that break one keyword of the schemas applying to `value`, one per kind. */
function breakingValues(schemas: JsonObject[], value: Json): { kind: BreakingKind; value: Json; what: string }[] {
  const out: { kind: BreakingKind; value: Json; what: string }[] = [];
  const first = <K extends string>(key: K) => schemas.find((s) => s[key] !== undefined)?.[key];
  const maxLength = first('maxLength');
  if (typeof value === 'string' && typeof maxLength === 'number')
    out.push({
      kind: 'maxLength',
      value: 'x'.repeat(maxLength + 1),
      what: `${maxLength + 1} characters (maxLength ${maxLength})`,
    });
  const enumValues = first('enum');
  if (Array.isArray(enumValues) && enumValues.every((e) => typeof e === 'string'))
    out.push({ kind: 'enum', value: 'NOT_IN_ENUM', what: 'a value not in the enum' });
  if (schemas.some((s) => s.type === 'integer') && typeof value === 'number')
    out.push({ kind: 'integer', value: value + 0.5, what: `non-integer ${value + 0.5}` });
  const maximum = first('maximum');
  if (typeof maximum === 'number' && typeof value === 'number')
    out.push({ kind: 'maximum', value: maximum + 1, what: `${maximum + 1} (maximum ${maximum})` });
  const minimum = first('minimum');
  if (typeof minimum === 'number' && typeof value === 'number')
    out.push({ kind: 'minimum', value: minimum - 1, what: `${minimum - 1} (minimum ${minimum})` });
  if (typeof value === 'string' && first('pattern') !== undefined)
    out.push({ kind: 'pattern', value: `${value}#`, what: `"${value}#" (pattern)` });
  const format = first('format');
  if (typeof value === 'string' && typeof format === 'string' && /date|uri|email|uuid/.test(format))
    out.push({ kind: 'format', value: 'not a valid value', what: `not a ${format}` });
  return out;
}

/** Every single-point breach of a body example: a dropped required member, or a member value over a limit. */
function bodyBreaches(
  schema: Json,
  value: Json,
  path: (string | number)[] = [],
): { kind: BreakingKind; path: (string | number)[]; value: Json | undefined; what: string }[] {
  const out: { kind: BreakingKind; path: (string | number)[]; value: Json | undefined; what: string }[] = [];
  if (Array.isArray(value)) {
    const items = applicable(schema)
      .map((s) => s.items)
      .filter((i): i is Json => i !== undefined);
    if (items.length && value.length) out.push(...bodyBreaches({ allOf: items } as Json, value[0], [...path, 0]));
    return out;
  }
  if (!isObject(value)) return out;
  const d = declared(doc, schema);
  for (const name of d.required)
    if (name in value)
      out.push({ kind: 'required', path: [...path, name], value: undefined, what: `without required ${name}` });
  for (const [name, member] of Object.entries(value)) {
    const subs = d.properties.get(name) ?? [];
    const schemas = subs.flatMap((s) => applicable(s));
    for (const b of breakingValues(schemas, member))
      out.push({ kind: b.kind, path: [...path, name], value: b.value, what: b.what });
    if (isObject(member) || Array.isArray(member)) {
      for (const sub of subs) out.push(...bodyBreaches(sub, member, [...path, name]));
    }
  }
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  const copy = clone(root);
  let node = copy as JsonObject;
  for (const key of path.slice(0, -1)) node = (node as unknown as Record<string | number, Json>)[key] as JsonObject;
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[String(last)];
  } else (node as unknown as Record<string | number, Json>)[last] = value;
  return copy;
}

/** One breach per kind of broken keyword (the first in document order), checked invalid with Ajv. */
function breachesOf(op: OperationEntry): Breach[] {
  const out: Breach[] = [];
  const base = validCall(op);
  const params = exampleParams(op);
  // Body (first request example)
  const [example] = requestExamples(op);
  if (example) {
    const seen = new Set<BreakingKind>();
    for (const b of bodyBreaches({ $ref: example.schemaAt }, example.value)) {
      if (seen.has(b.kind)) continue;
      const broken = setAt(example.value, b.path, b.value);
      // An emptied body is a missing body for Prism ("Body parameter is required"), not a breach of the field.
      if (isObject(broken) && Object.keys(broken).length === 0) continue;
      if (validator.validate(example.schemaAt, broken).length === 0) continue; // another branch admits it
      seen.add(b.kind);
      const where = b.path.join('.');
      out.push({
        label: `body ${where}: ${b.what}`,
        path: ['body', ...b.path],
        call: { ...base, params, body: { mediaType: example.mediaType, value: broken } },
      });
    }
  }
  // Parameters
  for (const p of paramsOf(op)) {
    const schemas = applicable({ $ref: p.schemaAt });
    const value = p.example ?? (schemas.some((s) => s.type === 'integer' || s.type === 'number') ? 1 : 'x');
    for (const b of breakingValues(schemas, value)) {
      if (validator.validate(p.schemaAt, b.value).length === 0) continue; // not a breach after all
      out.push({
        label: `${p.in} ${p.name}: ${b.what}`,
        path: [p.in, p.name],
        call: { ...base, params: { ...params, [`${p.in}:${p.name}`]: b.value } },
      });
    }
  }
  return out;
}

/** True when a violation points at the offending field (Prism lower-cases parameter names). */
function namesField(violations: Answer['violations'], path: (string | number)[]): boolean {
  const field = String(path[path.length - 1]).toLowerCase();
  const want = ['request', ...path.map((p) => String(p).toLowerCase())].join('.');
  const parent = ['request', ...path.slice(0, -1).map((p) => String(p).toLowerCase())].join('.');
  return violations.some((v) => {
    const at = v.location.map((l) => String(l).toLowerCase()).join('.');
    // the value itself, or its parent naming it (required, if/then)
    return (
      at === want || at.startsWith(`${want}.`) || (at === parent && v.message.toLowerCase().includes(`'${field}'`))
    );
  });
}

// ---------------------------------------------------------------------------------------------

describe('the contract as Prism needs it', () => {
  it('declares jsonSchemaDialect 2020-12 (with the OAS base dialect Prism silently stops validating requests)', () => {
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
  });
  it('has operations under paths', () => {
    expect(ops.length).toBeGreaterThan(0);
  });
});

describe('paths are served without the /api/v2 of the server URLs', () => {
  const op = ops.find((o) => !o.operation.requestBody && !o.key.includes('{')) ?? ops[0];
  it(`${op.method.toUpperCase()} ${op.key} answers, /api/v2${op.key} is not found`, async () => {
    const base = new URL(String((doc.servers as JsonObject[])[0].url)).pathname.replace(/\/$/, '');
    expect(base).toBe('/api/v2');
    const ok = await send(validCall(op));
    expect(ok.status, describeAnswer(ok)).toBe(successStatus(op));
    const prefixed = await send(validCall({ ...op, key: `${base}${op.key}` }));
    expect(prefixed.status).toBe(404);
    expect(prefixed.text).toContain('NO_PATH_MATCHED_ERROR');
  });
});

describe.concurrent.each(ops.map((op) => [opId(op), op] as const))('%s', (_id, op) => {
  const status = successStatus(op);
  const schemaAt = responseSchemaAt(op, status);
  const examples = requestExamples(op);
  const bodyRequired = (locate(`${op.pointer}/requestBody`).node as JsonObject | undefined)?.required === true;

  if (bodyRequired) {
    it('has a request example (it takes a body)', () => {
      expect(examples.length).toBeGreaterThan(0);
    });
  }

  const exampleCases: [string, BodyExample | undefined][] = examples.length
    ? examples.map((e) => [`${e.mediaType} "${e.name}"`, e])
    : [['parameters only', undefined]];
  it.each(exampleCases)(`(a) accepts the request example %s with ${status}`, async (_name, example) => {
    const answer = await send(
      validCall(op, example ? { body: { mediaType: example.mediaType, value: clone(example.value) } } : {}),
    );
    expect(answer.status, describeAnswer(answer)).toBe(status);
    // No request violation, and Prism found its own response valid too.
    expect(answer.violations).toEqual([]);
    if (schemaAt) {
      expect(answer.headers.get('content-type')).toMatch(/json/);
      const errors = validator.validate(schemaAt, answer.json);
      expect(errors, formatErrors(errors)).toEqual([]);
    } else {
      expect(answer.text).toBe('');
    }
  });

  it.each(requirementsOf(op).map((r) => [r.join('+'), r] as const))(
    '(a) accepts credentials of %s',
    async (_name, schemes) => {
      const answer = await send(validCall(op, { credentials: credentialsForRequirement(schemes) }));
      expect(answer.status, describeAnswer(answer)).toBe(status);
    },
  );

  const breaches = breachesOf(op);
  it('(b) has a documented limit to break', () => {
    expect(breaches.length).toBeGreaterThan(0);
  });
  it.each(breaches.map((b) => [b.label, b] as const))(
    `(b) rejects %s with ${invalidStatus(op)}`,
    async (_label, breach) => {
      const answer = await send(breach.call);
      expect(answer.status, describeAnswer(answer)).toBeGreaterThanOrEqual(400);
      expect(answer.status, describeAnswer(answer)).toBeLessThan(500);
      expect(answer.status, describeAnswer(answer)).toBe(invalidStatus(op));
      expect(
        namesField(answer.violations, breach.path),
        `sl-violations does not name ${breach.path.join('.')}: ${JSON.stringify(answer.violations)}`,
      ).toBe(true);
    },
  );

  it('(c) rejects a request without credentials with 401', async () => {
    const answer = await send(validCall(op, { credentials: noCredentials }));
    expect(answer.status, describeAnswer(answer)).toBe(401);
    expect(answer.violations.some((v) => v.code === 401)).toBe(true);
    const at401 = responseSchemaAt(op, 401);
    if (at401) expect(formatErrors(validator.validate(at401, answer.json))).toBe('');
  });

  const accepted = new Set(requirementsOf(op).flat());
  const refused = Object.keys(securitySchemes).filter((s) => !accepted.has(s));
  if (refused.length) {
    it.each(refused)('(c) rejects credentials of %s, a scheme it does not accept, with 401', async (scheme) => {
      const answer = await send(validCall(op, { credentials: credentialsFor(scheme) }));
      expect(answer.status, describeAnswer(answer)).toBe(401);
    });
  }

  if (schemaAt) {
    it('dynamic mode (-d) generates a body valid against the schema', async () => {
      const answer = await send(validCall(op), dynamicPrism);
      expect(answer.status, describeAnswer(answer)).toBe(status);
      expect(answer.violations, 'Prism found its own generated response invalid').toEqual([]);
      const errors = validator.validate(schemaAt, answer.json);
      expect(errors, `${formatErrors(errors)}\n${answer.text.slice(0, 2_000)}`).toEqual([]);
    });
  }

  // Every named example of every documented response can be picked with Prefer.
  const picks = Object.keys(op.operation.responses ?? {}).flatMap((code) => {
    const { node, pointer: at } = locate(`${op.pointer}/responses/${code}`);
    const content = ((node as JsonObject).content ?? {}) as JsonObject;
    return Object.entries(content).flatMap(([mediaType, media]) =>
      Object.keys(((media as JsonObject).examples ?? {}) as JsonObject).map((name) => ({
        label: `code=${code}, example=${name}`,
        code: Number(code),
        expected: (locate(`${at}/content/${escapeToken(mediaType)}/examples/${escapeToken(name)}`).node as JsonObject)
          .value,
      })),
    );
  });
  it.each(picks.map((p) => [p.label, p] as const))('Prefer: %s returns that example', async (label, pick) => {
    const answer = await send(validCall(op, { headers: { Prefer: label } }));
    expect(answer.status, describeAnswer(answer)).toBe(pick.code);
    expect(answer.json).toEqual(pick.expected);
  });
});

// ---------------------------------------------------------------------------------------------
// The documented limits, explicitly (the generic breaches above may pick other fields first)

describe.concurrent('documented limits, explicitly', () => {
  const op = (id: string) => {
    const found = ops.find((o) => opId(o) === id);
    if (!found) throw new Error(`no operation ${id}`);
    return found;
  };
  const withBody = (id: string, change: (body: JsonObject) => void): Call => {
    const call = validCall(op(id));
    change(call.body!.value as JsonObject);
    return call;
  };
  const withParam = (id: string, key: string, value: Json): Call => {
    const call = validCall(op(id));
    return { ...call, params: { ...exampleParams(op(id)), [key]: value } };
  };
  type Case = { name: string; call: () => Call; field: (string | number)[] };
  /** One case per operation of `ids`: its example body changed by `change`, the violation named at `field` of the body. */
  const bodyCases = (ids: string[], what: string, change: (body: JsonObject) => void, field: (string | number)[]) =>
    ids.map((id): Case => ({ name: `${id}: ${what}`, call: () => withBody(id, change), field: ['body', ...field] }));
  /** The operation's example parameters with `key` (`in:name`) set to `value`, the violation named at that parameter. */
  const paramCase = (id: string, what: string, key: string, value: Json): Case => ({
    name: `${id}: ${what}`,
    call: () => withParam(id, key, value),
    field: key.split(':'),
  });
  const transIdTooLong = (b: JsonObject) => {
    b.transId = 'T'.repeat(65);
  };
  const withCaptureMethod = (captureMethod: JsonObject) => (b: JsonObject) => {
    b.captureMethod = captureMethod;
  };
  const cases: Case[] = [
    ...bodyCases(
      ['createCheckoutSession', 'createPayment', 'createPaymentIntent'],
      'transId of 65 characters',
      transIdTooLong,
      ['transId'],
    ),
    ...bodyCases(
      ['createCheckoutSession', 'createPayment'],
      'captureMethod DELAYED without delayed.delayedHours',
      withCaptureMethod({ type: 'DELAYED' }),
      ['captureMethod', 'delayed'],
    ),
    ...bodyCases(
      ['createPayment'],
      'captureMethod DELAYED with an empty delayed',
      withCaptureMethod({ type: 'DELAYED', delayed: {} }),
      ['captureMethod', 'delayed', 'delayedHours'],
    ),
    ...[697, 0].flatMap((hours) =>
      bodyCases(
        ['createPayment'],
        `delayedHours ${hours}`,
        withCaptureMethod({ type: 'DELAYED', delayed: { delayedHours: hours } }),
        ['captureMethod', 'delayed', 'delayedHours'],
      ),
    ),
    ...bodyCases(
      ['createCheckoutSession'],
      'currency "EURO"',
      (b) => {
        (b.amount as JsonObject).currency = 'EURO';
      },
      ['amount', 'currency'],
    ),
    ...bodyCases(
      ['createPayment'],
      'amount.value 10.5 (money is an integer)',
      (b) => {
        (b.amount as JsonObject).value = 10.5;
      },
      ['amount', 'value'],
    ),
    ...bodyCases(
      ['capturePayment'],
      'refNr "bad#ref"',
      (b) => {
        b.refNr = 'bad#ref';
      },
      ['refNr'],
    ),
    ...bodyCases(
      ['createCheckoutSession'],
      'without urls',
      (b) => {
        delete b.urls;
      },
      ['urls'],
    ),
    ...bodyCases(
      ['createCheckoutSession'],
      'allowedPaymentMethods ["PAYU"]',
      (b) => {
        b.allowedPaymentMethods = ['PAYU'];
      },
      ['allowedPaymentMethods', 0],
    ),
    paramCase('getPaymentPlan', 'paymentPlanId of 65 characters', 'path:paymentPlanId', 'p'.repeat(65)),
    paramCase('listCustomers', 'Page=0', 'query:Page', 0),
    paramCase('listPaymentPlans', 'PlanStatus=PAUSED', 'query:PlanStatus', 'PAUSED'),
    paramCase('createPayment', 'Idempotency-Key of 256 characters', 'header:Idempotency-Key', 'k'.repeat(256)),
  ];
  it.each(cases.map((c) => [c.name, c] as const))('rejects %s', async (_name, c) => {
    const call = c.call();
    const answer = await send(call);
    expect(answer.status, describeAnswer(answer)).toBe(invalidStatus(call.op));
    expect(
      namesField(answer.violations, c.field),
      `sl-violations does not name ${c.field.join('.')}: ${JSON.stringify(answer.violations)}`,
    ).toBe(true);
  });

  it('answers an invalid request with the 422 example where the operation documents a 422 (a decline!), else the 400', async () => {
    const payment = await send(withBody('createPayment', transIdTooLong));
    expect(payment.status).toBe(422);
    expect(payment.json).toMatchObject({ status: 'FAILED' });
    const session = await send(withBody('createCheckoutSession', transIdTooLong));
    expect(session.status).toBe(400);
  });

  it('Prefer does not override validation or credentials', async () => {
    const invalid = withBody('capturePayment', (b) => {
      b.refNr = 'bad#ref';
    });
    const answer = await send({ ...invalid, headers: { Prefer: 'code=200' } });
    expect(answer.status).toBe(422);
    const anonymous = await send(
      validCall(op('getCustomer'), { credentials: noCredentials, headers: { Prefer: 'code=200' } }),
    );
    expect(anonymous.status).toBe(401);
  });

  it.each(['capturePayment', 'refundPayment'])(
    '%s: Prefer: code=422, example=declined returns the declined example',
    async (id) => {
      const at = locate(`${op(id).pointer}/responses/422`).pointer;
      const declinedExample = (locate(`${at}/content/application~1json/examples/declined`).node as JsonObject).value;
      const answer = await send(validCall(op(id), { headers: { Prefer: 'code=422, example=declined' } }));
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual(declinedExample);
      expect(answer.violations).toEqual([]);
    },
  );

  it('Prefer: dynamic=true on the examples mock returns a generated body valid against the schema', async () => {
    const plan = op('getPaymentPlan');
    const [fixed, generated] = [
      await send(validCall(plan)),
      await send(validCall(plan, { headers: { Prefer: 'dynamic=true' } })),
    ];
    expect(generated.status).toBe(200);
    expect(formatErrors(validator.validate(responseSchemaAt(plan, 200)!, generated.json))).toBe('');
    expect(generated.json).not.toEqual(fixed.json);
  });

  it('confirmPaymentIntent accepts a bearer token only', async () => {
    const intent = op('confirmPaymentIntent');
    expect(requirementsOf(intent)).toEqual([['bearerAuth']]);
    expect((await send(validCall(intent, { credentials: credentialsFor('basicAuth') }))).status).toBe(401);
    expect((await send(validCall(intent, { credentials: credentialsFor('bearerAuth') }))).status).toBe(
      successStatus(intent),
    );
  });
});
