// The contract's links, followed: from each operation positive-acceptance calls with success, to
// the reads (GET) its links name, with the parameters the links' runtime expressions take from that
// call and answer; each read must succeed: what one answer names, the next can reach. Judged as
// part of the lifecycle check (reads that follow every change); the links to changes are what the
// lifecycle's own sequences walk.
import { getAt, parseRuntimeExpression } from '../../../../tooling/openapi/walker.js';
import type { RunContext } from '../context.js';
import type { Exchange } from '../judge.js';

/** The value of a link parameter's runtime expression for a call and its answer, or undefined. */
function linkValue(expression: string, exchange: Exchange, requestPath: Record<string, string>): string | undefined {
  const parsed = parseRuntimeExpression(expression);
  if (parsed?.kind === 'body' && parsed.source === 'response') {
    const value = getAt(exchange.json, parsed.pointer);
    return value === undefined || value === null ? undefined : String(value);
  }
  if (parsed?.kind !== 'parameter') return undefined;
  if (parsed.source === 'response') return exchange.headers[parsed.name.toLowerCase()];
  return parsed.in === 'path' ? requestPath[parsed.name] : undefined;
}

/**
 * Follows the links of a successful answer to the reads (GET) they name, at once (what the answer
 * names may be gone later). A link whose values the answer does not hold (an optional member, such
 * as the plan of a payment that has none) does not apply to it.
 */
export async function followLinks(
  ctx: RunContext,
  source: Exchange,
  requestPath: Record<string, string>,
): Promise<void> {
  const op = ctx.contract.operations.get(source.operationId);
  if (!op || ctx.readOnly || source.status < 200 || source.status >= 300) return;
  for (const link of op.links.filter((l) => l.status === source.status)) {
    const target = ctx.contract.operations.get(link.operationId);
    if (target?.method !== 'GET') continue;
    const params: Record<string, string> = {};
    for (const [name, expression] of Object.entries(link.parameters)) {
      const value = linkValue(expression, source, requestPath);
      if (value !== undefined) params[name.replace(/^path\./, '')] = value;
    }
    const pathNames = target.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    if (!pathNames.every((n) => params[n] !== undefined)) continue;
    const title = `${op.id} ${link.status}, link ${link.name} → ${target.id}`;
    const scheme = target.security.some((s) => s.includes('basicAuth')) ? 'basic' : 'bearer';
    const exchange = await ctx.client.send({
      operationId: target.id,
      title,
      auth: { scheme, merchant: ctx.first },
      params,
    });
    ctx.results.judge(
      'lifecycle',
      {
        operationId: target.id,
        title,
        expected: '2xx: what the answer names can be read',
        actual: String(exchange.status),
        curl: exchange.curl,
      },
      exchange.status >= 200 && exchange.status < 300 ? [] : [`${exchange.status}: ${exchange.text.slice(0, 200)}`],
    );
  }
}
