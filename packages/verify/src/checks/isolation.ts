// isolation: what the first merchant made does not exist for the second. Each operation that reads,
// changes or lists an object of the first merchant, called by the second with a request that would
// be valid for the first, is a 404 (a list holds none of the first's objects); and afterwards the
// first merchant reads its payment unchanged.
import type { RunContext } from '../context.js';
import type { Fixtures } from '../fixtures.js';
import type { Exchange } from '../judge.js';
import { targetOf } from '../targets.js';
import { targetBody } from './positive.js';

/** List operations that take the first merchant's filter and must come back without its objects. */
const LISTS = ['listCustomers', 'listPaymentPlans'];

export async function checkIsolation(ctx: RunContext, fx: Fixtures): Promise<void> {
  const second = ctx.second;
  if (!second) {
    ctx.results.skipCheck('isolation', 'no second merchant (--second-merchant-id, --second-api-key)');
    return;
  }
  if (ctx.readOnly) return ctx.results.skipCheck('isolation', 'a live server: nothing may be created to isolate');
  const payment = await fx.cardPayment({ label: 'iso' });
  const before = await readPayment(ctx, payment.payId);
  for (const op of ctx.contract.operations.values()) {
    const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
    if (pathNames.length === 0) {
      if (!LISTS.includes(op.id)) continue;
    }
    const target = await targetOf(op.id, fx, ctx.first, ctx);
    const body = op.body?.mediaType === 'application/json' ? targetBody(ctx, op, target.set) : undefined;
    const scheme = op.security.some((s) => s.includes('basicAuth')) ? 'basic' : 'bearer';
    const title = `${op.id} by the second merchant on the first one's object`;
    const exchange = await ctx.client.send({
      operationId: op.id,
      title,
      auth: { scheme, merchant: second },
      ...(target.params ? { params: target.params } : {}),
      ...(target.query ? { query: target.query } : {}),
      ...(body !== undefined ? { body } : {}),
    });
    if (LISTS.includes(op.id)) {
      const items = Array.isArray(exchange.json?.data) ? exchange.json.data : [];
      ctx.results.judge(
        'isolation',
        {
          operationId: op.id,
          title,
          expected: '200 without the first merchant’s objects',
          actual: `${exchange.status}, ${items.length} items`,
          curl: exchange.curl,
        },
        exchange.status === 200 && items.length === 0
          ? []
          : [`${exchange.status} with ${items.length} of the first merchant's objects`],
      );
      continue;
    }
    const emptyList = exchange.status === 200 && Array.isArray(exchange.json?.data) && exchange.json.data.length === 0;
    ctx.results.judge(
      'isolation',
      {
        operationId: op.id,
        title,
        expected: op.responses.has(404) ? '404' : '200 with nothing of the first merchant',
        actual: String(exchange.status),
        curl: exchange.curl,
      },
      exchange.status === 404 || (!op.responses.has(404) && emptyList)
        ? []
        : [`${exchange.status}: ${exchange.text.slice(0, 200)}`],
    );
  }
  const after = await readPayment(ctx, payment.payId);
  ctx.results.judge(
    'isolation',
    {
      operationId: 'getPaymentByPayId',
      title: "the first merchant's payment after the second merchant's attempts",
      expected: 'unchanged',
      actual: 'unchanged',
    },
    JSON.stringify(summaryOf(before)) === JSON.stringify(summaryOf(after))
      ? []
      : [`was ${JSON.stringify(summaryOf(before))}, is ${JSON.stringify(summaryOf(after))}`],
  );
}

async function readPayment(ctx: RunContext, payId: string): Promise<Exchange['json']> {
  const read = await ctx.client.send({
    operationId: 'getPaymentByPayId',
    title: 'the payment, read by its merchant',
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: payId },
  });
  return read.json;
}

/** What no one but the payment's merchant may change: its state and amounts. */
export function summaryOf(payment: Exchange['json']): unknown {
  return {
    state: payment?.state,
    authorized: payment?.authorizedAmount?.value,
    captured: payment?.capturedAmount?.value,
    refunded: payment?.refundedAmount?.value,
    reversed: payment?.reversedAmount?.value,
  };
}
