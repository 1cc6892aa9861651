// negative-rejection: requests that each break one constraint of the contract are refused as it
// says. From an operation's valid request: a required member left out, a member of the wrong type,
// a word outside an enum, an `x-business-rules` rule broken (each must be a 400 naming the field,
// or the rule's own status); a body that is not JSON (400), of another media type (415), larger
// than the limit the 413 states (413); a query parameter out of its range (400 naming it). Every
// broken request is first confirmed invalid by the verifier's own validator (the rules aside).
import {
  derefLenient,
  isObject,
  type JsonObject,
  requiredOf,
  schemaAt,
  schemaTypes,
  walkObjects,
} from '../../../../tooling/openapi/walker.js';
import type { Merchant } from '../client.js';
import type { RunContext } from '../context.js';
import type { OperationSpec } from '../contract.js';
import type { Fixtures } from '../fixtures.js';
import { getPath, memberPaths, withPath } from '../requests.js';
import { targetOf } from '../targets.js';
import { isPlainRead, targetBody } from './positive.js';
import { bodySchema, errorFields, namesMember } from './schema-facts.js';

interface Broken {
  title: string;
  body: string;
  contentType?: string;
  query?: Record<string, string | number>;
  params?: Record<string, string>;
  status: number;
  /** The member the answer must name, if any. */
  field?: string[];
  /** For a 422: the response code the rule names. */
  responseCode?: string;
}

const PAST = '2001-01-01T00:00:00Z';

/** Ways to break one business rule, by the rule's id in `x-business-rules`, at the field the rule names. */
const RULE_BREAKERS: Record<string, (body: unknown, field: string[], taken: string) => unknown> = {
  'expiration-in-future': (b, f) => withPath(b, f, PAST),
  'return-url-scheme': (b, f) => withPath(b, f, 'ftp://shop.example/return'),
  'cancel-url-scheme': (b, f) => withPath(b, f, 'ftp://shop.example/cancel'),
  'card-number': (b, f) => withPath(withParents(b, f), f, '4111111111111112'),
  'card-expiry': (b, f) => withPath(withParents(b, f), f, '202713'),
  'metadata-size': (b) => withPath(b, ['metadata'], { blob: 'x'.repeat(17_000) }),
  'text-storable': (b) => (getPath(b, ['transId']) !== undefined ? withPath(b, ['transId'], 'bad\u0000id') : undefined),
  'amount-currency': (b, f) => (getPath(b, f) !== undefined ? withPath(b, f, 'JPY') : undefined),
  'transid-unique': (b, f, taken) => withPath(b, f, taken),
  'plan-charge-positive': (b, f) => (getPath(b, f) !== undefined ? withPath(b, f, 0) : undefined),
};

/** The body with empty objects on the way to `field`, where it has none. */
function withParents(body: unknown, field: string[]): unknown {
  let out = body;
  for (let i = 1; i < field.length; i++)
    if (getPath(out, field.slice(0, i)) === undefined) out = withPath(out, field.slice(0, i), {});
  return out;
}

/** A schema through its `$ref`s. */
const resolved = (ctx: RunContext, schema: unknown): JsonObject | undefined => {
  const node = schema === undefined ? undefined : derefLenient<unknown>(ctx.contract.document, schema);
  return isObject(node) ? node : undefined;
};

/** The first member (depth-first) whose schema is an enum, with a word outside it. */
function enumBreak(ctx: RunContext, root: unknown, body: unknown): { path: string[]; body: unknown } | undefined {
  for (const path of memberPaths(body)) {
    if (Array.isArray(resolved(ctx, schemaAt(ctx.contract.document, root, path))?.enum))
      return { path, body: withPath(body, path, 'NOT_A_VALUE') };
  }
  return undefined;
}

/** A value of another type than the schema's. */
function wrongType(ctx: RunContext, schema: unknown): unknown {
  const types = schemaTypes(resolved(ctx, schema));
  if (types.includes('string')) return 12345;
  if (types.includes('integer') || types.includes('number')) return 'not-a-number';
  if (types.includes('object') || types.includes('array')) return 'not-an-object';
  if (types.includes('boolean')) return 'yes';
  return undefined;
}

/** The response code `x-response-codes` gives a name (`AMOUNT_EXCEEDS_AVAILABLE` → `22000005`). */
export function responseCodeOf(ctx: RunContext, name: string): string | undefined {
  let found: string | undefined;
  walkObjects(ctx.contract.document, (node) => {
    const table = node['x-response-codes'];
    if (found === undefined && isObject(table) && isObject(table.codes)) {
      const entry = table.codes[name];
      if (isObject(entry) && typeof entry.responseCode === 'string') found = entry.responseCode;
    }
  });
  return found;
}

/** The size limit a 413's description states (`(1 MiB)`), in bytes. */
function sizeLimit(op: OperationSpec): number | undefined {
  const mib = /\((\d+) MiB\)/.exec(op.responses.get(413)?.description ?? '')?.[1];
  return mib === undefined ? undefined : Number(mib) * 1024 * 1024;
}

async function brokenBodies(
  ctx: RunContext,
  op: OperationSpec,
  body: unknown,
  taken: () => Promise<string>,
): Promise<Broken[]> {
  const pointer = op.body?.schemaPointer;
  if (!pointer || !isObject(body)) return [];
  const out: Broken[] = [];
  const invalid = async (candidate: unknown) => (await ctx.validator.problems(pointer, candidate)).length > 0;
  const root = bodySchema(ctx, op);
  const missing = [...requiredOf(ctx.contract.document, root)].find((k) => k in body);
  if (missing !== undefined) {
    const candidate = withPath(body, [missing], undefined);
    if (await invalid(candidate))
      out.push({
        title: `${op.id} without its required ${missing}`,
        body: JSON.stringify(candidate),
        status: 400,
        field: [missing],
      });
  }
  for (const path of memberPaths(body).filter((p) => p.length <= 2)) {
    const value = wrongType(ctx, schemaAt(ctx.contract.document, root, path));
    if (value === undefined) continue;
    const candidate = withPath(body, path, value);
    if (!(await invalid(candidate))) continue;
    out.push({
      title: `${op.id} with ${path.join('.')} of the wrong type`,
      body: JSON.stringify(candidate),
      status: 400,
      field: path,
    });
    break;
  }
  const outside = enumBreak(ctx, root, body);
  if (outside && (await invalid(outside.body)))
    out.push({
      title: `${op.id} with ${outside.path.join('.')} outside its enum`,
      body: JSON.stringify(outside.body),
      status: 400,
      field: outside.path,
    });
  for (const rule of [...op.rules, ...ctx.contract.commonRules]) {
    if (rule.id === 'metadata-size' && !('metadata' in body)) continue;
    const breaker = RULE_BREAKERS[rule.id];
    const candidate = breaker?.(body, rule.field.split('.'), rule.id === 'transid-unique' ? await taken() : '');
    if (candidate === undefined) continue;
    const responseCode = rule.responseCode ? responseCodeOf(ctx, rule.responseCode) : undefined;
    out.push({
      title: `${op.id} breaking the rule ${rule.id}`,
      body: JSON.stringify(candidate),
      status: rule.status,
      ...(rule.status === 400 && rule.field !== '*' && rule.field !== '(body)' ? { field: rule.field.split('.') } : {}),
      ...(responseCode ? { responseCode } : {}),
    });
  }
  out.push({ title: `${op.id} with a body that is not JSON`, body: '{"transId": ', status: 400 });
  out.push({
    title: `${op.id} with a text/plain body`,
    body: JSON.stringify(body),
    contentType: 'text/plain',
    status: 415,
  });
  const limit = sizeLimit(op);
  if (limit !== undefined)
    out.push({
      title: `${op.id} with a body over ${limit} bytes`,
      body: JSON.stringify({ ...body, padding: 'x'.repeat(limit + 1024) }),
      status: 413,
    });
  return out;
}

function brokenQueries(op: OperationSpec): Broken[] {
  const page = op.parameters.find((p) => p.in === 'query' && typeof p.schema.minimum === 'number');
  if (!page) return [];
  return [
    {
      title: `${op.id} with ${page.name} below its minimum`,
      body: '',
      query: { [page.name]: Number(page.schema.minimum) - 1 },
      status: 400,
      field: [page.name],
    },
    {
      title: `${op.id} with ${page.name} not a number`,
      body: '',
      query: { [page.name]: 'first' },
      status: 400,
      field: [page.name],
    },
  ];
}

/** A path parameter longer than its schema's maxLength (a request that addresses no object at all). */
function brokenPaths(op: OperationSpec, target: Record<string, string>, body: unknown): Broken[] {
  const parameter = op.parameters.find((p) => p.in === 'path' && typeof p.schema.maxLength === 'number');
  if (!parameter) return [];
  const params = { ...target, [parameter.name]: 'x'.repeat(Number(parameter.schema.maxLength) + 1) };
  const valid = body === undefined ? '' : JSON.stringify(body);
  return [
    {
      title: `${op.id} with ${parameter.name} over its maxLength`,
      body: valid,
      params,
      status: 400,
      field: [parameter.name],
    },
  ];
}

/** A form body (the token operation's): a value outside its enum, another media type, over the limit. */
function brokenForms(ctx: RunContext, op: OperationSpec, form: unknown): Broken[] {
  if (op.body?.mediaType !== 'application/x-www-form-urlencoded' || !isObject(form)) return [];
  const root = bodySchema(ctx, op);
  const outside = enumBreak(ctx, root, form);
  const encode = (v: unknown) => new URLSearchParams(v as Record<string, string>).toString();
  const limit = sizeLimit(op);
  return [
    ...(outside
      ? [
          {
            title: `${op.id} with ${outside.path.join('.')} outside its enum`,
            body: encode(outside.body),
            contentType: op.body.mediaType,
            status: 400,
          },
        ]
      : []),
    { title: `${op.id} with a JSON body`, body: JSON.stringify(form), contentType: 'application/json', status: 415 },
    ...(limit !== undefined
      ? [
          {
            title: `${op.id} with a body over ${limit} bytes`,
            body: encode({ ...form, padding: 'x'.repeat(limit + 1024) }),
            contentType: op.body.mediaType,
            status: 413,
          },
        ]
      : []),
  ];
}

async function rejectOne(ctx: RunContext, fx: Fixtures, op: OperationSpec, merchant: Merchant): Promise<void> {
  const target = ctx.readOnly ? {} : await targetOf(op.id, fx, merchant, ctx);
  const body = op.body ? targetBody(ctx, op, target.set) : undefined;
  const cases = [
    ...(op.body?.mediaType === 'application/json'
      ? await brokenBodies(ctx, op, body, async () => (await fx.cardPayment({ merchant, label: 'taken' })).transId)
      : brokenForms(ctx, op, body)),
    ...brokenQueries(op),
    ...brokenPaths(op, target.params ?? {}, op.body?.mediaType === 'application/json' ? body : undefined),
  ];
  const scheme = op.security.some((s) => s.includes('basicAuth')) ? 'basic' : 'bearer';
  for (const c of cases) {
    if (!op.responses.has(c.status)) continue;
    const exchange = await ctx.client.sendJudged('negative-rejection', {
      operationId: op.id,
      title: c.title,
      auth: { scheme, merchant },
      params: c.params ?? target.params ?? {},
      query: { ...target.query, ...c.query },
      ...(c.body !== '' ? { body: c.body, contentType: c.contentType ?? 'application/json' } : {}),
    });
    if (!exchange) continue;
    const problems: string[] = [];
    if (exchange.status !== c.status) problems.push(`${exchange.status}: ${exchange.text.slice(0, 300)}`);
    else if (c.status === 400 && c.field && !namesMember(errorFields(exchange.json), c.field))
      problems.push(
        `400 without ${c.field.join('.')} among the fields it names (${errorFields(exchange.json).join(', ') || 'none'})`,
      );
    else if (c.responseCode && exchange.json?.responseCode !== c.responseCode)
      problems.push(`${c.status} with responseCode ${exchange.json?.responseCode}, not ${c.responseCode}`);
    ctx.results.judge(
      'negative-rejection',
      {
        operationId: op.id,
        title: c.title,
        expected: `${c.status}${c.field ? ` naming ${c.field.join('.')}` : ''}${c.responseCode ? ` (${c.responseCode})` : ''}`,
        actual: `${exchange.status}`,
        curl: exchange.curl,
      },
      problems,
    );
  }
}

export async function negativeRejection(ctx: RunContext, fx: Fixtures): Promise<void> {
  for (const op of ctx.contract.operations.values()) {
    if (ctx.readOnly && !isPlainRead(op)) continue;
    await rejectOne(ctx, fx, op, ctx.first);
  }
}
