// The test clock end to end: the customer pays in Chromium on the hosted page, then the merchant's
// test clock is advanced through the admin API (POST /_sandbox/clocks/{merchantId}/test/advance), as
// a front-end developer would against `npm run sandbox`. A DELAYED checkout is captured when the clock
// passes delayedHours, not before; a recurring plan started at checkout bills when the clock passes
// its date, not before. The notifications reach the project's example receiver, which verifies
// them with the SDK; the states are read through the public API with the SDK.
import { describe, expect, it } from 'vitest';
import { e2ePerFile } from '../support/e2e.js';

const e2e = e2ePerFile('clock');
const MINUTE = 60_000;

const clockPath = () => `/clocks/${e2e().merchant.merchantId}/test`;
/** The merchant's test clock now. */
const clockNow = async () => {
  const answer = await e2e().admin('GET', clockPath());
  expect(answer.status).toBe(200);
  return Date.parse(answer.body.now);
};
/** Advances the merchant's test clock to `to`; what ran meanwhile. */
const advanceTo = async (
  to: number,
): Promise<{
  captured: Array<{ payId: string }>;
  billed: Array<{ paymentPlanId: string; payId: string; at: string; status: string }>;
}> => {
  const answer = await e2e().admin('POST', `${clockPath()}/advance`, { to: new Date(to).toISOString() });
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('the test clock after a hosted checkout in Chromium', () => {
  it('a DELAYED checkout is authorized at Pay and captured when the clock passes delayedHours, not before', async () => {
    const { client, example, openCheckout, returnAfter } = e2e();
    const session = await e2e().checkout('E2E-DELAYED', {
      captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } },
    });
    const page = await openCheckout(session, { amount: '$25.00', currency: 'USD' });
    const landed = await returnAfter(page, 'Pay $25.00', 'delayed');
    expect(landed.searchParams.get('status')).toBe('AUTHORIZED');
    const payId = landed.searchParams.get('payId')!;
    await example.waitForAccepted(payId, 1);
    const authorized = await client.payments.retrieve(payId);
    expect(authorized).toMatchObject({
      state: 'AUTHORIZED',
      captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } },
    });
    const captureAt = Date.parse(authorized.captureTime!);
    expect(captureAt - (await clockNow())).toBeGreaterThan(2 * 60 * MINUTE - MINUTE);

    const early = await advanceTo(captureAt - MINUTE);
    expect(early.captured.map((c) => c.payId)).not.toContain(payId);
    expect((await client.payments.retrieve(payId)).state).toBe('AUTHORIZED');

    const due = await advanceTo(captureAt + 1_000);
    expect(due.captured.map((c) => c.payId)).toContain(payId);
    const captured = await client.payments.retrieve(payId);
    expect(captured).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 2500, currency: 'USD' } });
    expect(captured.operations?.map((o) => o.type)).toEqual(['CREATION', 'AUTHORIZATION', 'CAPTURE']);
    // The capture's notification: the second verified one for this payment.
    await example.waitForAccepted(payId, 2);
  });

  it('a recurring plan started at checkout bills when the clock passes its date, not before; the billing is notified and listed', async () => {
    const { client, example, openCheckout, returnAfter } = e2e();
    const session = await e2e().checkout('E2E-RECURRING', {
      amount: { value: 1999, currency: 'EUR' },
      customerInfo: {
        merchantCustomerId: `cust-${Date.now()}`,
        firstName: 'Lena',
        lastName: 'Schmidt',
        email: 'lena@example.com',
      },
      credentialOnFile: { type: 'RECURRING', initialPayment: true, recurring: { frequency: 'MONTHLY' } },
    });
    const page = await openCheckout(session, { amount: '€19.99', currency: 'EUR' });
    const landed = await returnAfter(page, 'Pay €19.99', 'recurring');
    expect(landed.searchParams.get('status')).toBe('CAPTURED');
    const payId = landed.searchParams.get('payId')!;
    await example.waitForAccepted(payId);
    const initial = await client.payments.retrieve(payId);
    const planId = initial.paymentPlanId!;
    expect(planId).toBeTruthy();
    const plan = await client.paymentPlans.retrieve(planId);
    expect(plan).toMatchObject({ planStatus: 'ACTIVE', recurring: { frequency: 'MONTHLY' } });
    const first = `${plan.recurring!.nextPaymentDate}Z`;
    expect((await client.paymentPlans.listPayments(planId)).totalNumberOfItems).toBe(1);

    const early = await advanceTo(Date.parse(first) - MINUTE);
    expect(early.billed.filter((b) => b.paymentPlanId === planId)).toEqual([]);
    expect((await client.paymentPlans.listPayments(planId)).totalNumberOfItems).toBe(1);

    const due = await advanceTo(Date.parse(first) + MINUTE);
    const billed = due.billed.filter((b) => b.paymentPlanId === planId);
    expect(billed).toEqual([expect.objectContaining({ paymentPlanId: planId, at: first, status: 'CAPTURED' })]);
    const billedPayId = billed[0]!.payId;
    expect(await client.paymentPlans.retrieve(planId)).toMatchObject({ planStatus: 'ACTIVE', lastBillingDate: first });
    const payments = await client.paymentPlans.listPayments(planId);
    expect(payments.totalNumberOfItems).toBe(2);
    expect(payments.data?.[1]).toMatchObject({
      payId: billedPayId,
      amount: { value: 1999, currency: 'EUR' },
      billingDate: first,
    });
    expect(await client.payments.retrieve(billedPayId)).toMatchObject({
      state: 'CAPTURED',
      paymentPlanId: planId,
      amount: { value: 1999, currency: 'EUR' },
    });
    // The billing's notification reaches the checkout's webhook URL, signed.
    await example.waitForAccepted(billedPayId);
  });
});
