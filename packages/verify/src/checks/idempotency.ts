// idempotency: a retry with the same Idempotency-Key and body replays the first answer (its status,
// payId and xId) marked `Idempotent-Replayed: true`; the key with another body is refused with the
// operation's 409; concurrent retries make one payment; a retried refund refunds once.
import type { RunContext } from '../context.js';
import type { Fixtures } from '../fixtures.js';
import type { Exchange } from '../judge.js';
import { getPath, memberPaths, withPath } from '../requests.js';
import { targetOf } from '../targets.js';
import { targetBody } from './positive.js';

const REPLAY_HEADER = 'idempotent-replayed';

const keyOf = (ctx: RunContext, label: string) => `${ctx.ref(label)}-${Math.floor(ctx.random() * 1e9).toString(36)}`;

function sameAnswer(first: Exchange, retry: Exchange): string[] {
  const problems: string[] = [];
  if (retry.status !== first.status) problems.push(`status ${retry.status}, the first answer was ${first.status}`);
  for (const member of ['payId', 'xId'])
    if (retry.json?.[member] !== first.json?.[member])
      problems.push(`${member} ${retry.json?.[member]}, the first answer's was ${first.json?.[member]}`);
  if (retry.headers[REPLAY_HEADER] !== 'true')
    problems.push(`Idempotent-Replayed ${retry.headers[REPLAY_HEADER] ?? '(absent)'}, not true`);
  return problems;
}

async function createRetried(ctx: RunContext): Promise<void> {
  const key = keyOf(ctx, 'idem');
  const body = {
    transId: ctx.ref('idem'),
    amount: { value: 1999, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  };
  const send = (title: string, b: unknown) =>
    ctx.client.send({
      operationId: 'createPayment',
      title,
      auth: { scheme: 'basic', merchant: ctx.first },
      headers: { 'Idempotency-Key': key },
      body: b,
    });
  const first = await send('createPayment with an Idempotency-Key', body);
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'createPayment',
      title: 'the first request with a key',
      expected: '201, not marked as a replay',
      actual: String(first.status),
      curl: first.curl,
    },
    [
      ...(first.status === 201 ? [] : [`${first.status}: ${first.text.slice(0, 200)}`]),
      ...(first.headers[REPLAY_HEADER] === 'true'
        ? ['marked Idempotent-Replayed: true though nothing was replayed']
        : []),
    ],
  );
  const retry = await send('the same request again, same key', body);
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'createPayment',
      title: 'a retry with the same key and body',
      expected: 'the first answer replayed, Idempotent-Replayed: true',
      actual: 'replayed',
      curl: retry.curl,
    },
    sameAnswer(first, retry),
  );
  const other = await send('the same key with another body', { ...body, amount: { value: 2999, currency: 'EUR' } });
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'createPayment',
      title: 'the same key with another body',
      expected: '409',
      actual: String(other.status),
      curl: other.curl,
    },
    other.status === 409 ? [] : [`${other.status}: ${other.text.slice(0, 200)}`],
  );
}

async function concurrentRetries(ctx: RunContext): Promise<void> {
  const key = keyOf(ctx, 'race');
  const transId = ctx.ref('race');
  const body = {
    transId,
    amount: { value: 1200, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  };
  const answers = await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      ctx.client.send({
        operationId: 'createPayment',
        title: `concurrent retry ${i + 1} of 4`,
        auth: { scheme: 'basic', merchant: ctx.first },
        headers: { 'Idempotency-Key': key },
        body,
      }),
    ),
  );
  const made = answers.filter((a) => a.status === 201);
  const payIds = new Set(made.map((a) => a.json?.payId));
  const originals = made.filter((a) => a.headers[REPLAY_HEADER] !== 'true');
  const problems = [
    ...(made.length === 0 ? ['no retry got 201'] : []),
    ...answers.filter((a) => a.status !== 201 && a.status !== 409).map((a) => `a retry got ${a.status}`),
    ...(payIds.size > 1 ? [`${payIds.size} payments: ${[...payIds].join(', ')}`] : []),
    ...(originals.length > 1 ? [`${originals.length} answers not marked as replays`] : []),
  ];
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'createPayment',
      title: '4 concurrent requests with one key',
      expected: 'one payment; the others replays (or 409 while it is made)',
      actual: `${made.length} × 201, one payId`,
      curl: answers[0]!.curl,
    },
    problems,
  );
}

async function refundRetried(ctx: RunContext, fx: Fixtures): Promise<void> {
  const payment = await fx.cardPayment({ capture: 'AUTOMATIC', value: 3000, label: 'idem-refund' });
  const key = keyOf(ctx, 'refund');
  const body = { transId: ctx.ref('idem-refund'), amount: { value: 1000, currency: 'EUR' } };
  const send = (title: string) =>
    ctx.client.send({
      operationId: 'refundPayment',
      title,
      auth: { scheme: 'basic', merchant: ctx.first },
      params: { id: payment.payId },
      headers: { 'Idempotency-Key': key },
      body,
    });
  const first = await send('a refund with an Idempotency-Key');
  const retry = await send('the same refund again, same key');
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'refundPayment',
      title: 'a retried refund',
      expected: 'the first answer replayed, Idempotent-Replayed: true',
      actual: 'replayed',
      curl: retry.curl,
    },
    first.status === 200
      ? sameAnswer(first, retry)
      : [`the first refund got ${first.status}: ${first.text.slice(0, 200)}`],
  );
  const other = await ctx.client.send({
    operationId: 'refundPayment',
    title: 'the same key with another refund',
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: payment.payId },
    headers: { 'Idempotency-Key': key },
    body: { ...body, amount: { value: 500, currency: 'EUR' } },
  });
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'refundPayment',
      title: 'the same key with another refund',
      expected: '409',
      actual: String(other.status),
      curl: other.curl,
    },
    other.status === 409 ? [] : [`${other.status}: ${other.text.slice(0, 200)}`],
  );
  const read = await ctx.client.send({
    operationId: 'getPaymentByPayId',
    title: 'the payment after a retried refund',
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: payment.payId },
  });
  const refunded = read.json?.refundedAmount?.value;
  ctx.results.judge(
    'idempotency',
    {
      operationId: 'refundPayment',
      title: 'what a retried refund refunded',
      expected: 'refundedAmount 1000 (once)',
      actual: `refundedAmount ${refunded}`,
      curl: read.curl,
    },
    refunded === 1000 ? [] : [`refundedAmount ${refunded}`],
  );
}

/** The body with one member changed: its transId, else its last string (another request, same shape). */
function anotherBody(body: unknown): unknown {
  const strings = memberPaths(body).filter((p) => typeof getPath(body, p) === 'string');
  const path = strings.find((p) => p.length === 1 && p[0] === 'transId') ?? strings.at(-1);
  return path ? withPath(body, path, `${String(getPath(body, path))}-2`) : body;
}

/**
 * Every other operation that takes an Idempotency-Key: a retry replays its first answer, the key
 * with another body is its 409.
 */
async function otherKeyedOperations(ctx: RunContext, fx: Fixtures): Promise<void> {
  const special = new Set(['createPayment', 'refundPayment']);
  for (const op of ctx.contract.operations.values()) {
    if (
      special.has(op.id) ||
      !op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')
    )
      continue;
    const target = await targetOf(op.id, fx, ctx.first, ctx);
    const body = targetBody(ctx, op, target.set);
    const key = keyOf(ctx, op.id);
    const scheme = op.security.some((s) => s.includes('basicAuth')) ? 'basic' : 'bearer';
    const send = (title: string, b: unknown) =>
      ctx.client.send({
        operationId: op.id,
        title,
        auth: { scheme, merchant: ctx.first },
        ...(target.params ? { params: target.params } : {}),
        headers: { 'Idempotency-Key': key },
        body: b,
      });
    const first = await send(`${op.id} with an Idempotency-Key`, body);
    if (first.status < 200 || first.status >= 300) {
      ctx.results.fail('idempotency', {
        operationId: op.id,
        title: `${op.id} with a key`,
        expected: '2xx',
        actual: String(first.status),
        curl: first.curl,
      });
      continue;
    }
    const retry = await send(`${op.id} again, same key and body`, body);
    ctx.results.judge(
      'idempotency',
      {
        operationId: op.id,
        title: `a retry of ${op.id} with the same key and body`,
        expected: 'the first answer replayed, Idempotent-Replayed: true',
        actual: 'replayed',
        curl: retry.curl,
      },
      sameAnswer(first, retry),
    );
    const other = await send(`${op.id} with the same key and another body`, anotherBody(body));
    ctx.results.judge(
      'idempotency',
      {
        operationId: op.id,
        title: `the same key with another ${op.id} body`,
        expected: '409',
        actual: String(other.status),
        curl: other.curl,
      },
      other.status === 409 ? [] : [`${other.status}: ${other.text.slice(0, 200)}`],
    );
  }
}

export async function checkIdempotency(ctx: RunContext, fx: Fixtures): Promise<void> {
  if (ctx.readOnly) {
    ctx.results.skipCheck('idempotency', 'a live server: nothing may be created');
    return;
  }
  await createRetried(ctx);
  await concurrentRetries(ctx);
  await refundRetried(ctx, fx);
  await otherKeyedOperations(ctx, fx);
}
