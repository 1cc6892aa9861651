// positive-acceptance: every operation, called as a client would with its documented example (made
// this run's own) and with the example reduced to what its schema requires, is accepted: a 2xx, or
// a business answer the contract lists (409, 422, or a 400 naming a field an `x-business-rules`
// entry names). Each request is checked against the request schema by the verifier first: a
// request the contract itself calls invalid proves nothing.
import type { Merchant } from '../client.js';
import type { RunContext } from '../context.js';
import type { OperationSpec } from '../contract.js';
import type { Fixtures } from '../fixtures.js';
import type { Exchange } from '../judge.js';
import { exampleOf, personalize, requiredOnly, withPath } from '../requests.js';
import { targetOf } from '../targets.js';
import { followLinks } from './links.js';
import { bodyRequiredAt, errorFields, ruleNamesField } from './schema-facts.js';

/** Operations whose example would change the service's state for good (deletes): run last. */
const LAST = new Set(['deleteCustomerPaymentMethod', 'deleteCustomer']);

/** A read that names no object (a list): what a verification of a live server may call. */
export const isPlainRead = (op: OperationSpec) => op.method === 'GET' && !op.parameters.some((p) => p.in === 'path');

export function isAccepted(op: OperationSpec, exchange: Exchange, ctx: RunContext): boolean {
  if (exchange.status >= 200 && exchange.status < 300) return true;
  if ((exchange.status === 409 || exchange.status === 422) && op.responses.has(exchange.status)) return true;
  if (exchange.status !== 400) return false;
  const fields = errorFields(exchange.json);
  const rules = [...op.rules, ...ctx.contract.commonRules].filter((r) => r.status === 400);
  return fields.length > 0 && fields.every((f) => rules.some((r) => ruleNamesField(r, f)));
}

/** The body a target asks for: the example made this run's own, with the target's members set. */
export function targetBody(ctx: RunContext, op: OperationSpec, set: Record<string, unknown> = {}): unknown {
  let body = personalize(ctx, exampleOf(op), op.id);
  for (const [path, value] of Object.entries(set)) body = withPath(body, path.split('.'), value);
  return body;
}

async function variants(
  ctx: RunContext,
  op: OperationSpec,
  body: unknown,
): Promise<Array<{ name: string; body: unknown }>> {
  const out = [{ name: 'its documented example', body }];
  if (body === undefined || !op.body?.schemaPointer || typeof body !== 'object') return out;
  const minimal = requiredOnly(body, bodyRequiredAt(ctx, op));
  if (JSON.stringify(minimal) === JSON.stringify(body)) return out;
  if ((await ctx.validator.problems(op.body.schemaPointer, minimal)).length === 0)
    out.push({ name: 'the members its schema requires', body: minimal });
  return out;
}

async function acceptOne(ctx: RunContext, fx: Fixtures, op: OperationSpec, merchant: Merchant): Promise<void> {
  // On a live server nothing may be made: no object to address, so only the plain reads run.
  const target = ctx.readOnly ? {} : await targetOf(op.id, fx, merchant, ctx);
  const isForm = op.body?.mediaType === 'application/x-www-form-urlencoded';
  const example = targetBody(ctx, op, target.set);
  const bodies = isForm ? [{ name: 'its documented example', body: example }] : await variants(ctx, op, example);
  const scheme = op.security.some((s) => s.includes('basicAuth')) ? 'basic' : 'bearer';
  for (const [i, variant] of bodies.entries()) {
    // A variant after the first needs an object of its own when the first used one up.
    const again =
      i > 0 && Object.keys(target.params ?? {}).length > 0 ? await targetOf(op.id, fx, merchant, ctx) : target;
    const body =
      variant.body === undefined
        ? undefined
        : isForm
          ? new URLSearchParams(variant.body as Record<string, string>).toString()
          : i > 0
            ? personalize(ctx, variant.body, op.id)
            : variant.body;
    const title = `${op.id} with ${variant.name}`;
    if (op.body?.schemaPointer && !isForm && body !== undefined) {
      const invalid = await ctx.validator.problems(op.body.schemaPointer, body);
      if (invalid.length > 0) {
        ctx.results.skip(
          'positive-acceptance',
          op.id,
          title,
          `the contract's own example is outside its schema: ${invalid.join('; ')}`,
        );
        continue;
      }
    }
    const exchange = await ctx.client.sendJudged('positive-acceptance', {
      operationId: op.id,
      title,
      auth: { scheme, merchant },
      ...(again.params ? { params: again.params } : {}),
      ...(again.query ? { query: again.query } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(isForm ? { contentType: op.body!.mediaType } : {}),
    });
    if (!exchange) continue;
    const expected = `2xx, or a business answer the contract lists (${[...op.responses.keys()].filter((s) => s === 409 || s === 422).join(', ') || 'none'})`;
    ctx.results.judge(
      'positive-acceptance',
      { operationId: op.id, title, expected, actual: String(exchange.status), curl: exchange.curl },
      isAccepted(op, exchange, ctx) ? [] : [`${exchange.status}: ${exchange.text.slice(0, 300)}`],
    );
    if (op.method !== 'DELETE') await followLinks(ctx, exchange, again.params ?? {});
  }
}

export async function positiveAcceptance(ctx: RunContext, fx: Fixtures): Promise<void> {
  const ops = [...ctx.contract.operations.values()].sort((a, b) => Number(LAST.has(a.id)) - Number(LAST.has(b.id)));
  for (const op of ops) {
    if (ctx.readOnly && !isPlainRead(op)) continue;
    await acceptOne(ctx, fx, op, ctx.first);
  }
}
