// The sandbox in this process, as a front-end team's unit tests use it (Vitest under Node, jsdom):
// `createSandbox()` from @payment-service/sandbox's source and its MSW handlers on msw/node's
// setupServer, driven by the SDK through a client made before the MSW server started. No process,
// no listening socket, no connection: the in-process project's guard throws on any. Its answers are
// the HTTP sandbox's (one application): a payment created, captured and refunded; a checkout paid on
// its hosted page with the signed webhook delivered to onWebhook (verified with the SDK's helper),
// retried after a listener throws; the contract's problems for a bad request; the admin calls; a
// snapshot restored; two in-process sandboxes kept apart; a seeded one reproducible.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxHandlers } from '../../packages/sandbox/src/msw.js';
import { createSandbox } from '../../packages/sandbox/src/node-sandbox.js';
import type { InProcessSandbox, MerchantCredentials } from '../../packages/sandbox/src/types.js';
import { createPaymentClient, type PaymentClient } from '../../src/client/index.js';
import { constructEnhancedNotification } from '../../src/webhooks/index.js';

const card = (transId: string) => ({
  transId,
  amount: { value: 11_900, currency: 'EUR' },
  captureMethod: { type: 'MANUAL' as const },
  paymentMethods: { integrationType: 'DIRECT' as const, type: 'CARD' as const },
});

let sandbox: InProcessSandbox;
let merchant: MerchantCredentials;
let client: PaymentClient;
let server: ReturnType<typeof setupServer>;

beforeAll(async () => {
  sandbox = await createSandbox();
  merchant = await sandbox.createMerchant();
  // Made before MSW starts: it reads globalThis.fetch at each call.
  client = createPaymentClient({ ...merchant, baseUrl: sandbox.baseUrl, maxAttempts: 1 });
  server = setupServer(...sandboxHandlers(sandbox));
  server.listen({ onUnhandledRequest: 'error' });
});

afterAll(async () => {
  server?.close();
  await sandbox?.close();
});

describe('createSandbox() behind msw/node', () => {
  it('creates, captures and refunds a payment through the SDK, answered by the sandbox’s rules', async () => {
    const payment = await client.payments.create(card('ORD-2026-000123'));
    expect((await client.payments.retrieve(payment.payId)).state).toBe('AUTHORIZED');
    await client.payments.capture(payment.payId, {
      transId: 'ORD-2026-000123-CAP1',
      amount: { value: 11_900, currency: 'EUR' },
    });
    await client.payments.refund(payment.payId, {
      transId: 'ORD-2026-000123-RFD1',
      amount: { value: 2_500, currency: 'EUR' },
    });
    const details = await client.payments.retrieveByTransId('ORD-2026-000123');
    expect(details).toMatchObject({ payId: payment.payId, state: 'PARTIALLY_REFUNDED' });
    // A refund beyond what is left is the rules' 422, not an example's 200.
    const beyond = await client.payments
      .refund(payment.payId, { transId: 'ORD-2026-000123-RFD2', amount: { value: 20_000, currency: 'EUR' } })
      .catch((e: unknown) => e as { status: number });
    expect(beyond.status).toBe(422);
    // A bad request is the contract's problem, naming the field.
    const bad = await sandbox.fetch(
      new Request(`${sandbox.baseUrl}/payments`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa(`${merchant.merchantId}:${merchant.apiKey}`)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ transId: 'ORD-2026-000124' }),
      }),
    );
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { type: string; errors: object };
    expect(problem.type).toMatch(/\/problems\/validation-error$/);
    expect(Object.keys(problem.errors)).toContain('amount');
  });

  it('plays a checkout on its hosted page and delivers the signed webhook to onWebhook, again after a listener threw', async () => {
    const received: Array<{ payId: string; url: string }> = [];
    let failures = 1;
    const stop = sandbox.onWebhook(async (request) => {
      if (failures-- > 0) throw new Error('the receiver is down');
      const notification = await constructEnhancedNotification(
        await request.text(),
        request.headers,
        merchant.webhookSecret,
      );
      received.push({ payId: notification.payId, url: request.url });
    });
    try {
      const session = await client.checkoutSessions.create({
        transId: 'ORD-2026-000130',
        amount: { value: 4_990, currency: 'EUR' },
        urls: {
          return: 'https://shop.test/ok',
          cancel: 'https://shop.test/cancel',
          webhook: 'https://shop.test/hooks',
        },
      });
      const href = (session as unknown as { _links: { redirect: { href: string } } })._links.redirect.href;
      expect(href.startsWith(`${sandbox.origin}/hosted/sessions/test/`)).toBe(true);
      await sandbox.hosted.pay(href);
      const deadline = Date.now() + 10_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(received).toHaveLength(1);
      expect(received[0]!.url).toBe('https://shop.test/hooks');
      expect((await client.payments.retrieve(received[0]!.payId)).state).toBe('CAPTURED');
    } finally {
      stop();
    }
  }, 20_000);

  it('takes admin calls: a snapshot restored, a reset, a clock advanced, a merchant deleted', async () => {
    const payment = await client.payments.create(card('ORD-2026-000140'));
    const snapshotId = await sandbox.snapshot({ merchantId: merchant.merchantId, environment: 'test' });
    await client.payments.capture(payment.payId, {
      transId: 'ORD-2026-000140-CAP1',
      amount: { value: 11_900, currency: 'EUR' },
    });
    await sandbox.restore(snapshotId);
    expect((await client.payments.retrieve(payment.payId)).state).toBe('AUTHORIZED');
    await sandbox.advanceClock({ merchantId: merchant.merchantId }, { seconds: 3600 });
    await sandbox.reset({ merchantId: merchant.merchantId });
    const gone = await client.payments.retrieve(payment.payId).catch((e: unknown) => e as { status: number });
    expect(gone.status).toBe(404);
    const other = await sandbox.createMerchant({ merchantId: 'in_process_other' });
    await sandbox.deleteMerchant(other.merchantId);
    await expect(sandbox.deleteMerchant(other.merchantId)).rejects.toMatchObject({ status: 404 });
  });

  it('keeps two in-process sandboxes apart, and a seeded one gives the same ids again', async () => {
    const [a, b] = [await createSandbox({ seed: 7, now: '2026-03-01T09:00:00Z' }), await createSandbox()];
    try {
      const ma = await a.createMerchant({ merchantId: 'shop' });
      const mb = await b.createMerchant({ merchantId: 'shop' });
      expect(ma.apiKey).not.toBe(mb.apiKey);
      const basic = (m: MerchantCredentials) => `Basic ${btoa(`${m.merchantId}:${m.apiKey}`)}`;
      const create = (s: InProcessSandbox, m: MerchantCredentials) =>
        s.fetch(
          new Request(`${s.baseUrl}/payments`, {
            method: 'POST',
            headers: { authorization: basic(m), 'content-type': 'application/json' },
            body: JSON.stringify(card('ORD-2026-000150')),
          }),
        );
      const inA = (await (await create(a, ma)).json()) as { payId: string };
      expect((await create(b, mb)).status).toBe(201);
      const lookup = await b.fetch(
        new Request(`${b.baseUrl}/payments/getByPayId/${inA.payId}`, { headers: { authorization: basic(mb) } }),
      );
      expect(lookup.status).toBe(404);
      const again = await createSandbox({ seed: 7, now: '2026-03-01T09:00:00Z' });
      try {
        const m = await again.createMerchant({ merchantId: 'shop' });
        expect(m).toEqual(ma);
        const body = (await (await create(again, m)).json()) as { payId: string };
        expect(body.payId).toBe(inA.payId);
      } finally {
        await again.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
