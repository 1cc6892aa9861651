// `trigger <event>`: fixtures that make an event happen the way a merchant's integration would, as
// `stripe trigger` does: real calls to the merchant API through the project's SDK, the hosted page
// driven over HTTP like a customer's browser (GET the page, POST its form), and the admin API only
// where the outcome needs time (the test clock). Each ends by reading the result back through the
// merchant API and names the state it reached.
import { randomBytes } from 'node:crypto';
import { PaymentApiError, type PaymentClient } from '../../src/client/index.js';
import { CliError } from './admin-client.js';

export interface TriggerContext {
  /** The SDK on the merchant root of the chosen environment. */
  client: PaymentClient;
  /** Advances the scope's test clock by `seconds`, or to `to` (the admin API). */
  advanceClock(
    by: { seconds: number } | { to: string },
  ): Promise<{ captured: Array<{ payId: string }>; billed: Array<{ payId: string; paymentPlanId: string }> }>;
  /** Where the merchant's customer would be sent back (the return and cancel URLs). */
  shopUrl: string;
  /** The merchant's webhook URL for the payments made (`urls.webhook`); checkout sessions require one. */
  webhookUrl?: string;
}

export interface TriggerResult {
  event: string;
  /** The state the fixture must end in, read back through the merchant API. */
  state: string;
  transId: string;
  payId?: string;
  paymentPlanId?: string;
  /** What was called, in order, for the human output. */
  steps: string[];
}

export interface Fixture {
  description: string;
  /** The state it ends in. */
  expected: string;
  /** It advances the merchant's test clock: what else that merchant has open (sessions, links) may expire meanwhile. */
  advancesClock?: true;
  run(ctx: TriggerContext, result: TriggerResult): Promise<void>;
}

const newTransId = (event: string) =>
  `trigger-${event.replace(/[^a-z]+/g, '-')}-${randomBytes(4).toString('hex')}`.slice(0, 50);
const card = { integrationType: 'DIRECT', type: 'CARD' } as const;
const USD = (value: number) => ({ value, currency: 'USD' });

/** Creates a DIRECT card payment; a declined one (422) still has a payId. */
async function createPayment(
  ctx: TriggerContext,
  result: TriggerResult,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const body = {
    transId: result.transId,
    amount: USD(2500),
    paymentMethods: card,
    urls: ctx.webhookUrl ? { webhook: ctx.webhookUrl } : undefined,
    ...extra,
  };
  try {
    const created = await ctx.client.payments.create(body as never);
    result.steps.push(`POST /payments → 201 ${created.payId}`);
    return created.payId;
  } catch (err) {
    const payId = err instanceof PaymentApiError ? err.operationResult?.payId : undefined;
    if (!payId) throw err;
    result.steps.push(
      `POST /payments → 422 ${err instanceof PaymentApiError ? (err.operationResult?.responseCode ?? '') : ''}`.trim(),
    );
    return payId;
  }
}

/** Reads the payment back: the state the fixture ends in. */
async function settle(ctx: TriggerContext, result: TriggerResult, payId: string): Promise<void> {
  const details = await ctx.client.payments.retrieve(payId);
  result.steps.push(`GET /payments/getByPayId/${payId} → ${details.state}`);
  result.payId = payId;
  result.state = String(details.state);
}

/** A checkout session, then its hosted page as a customer's browser uses it: GET the page, POST its form with `decision`. */
async function checkout(
  ctx: TriggerContext,
  result: TriggerResult,
  decision: 'pay' | 'decline' | 'cancel',
): Promise<URL> {
  const session = await ctx.client.checkoutSessions.create({
    transId: result.transId,
    amount: USD(4200),
    urls: {
      return: `${ctx.shopUrl}/return`,
      cancel: `${ctx.shopUrl}/cancel`,
      webhook: ctx.webhookUrl ?? `${ctx.shopUrl}/webhooks`,
    },
  } as never);
  const pageUrl = session._links?.redirect?.href;
  if (!pageUrl) throw new CliError('the checkout session came without _links.redirect');
  result.steps.push('POST /payments/sessions → 202');
  const page = await fetch(pageUrl);
  const html = await page.text();
  if (page.status !== 200) throw new CliError(`the hosted page ${pageUrl} answered ${page.status}`);
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  const method = /<input type="radio" name="method" id="[^"]+" value="([^"]+)" checked/.exec(html)?.[1];
  if (!action || !method || !html.includes(`name="decision" value="${decision}"`))
    throw new CliError(`the hosted page ${pageUrl} has no form with a ${decision} button`);
  result.steps.push(`GET ${new URL(pageUrl).pathname} → 200`);
  const submitted = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ method, decision }).toString(),
    redirect: 'manual',
  });
  const location = submitted.headers.get('location');
  await submitted.body?.cancel();
  if (submitted.status !== 303 || !location)
    throw new CliError(`the hosted page's form answered ${submitted.status}, not a redirect`);
  result.steps.push(`POST ${new URL(action).pathname} decision=${decision} → 303 ${location}`);
  return new URL(location);
}

export const FIXTURES: Record<string, Fixture> = {
  'payment.captured': {
    description: 'a card payment captured at once (captureMethod AUTOMATIC)',
    expected: 'CAPTURED',
    async run(ctx, r) {
      await settle(ctx, r, await createPayment(ctx, r));
    },
  },
  'payment.authorized': {
    description: 'a card payment authorized, waiting for its capture (captureMethod MANUAL)',
    expected: 'AUTHORIZED',
    async run(ctx, r) {
      await settle(ctx, r, await createPayment(ctx, r, { captureMethod: { type: 'MANUAL' } }));
    },
  },
  'payment.declined': {
    description: 'a card payment declined by the provider (simulationMode DECLINED)',
    expected: 'FAILED',
    async run(ctx, r) {
      await settle(ctx, r, await createPayment(ctx, r, { simulationMode: 'DECLINED' }));
    },
  },
  'payment.refunded': {
    description: 'a captured card payment, refunded in full',
    expected: 'REFUNDED',
    async run(ctx, r) {
      const payId = await createPayment(ctx, r);
      await ctx.client.payments.refund(payId, { transId: `${r.transId}-R`.slice(0, 50), amount: USD(2500) } as never);
      r.steps.push(`POST /payments/${payId}/refunds → 200`);
      await settle(ctx, r, payId);
    },
  },
  'payment.reversed': {
    description: 'an authorized card payment, reversed before any capture',
    expected: 'REVERSED',
    async run(ctx, r) {
      const payId = await createPayment(ctx, r, { captureMethod: { type: 'MANUAL' } });
      await ctx.client.payments.reverse(payId, { transId: `${r.transId}-V`.slice(0, 50) } as never);
      r.steps.push(`POST /payments/${payId}/reversals → 200`);
      await settle(ctx, r, payId);
    },
  },
  'payment.delayed_capture': {
    description: 'a DELAYED card payment (delayedHours 1), captured when the test clock passes its hour',
    expected: 'CAPTURED',
    advancesClock: true,
    async run(ctx, r) {
      const payId = await createPayment(ctx, r, { captureMethod: { type: 'DELAYED', delayed: { delayedHours: 1 } } });
      const advanced = await ctx.advanceClock({ seconds: 3_601 });
      r.steps.push(`POST /_sandbox/clocks/…/advance {"seconds":3601} → captured ${advanced.captured.length}`);
      await settle(ctx, r, payId);
    },
  },
  'checkout.paid': {
    description: 'a checkout session paid by card on the hosted page',
    expected: 'CAPTURED',
    async run(ctx, r) {
      const landed = await checkout(ctx, r, 'pay');
      await settle(ctx, r, landed.searchParams.get('payId') ?? '');
    },
  },
  'checkout.declined': {
    description: 'a checkout session declined on the hosted page',
    expected: 'FAILED',
    async run(ctx, r) {
      const landed = await checkout(ctx, r, 'decline');
      await settle(ctx, r, landed.searchParams.get('payId') ?? '');
    },
  },
  'checkout.cancelled': {
    description: 'a checkout session cancelled on the hosted page: back at urls.cancel, no payment made',
    expected: 'NO_PAYMENT',
    async run(ctx, r) {
      const landed = await checkout(ctx, r, 'cancel');
      if (landed.pathname !== '/cancel')
        throw new CliError(`the cancel ended on ${landed.toString()}, not on urls.cancel`);
      // A cancelled session makes no payment: its transId is unknown to the merchant API.
      try {
        const payment = await ctx.client.payments.retrieveByTransId(r.transId);
        r.payId = payment.payId;
        r.state = String(payment.state);
      } catch (err) {
        if (!(err instanceof PaymentApiError && err.status === 404)) throw err;
        r.steps.push(`GET /payments/getByTransId/${r.transId} → 404`);
        r.state = 'NO_PAYMENT';
      }
    },
  },
  'plan.billed': {
    description:
      'a monthly recurring plan (from an initial credential-on-file payment), billed when the test clock reaches its next payment date',
    expected: 'CAPTURED',
    advancesClock: true,
    async run(ctx, r) {
      const initial = await createPayment(ctx, r, {
        amount: { value: 1999, currency: 'EUR' },
        customerInfo: {
          merchantCustomerId: `${r.transId}-c`.slice(0, 50),
          firstName: 'Lena',
          lastName: 'Schmidt',
          email: 'lena@example.com',
        },
        credentialOnFile: { initialPayment: true, type: 'RECURRING', recurring: { frequency: 'MONTHLY' } },
        paymentMethods: {
          ...card,
          card: { cardNumber: '4111111111111111', expiryDate: '203012', cardHolderName: 'Lena Schmidt' },
        },
      });
      const planId = (await ctx.client.payments.retrieve(initial)).paymentPlanId;
      if (!planId) throw new CliError(`the initial payment ${initial} made no payment plan`);
      const plan = await ctx.client.paymentPlans.retrieve(planId);
      const next = (plan as { recurring?: { nextPaymentDate?: string } }).recurring?.nextPaymentDate;
      if (!next) throw new CliError(`the plan ${planId} has no nextPaymentDate`);
      r.steps.push(`GET /payment-plans/${planId} → nextPaymentDate ${next}`);
      r.paymentPlanId = planId;
      const to = new Date(Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(next) ? next : `${next}Z`) + 60_000).toISOString();
      const advanced = await ctx.advanceClock({ to });
      const billed = advanced.billed.find((b) => b.paymentPlanId === planId);
      r.steps.push(`POST /_sandbox/clocks/…/advance {"to":"${to}"} → billed ${advanced.billed.length}`);
      if (!billed) throw new CliError(`advancing the clock to ${to} did not bill the plan ${planId}`);
      await settle(ctx, r, billed.payId);
    },
  },
};

export const EVENTS = Object.keys(FIXTURES);

export async function runTrigger(event: string, ctx: TriggerContext): Promise<TriggerResult> {
  const fixture = FIXTURES[event];
  if (!fixture) throw new CliError(`unknown event ${JSON.stringify(event)}; known events: ${EVENTS.join(', ')}`);
  const result: TriggerResult = { event, state: '', transId: newTransId(event), steps: [] };
  await fixture.run(ctx, result);
  if (result.state !== fixture.expected)
    throw new CliError(
      `${event}: the payment ${result.payId ?? result.transId} ended ${result.state}, not ${fixture.expected}`,
    );
  return result;
}
