// The hosted checkout end to end, in Chromium: the SDK creates a checkout session on a sandbox; the
// browser opens its redirect, reads the amount, currency and reference, and clicks Pay, Decline or
// Cancel (by role, as a screen reader names them; once with the keyboard alone); it lands on the
// merchant's shop (a local server) with the identifiers; the project's example webhook receiver
// (examples/webhook-server.ts, a child process) verifies the signed notification with the SDK; and
// payments.retrieve shows the final state. axe-core finds no serious or critical accessibility
// violation on the page. Screenshots of every page go to test-output/e2e/.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PaymentApiError } from '../../src/client/index.js';
import { e2ePerFile, isFocused, landOn, tabTo } from '../support/e2e.js';

const e2e = e2ePerFile('hosted');
const USD_25 = { amount: '$25.00', currency: 'USD' };

/** The one visit of the shop for the session: its /return page, with the identifiers the sandbox appends. */
const returnVisits = (session: { transId: string; sessionId: string }, payId: string, status: string) => [
  {
    path: '/return',
    query: { order: session.transId, payId, transId: session.transId, status, sessionId: session.sessionId },
  },
];

describe('hosted checkout in Chromium', () => {
  it('Pay: the customer sees the order, pays, returns to the shop with the ids; the example receiver verifies the notification; retrieve shows CAPTURED', async () => {
    const { client, site, example, screenshot, openCheckout, returnAfter } = e2e();
    const session = await e2e().checkout('E2E-PAY');
    const page = await openCheckout(session, USD_25);
    expect(await page.getByRole('radio', { name: 'CARD' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: 'PAYPAL' }).isChecked()).toBe(false);

    const landed = await returnAfter(page, 'Pay $25.00', 'pay');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Thank you for your order');
    const payId = landed.searchParams.get('payId')!;
    expect(payId).toMatch(/^\w+$/);
    expect(site.of(session.transId)).toEqual(returnVisits(session, payId, 'CAPTURED'));

    await example.waitForAccepted(payId);
    const payment = await client.payments.retrieve(payId);
    expect(payment).toMatchObject({
      payId,
      transId: session.transId,
      state: 'CAPTURED',
      paymentMethodType: 'CARD',
      integrationType: 'HOSTED',
      capturedAmount: { value: 2500, currency: 'USD' },
    });

    // The page is used once: opened again, it says so.
    expect((await page.goto(session.href))?.status()).toBe(410);
    await page.getByRole('heading', { name: 'Payment page already used' }).waitFor();
    await screenshot(page, 'pay-3-used');
  });

  it('Decline: the customer returns with status FAILED; the notification reports it; retrieve shows FAILED', async () => {
    const { client, site, example, openCheckout, returnAfter } = e2e();
    const session = await e2e().checkout('E2E-DECLINE', { amount: { value: 1500, currency: 'EUR' } });
    const page = await openCheckout(session, { amount: '€15.00', currency: 'EUR' });
    const landed = await returnAfter(page, /^Decline/, 'decline');
    const payId = landed.searchParams.get('payId')!;
    expect(site.of(session.transId)).toEqual(returnVisits(session, payId, 'FAILED'));
    await example.waitForAccepted(payId);
    const payment = await client.payments.retrieve(payId);
    expect(payment).toMatchObject({ payId, state: 'FAILED', capturedAmount: { value: 0, currency: 'EUR' } });
    expect(payment.operations?.at(-1)).toMatchObject({ status: 'FAILED' });
  });

  it('Cancel: the customer returns to the cancel URL with the transId and session id; no payment is made, the page stays usable', async () => {
    const { client, site, screenshot, openCheckout } = e2e();
    const session = await e2e().checkout('E2E-CANCEL');
    const page = await openCheckout(session, USD_25);
    await page.getByRole('button', { name: /^Cancel/ }).click();
    await landOn(page, site, '/cancel');
    await screenshot(page, 'cancel-1-cancel-page');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Checkout cancelled');
    expect(site.of(session.transId)).toEqual([
      { path: '/cancel', query: { order: session.transId, transId: session.transId, sessionId: session.sessionId } },
    ]);
    const missing = await client.payments.retrieveByTransId(session.transId).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(PaymentApiError);
    expect((missing as PaymentApiError).status).toBe(404);
    // Back to the page: the customer can still pay.
    await openCheckout(session, USD_25, page);
  });

  it('with the keyboard alone (Tab, arrow keys, Enter): the customer chooses PAYPAL and pays', async () => {
    const { client, site, example, screenshot, openCheckout } = e2e();
    const session = await e2e().checkout('E2E-KEYS', { amount: { value: 4990, currency: 'EUR' } });
    const page = await openCheckout(session, { amount: '€49.90', currency: 'EUR' });
    const card = page.getByRole('radio', { name: 'CARD' });
    const paypal = page.getByRole('radio', { name: 'PAYPAL' });
    const pay = page.getByRole('button', { name: 'Pay €49.90' });
    await tabTo(page, card);
    await page.keyboard.press('ArrowDown');
    expect(await isFocused(paypal)).toBe(true);
    expect(await paypal.isChecked()).toBe(true);
    await tabTo(page, pay);
    await screenshot(page, 'keyboard-1-pay-focused');
    await page.keyboard.press('Enter');
    const landed = await landOn(page, site, '/return');
    await screenshot(page, 'keyboard-2-return');
    const payId = landed.searchParams.get('payId')!;
    expect(landed.searchParams.get('status')).toBe('CAPTURED');
    await example.waitForAccepted(payId);
    expect(await client.payments.retrieve(payId)).toMatchObject({
      payId,
      state: 'CAPTURED',
      paymentMethodType: 'PAYPAL',
    });
  });

  it('axe-core finds no serious or critical accessibility violation on the hosted page', async () => {
    const { newPage, openCheckout } = e2e();
    const session = await e2e().checkout('E2E-AXE');
    // The page's CSP forbids any script; this context bypasses it to inject axe (from node_modules).
    const page = await openCheckout(session, USD_25, await newPage({ bypassCSP: true }));
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const results = await page.evaluate(() =>
      (
        window as unknown as {
          axe: {
            run(): Promise<{
              violations: Array<{ id: string; impact: string | null; nodes: unknown[] }>;
              passes: Array<{ id: string }>;
            }>;
          };
        }
      ).axe.run(),
    );
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
    expect(serious).toEqual([]);
    // It did look: the page's labels and contrast were checked and passed.
    expect(results.passes.map((p) => p.id)).toEqual(
      expect.arrayContaining(['label', 'color-contrast', 'document-title', 'html-has-lang']),
    );
  });
});
