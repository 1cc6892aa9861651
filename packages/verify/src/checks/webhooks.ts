// webhooks (with --hosted): HOSTED card payments paid and declined on the server's hosted page
// (the form the sandbox's page posts: decision=pay|decline, method=CARD) send their final results
// to the verifier's receiver. Each notification that arrives is the webhook the contract declares
// (method, media type, the headers its schema requires, its body inside its schema: the enhanced
// one when it carries the signature header or more than the basic one's members, else the basic
// one), an enhanced one is signed as the contract describes and within its tolerance, and it agrees
// with the payment it names (a read).
import { getAt, isObject, parsePointer, propertiesOf } from '../../../../tooling/openapi/walker.js';
import type { RunContext } from '../context.js';
import { requiredHeadersOf, type WebhookSpec } from '../contract.js';
import type { Fixtures } from '../fixtures.js';
import type { ReceivedWebhook } from '../receiver.js';
import { checkSignature, toleranceOf } from '../signature.js';

const WAIT_MS = 15_000;

async function hostedPayment(ctx: RunContext, decision: 'pay' | 'decline'): Promise<string | undefined> {
  const created = await ctx.client.send({
    operationId: 'createPayment',
    title: `a HOSTED card payment the customer will ${decision === 'pay' ? 'pay' : 'decline'}`,
    auth: { scheme: 'basic', merchant: ctx.first },
    body: {
      transId: ctx.ref(`hosted-${decision}`),
      amount: { value: 4200, currency: 'EUR' },
      captureMethod: { type: 'AUTOMATIC' },
      urls: {
        return: 'https://shop.example/return',
        cancel: 'https://shop.example/cancel',
        webhook: ctx.receiver!.url,
      },
      paymentMethods: { integrationType: 'HOSTED', type: 'CARD' },
    },
  });
  const href = created.json?._links?.redirect?.href;
  const title = `the hosted page's form: ${decision}`;
  if (created.status !== 201 || typeof href !== 'string') {
    ctx.results.fail('webhooks', {
      operationId: 'createPayment',
      title,
      expected: '201 with _links.redirect',
      actual: `${created.status}`,
      curl: created.curl,
    });
    return undefined;
  }
  const form = await fetch(href, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision, method: 'CARD' }).toString(),
  }).catch((error: Error) => error);
  if (form instanceof Error || form.status >= 400) {
    ctx.results.skip(
      'webhooks',
      'createPayment',
      title,
      `the page at ${href} took no form (${form instanceof Error ? form.message : form.status}): not the sandbox's page`,
    );
    return undefined;
  }
  return created.json.payId as string;
}

/** The members a webhook's body schema declares. */
const declared = (ctx: RunContext, webhook: WebhookSpec) =>
  propertiesOf(ctx.contract.document, getAt(ctx.contract.document, parsePointer(decodeURI(webhook.schemaPointer))));

/**
 * The webhook a notification is: the signed one whose required headers it carries; else the plain
 * one, unless its body holds members the plain one's schema does not declare (the basic notification
 * "contains only the payId"): then it is a signed one without its headers.
 */
function webhookFor(ctx: RunContext, received: ReceivedWebhook, body: unknown): WebhookSpec | undefined {
  const signed = ctx.contract.webhooks.filter((w) => requiredHeadersOf(w).length > 0);
  const plain = ctx.contract.webhooks.filter((w) => requiredHeadersOf(w).length === 0);
  const byHeaders = signed.find((w) => requiredHeadersOf(w).every((h) => received.headers[h] !== undefined));
  if (byHeaders || !plain[0] || !isObject(body)) return byHeaders ?? plain[0];
  const members = Object.keys(body);
  const plainDeclares = declared(ctx, plain[0]);
  if (signed.length === 0 || members.every((m) => plainDeclares.has(m))) return plain[0];
  return signed.find((w) => members.every((m) => declared(ctx, w).has(m))) ?? signed[0];
}

/** The tolerance the signature header's description states, else the contract's 300 s. */
function signatureTolerance(webhook: WebhookSpec): number {
  for (const header of webhook.headers.filter((h) => h.required)) {
    const tolerance = toleranceOf(header.description);
    if (tolerance !== undefined) return tolerance;
  }
  return 300;
}

async function judgeNotification(ctx: RunContext, payId: string, received: ReceivedWebhook): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(received.body);
  } catch {
    body = undefined;
  }
  const webhook = webhookFor(ctx, received, body);
  const title = `a notification of ${payId}`;
  if (!webhook) return;
  const base = { operationId: webhook.name, title, curl: `# received ${received.method} ${received.path}` };
  const contentType = (received.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const shape = [
    ...(received.method === webhook.method ? [] : [`method ${received.method}, not ${webhook.method}`]),
    ...requiredHeadersOf(webhook)
      .filter((h) => received.headers[h] === undefined)
      .map((h) => `no ${h} header`),
    ...webhook.headers
      .filter((h) => h.pattern !== undefined && received.headers[h.name] !== undefined)
      .filter((h) => !new RegExp(h.pattern!, 'u').test(received.headers[h.name]!))
      .map((h) => `${h.name} "${received.headers[h.name]}" does not match ${h.pattern}`),
    ...(contentType === webhook.mediaType ? [] : [`content-type ${contentType || '(none)'}, not ${webhook.mediaType}`]),
    ...(body === undefined
      ? ['the body is not JSON']
      : (await ctx.validator.problems(webhook.schemaPointer, body)).map((p) => `body ${p}`)),
  ];
  ctx.results.judge(
    'webhooks',
    { ...base, expected: `${webhook.name} as the contract declares it`, actual: 'as declared' },
    shape,
  );
  if (requiredHeadersOf(webhook).length > 0) {
    if (!ctx.webhookSecret)
      ctx.results.skip('webhooks', webhook.name, `the signature of ${title}`, 'no --webhook-secret');
    else {
      const header = requiredHeadersOf(webhook)
        .map((h) => received.headers[h])
        .find((v) => v !== undefined);
      const verdict = checkSignature(header, received.body, ctx.webhookSecret, signatureTolerance(webhook));
      ctx.results.judge(
        'webhooks',
        {
          ...base,
          title: `the signature of ${title}`,
          expected: 'signed as the contract describes, within its tolerance',
          actual: 'valid',
        },
        verdict.problems,
      );
    }
  }
  const read = await ctx.client.send({
    operationId: 'getPaymentByPayId',
    title: `the payment a notification names`,
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: payId },
  });
  const named = (body as { payId?: unknown } | undefined)?.payId;
  const enhanced = body as { state?: unknown; amount?: { value?: unknown } } | undefined;
  const consistency = [
    ...(named === payId ? [] : [`names payId ${String(named)}`]),
    ...(requiredHeadersOf(webhook).length > 0 && enhanced?.state !== read.json?.state
      ? [`state ${String(enhanced?.state)}, the payment's is ${read.json?.state}`]
      : []),
    ...(requiredHeadersOf(webhook).length > 0 && enhanced?.amount?.value !== read.json?.amount?.value
      ? [`amount ${String(enhanced?.amount?.value)}, the payment's is ${read.json?.amount?.value}`]
      : []),
  ];
  ctx.results.judge(
    'webhooks',
    {
      ...base,
      title: `${title} against the payment`,
      expected: 'the payment it names, as a read shows it',
      actual: 'consistent',
    },
    consistency,
  );
}

export async function checkWebhooks(ctx: RunContext, _fx: Fixtures): Promise<void> {
  if (!ctx.hosted)
    return ctx.results.skipCheck(
      'webhooks',
      'no --hosted: only the hosted page makes the results that send notifications',
    );
  if (ctx.readOnly) return ctx.results.skipCheck('webhooks', 'a live server: nothing may be created');
  if (!ctx.receiver) return;
  const payIds = (await Promise.all([hostedPayment(ctx, 'pay'), hostedPayment(ctx, 'decline')])).filter(
    (p): p is string => p !== undefined,
  );
  for (const payId of payIds) {
    const names = (w: ReceivedWebhook) => w.body.includes(payId);
    const arrived = await ctx.receiver.waitFor(names, 1, WAIT_MS);
    if (arrived.length === 0) {
      ctx.results.fail('webhooks', {
        operationId: '-',
        title: `a notification of ${payId}`,
        expected: `a notification within ${WAIT_MS / 1000} s`,
        actual: 'none arrived',
      });
      continue;
    }
    for (const received of arrived) await judgeNotification(ctx, payId, received);
  }
}
