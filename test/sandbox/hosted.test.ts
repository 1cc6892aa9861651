// The hosted payment page and webhook delivery, on SQLite (HTTP_STORES): a checkout session, a
// payment link and a HOSTED payment are paid, declined or cancelled through the page's form (as a
// browser without JavaScript sends it); the customer lands on the merchant's URLs with the
// identifiers the contract documents; the merchant's endpoint receives the notification from the
// outbox, signed with the SDK's helper, retried until it answers 2xx, dead-lettered after N attempts
// and resent.
import { describe, expect, it } from 'vitest';
import { resendDelivery } from '../../sandbox/app/webhooks.js';
import type { WebhookDelivery } from '../../sandbox/domain/types.js';
import type { MerchantCredentials } from '../../sandbox/server.js';
import { constructEnhancedNotification } from '../../src/webhooks/index.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { eventually } from '../support/receiver.js';
import {
  newMerchant,
  payOnHostedPage,
  sandboxContract,
  sandboxWithReceiverPerSuite,
  submitHostedForm,
  transId,
} from '../support/sandbox.js';
import { createSchemaValidator, formatErrors } from '../support/schema.js';

const dbs = databases();
const MAX_ATTEMPTS = 5;

const redirectParameters = () => {
  const schema = (sandboxContract().document.components as { schemas: Record<string, Record<string, unknown>> }).schemas
    .PaymentUrls!;
  return schema['x-redirect-parameters'] as { return: string[]; cancel: string[] };
};

describe.each(HTTP_STORES)('hosted page and webhooks on %s', (kind) => {
  const basicMerchant = { ...newMerchant('basic'), webhookKind: 'basic' as const };
  const rotating = {
    ...newMerchant('rotating'),
    webhookSecret: ['whsec_new_0123456789abcdef', 'whsec_old_0123456789abcdef'],
  };
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { maxAttempts: MAX_ATTEMPTS, retryBaseMs: 40, timeoutMs: 2_000, pollMs: 25 },
    merchants: [basicMerchant, rotating],
  });
  const validator = createSchemaValidator(sandboxContract().document as never);

  const urls = (name: string) => ({
    return: `https://shop.example.com/done?order=${name}`,
    cancel: `https://shop.example.com/cancelled`,
    webhook: `${receiver.url}/hooks/${name}`,
  });
  /** GET the page (HTML), then post the form as a browser would; the answer is not followed. */
  const page = (href: string) => fetch(href, { redirect: 'manual' });
  const submit = submitHostedForm;
  const deliveries = (payId: string) => sandbox().sandbox.store.webhooks.list({ payId });
  /** A HOSTED payment of `who` (the suite's merchant unless given), paid by card: its notification goes to `/hooks/<id>`. */
  const paid = (id: string, who?: MerchantCredentials) =>
    payOnHostedPage(sandbox().call, {
      webhook: `${receiver.url}/hooks/${id}`,
      transId: id,
      amount: { value: 700, currency: 'USD' },
      who,
    });

  it('a checkout session: the page shows the amount and reference, Pay captures, the customer returns with the ids, the signed notification arrives', async () => {
    const id = transId('SESSION');
    const created = await sandbox().call('POST', '/payments/sessions', {
      body: {
        transId: id,
        amount: { value: 2500, currency: 'USD' },
        urls: urls(id),
        allowedPaymentMethods: ['CARD', 'PAYPAL'],
      },
    });
    expect(created.status).toBe(202);
    const href = created.body._links.redirect.href as string;
    expect(href.startsWith(sandbox().url)).toBe(true);

    const shown = await page(href);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('25.00');
    expect(html).toContain(id);
    expect(html).toContain('value="PAYPAL"');
    expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(shown.headers.get('content-security-policy')).toContain('https://shop.example.com');

    const paid = await submit(href, { method: 'CARD', decision: 'pay' });
    expect(paid.status).toBe(303);
    const location = new URL(paid.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example.com/done');
    expect(location.searchParams.get('order')).toBe(id); // the merchant's own parameter is kept
    expect(location.searchParams.get('transId')).toBe(id);
    expect(location.searchParams.get('status')).toBe('CAPTURED');
    expect(location.searchParams.get('sessionId')).toBe(href.split('/').at(-1));
    for (const name of location.searchParams.keys())
      if (name !== 'order') expect(redirectParameters().return).toContain(name);
    const payId = location.searchParams.get('payId')!;

    const retrieved = await sandbox().call('GET', `/payments/getByPayId/${payId}`);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toMatchObject({ payId, transId: id, state: 'CAPTURED', paymentMethodType: 'CARD' });

    // used once: the page says so, and a second post changes nothing
    const again = await page(href);
    expect(again.status).toBe(410);
    expect(await again.text()).toMatch(/already been completed/);
    expect((await submit(href, { method: 'CARD', decision: 'pay' })).status).toBe(410);

    const hook = await receiver.first(`/hooks/${id}`, 'the notification');
    const notification = await constructEnhancedNotification(
      hook.body,
      hook.headers as Record<string, string>,
      sandbox().merchant.webhookSecret as string,
    );
    expect(notification.payId).toBe(payId);
    expect(formatErrors(validator.validateComponent('EnhancedWebhookNotification', JSON.parse(hook.body)))).toBe('');
    expect(JSON.parse(hook.body)).toEqual(retrieved.body);
    const [delivery] = await eventually('the delivery to be saved', async () =>
      (await deliveries(payId))[0]?.status === 'DELIVERED' ? deliveries(payId) : undefined,
    );
    expect(delivery!.attempts).toHaveLength(1);
  });

  it('a HOSTED payment: Decline fails it, the customer returns with status FAILED, the notification reports it', async () => {
    const id = transId('HOSTED');
    const created = await sandbox().call('POST', '/payments', {
      body: { transId: id, amount: { value: 1500, currency: 'EUR' }, urls: urls(id) },
    });
    expect(created.status).toBe(201);
    const href = created.body._links.redirect.href as string;
    const declined = await submit(href, { decision: 'decline' });
    expect(declined.status).toBe(303);
    const location = new URL(declined.headers.get('location')!);
    expect(location.searchParams.get('status')).toBe('FAILED');
    expect(location.searchParams.get('payId')).toBe(created.body.payId);
    const retrieved = await sandbox().call('GET', `/payments/getByPayId/${created.body.payId}`);
    expect(retrieved.body.state).toBe('FAILED');
    expect(retrieved.body.operations.at(-1)).toMatchObject({ status: 'FAILED' });
    const hook = await receiver.first(`/hooks/${id}`, 'the notification');
    expect(JSON.parse(hook.body).payId).toBe(created.body.payId);
  });

  it('a HOSTED intent confirmation answers with the hosted page; Pay there authorizes with the method the app chose', async () => {
    const id = transId('INTENT');
    const intent = await sandbox().call('POST', '/payment-intents', {
      body: {
        transId: id,
        amount: { value: 3490, currency: 'EUR' },
        captureMethod: { type: 'MANUAL' },
        urls: urls(id),
      },
    });
    expect(intent.status).toBe(201);
    const token = await sandbox().call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const confirmed = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
      headers: { authorization: `Bearer ${token.body.access_token}` },
      body: { integrationType: 'HOSTED', type: 'PAYPAL' },
    });
    expect(confirmed.status).toBe(201);
    const href = confirmed.body._links.redirect.href as string;
    expect(href).toBe(`${sandbox().url}/hosted/payments/test/${sandbox().merchant.merchantId}/${confirmed.body.payId}`);
    const page = await (await fetch(href)).text();
    expect(page).toContain('value="PAYPAL"');
    expect(page).not.toContain('value="CARD"');
    const paid = await submit(href, { decision: 'pay', method: 'PAYPAL' });
    expect(paid.status).toBe(303);
    expect(new URL(paid.headers.get('location')!).searchParams.get('status')).toBe('AUTHORIZED');
    expect((await sandbox().call('GET', `/payments/getByPayId/${confirmed.body.payId}`)).body).toMatchObject({
      state: 'AUTHORIZED',
      paymentMethodType: 'PAYPAL',
    });
  });

  it('a payment link: Cancel returns to urls.cancel with the link id and leaves the link usable; a forged method is refused', async () => {
    const id = transId('LINK');
    const created = await sandbox().call('POST', '/payments/links', {
      body: { transId: id, amount: { value: 990, currency: 'GBP' }, urls: urls(id), allowedPaymentMethods: ['CARD'] },
    });
    expect(created.status).toBe(201);
    const href = created.body.url as string;
    const cancelled = await submit(href, { decision: 'cancel' });
    expect(cancelled.status).toBe(303);
    const location = new URL(cancelled.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example.com/cancelled');
    expect(Object.fromEntries(location.searchParams)).toEqual({ transId: id, linkId: created.body.id });
    for (const name of location.searchParams.keys()) expect(redirectParameters().cancel).toContain(name);
    expect((await page(href)).status).toBe(200);
    expect((await submit(href, { method: 'KLARNA', decision: 'pay' })).status).toBe(400);
    const paid = await submit(href, { method: 'CARD', decision: 'pay' });
    expect(paid.status).toBe(303);
    expect(new URL(paid.headers.get('location')!).searchParams.get('status')).toBe('CAPTURED');
    expect((await page(href)).status).toBe(410); // a link is used once
  });

  it('pages that do not exist answer 404 in HTML, never a stack trace', async () => {
    for (const path of [
      '/hosted/sessions/test/nobody/cs_missing',
      `/hosted/sessions/test/${sandbox().merchant.merchantId}/cs_missing`,
      `/hosted/unknown/test/${sandbox().merchant.merchantId}/x`,
    ]) {
      const r = await page(`${sandbox().url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await r.text()).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('a receiver that fails three times and then answers 200 gets four attempts and one acknowledged delivery', async () => {
    const id = transId('RETRY');
    receiver.answer(`/hooks/${id}`, [500, 503, 500]);
    const payId = await paid(id);
    const delivered = await eventually('the delivery', async () => {
      const [d] = await deliveries(payId);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([500, 503, 500, 200]);
    expect(receiver.on(`/hooks/${id}`)).toHaveLength(4);
    // exponential back-off: the waits are at least 40, 80 and 160 ms
    const gaps = delivered.attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(delivered.attempts[i]!.at));
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(40 * 2 ** i));
  });

  it('a receiver that never acknowledges is dead-lettered after N attempts; a resend delivers it once the receiver is back', async () => {
    const id = transId('DEAD');
    receiver.answer(`/hooks/${id}`, Array(MAX_ATTEMPTS).fill(500));
    const payId = await paid(id);
    const dead: WebhookDelivery = await eventually('the dead letter', async () =>
      (await deliveries(payId))[0]?.status === 'DEAD' ? (await deliveries(payId))[0] : undefined,
    );
    expect(dead.attempts).toHaveLength(MAX_ATTEMPTS);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on(`/hooks/${id}`)).toHaveLength(MAX_ATTEMPTS);

    await resendDelivery(sandbox().sandbox.store, dead.scope, dead.id, new Date());
    sandbox().sandbox.deliverer.kick();
    const delivered = await eventually('the resent delivery', async () => {
      const [d] = await deliveries(payId);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(delivered.attempts).toHaveLength(MAX_ATTEMPTS + 1);
    expect(receiver.on(`/hooks/${id}`)).toHaveLength(MAX_ATTEMPTS + 1);
  });

  it('per merchant: basic notifications carry the payId unsigned; while a secret rotates, every secret signs', async () => {
    const basicId = transId('BASIC');
    const basicPayId = await paid(basicId, basicMerchant);
    const basic = await receiver.first(`/hooks/${basicId}`, 'the basic notification');
    expect(JSON.parse(basic.body)).toEqual({ payId: basicPayId });
    expect(basic.headers['x-webhook-signature']).toBeUndefined();

    const rotId = transId('ROTATE');
    const rotatedPayId = await paid(rotId, rotating);
    const signed = await receiver.first(`/hooks/${rotId}`, 'the signed notification');
    const header = signed.headers['x-webhook-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of rotating.webhookSecret) {
      expect(
        (await constructEnhancedNotification(signed.body, signed.headers as Record<string, string>, secret)).payId,
      ).toBe(rotatedPayId);
    }
  });
});
