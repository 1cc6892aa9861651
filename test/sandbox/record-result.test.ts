// The payment record's result follows the payment, on SQLite (HTTP_STORES): after each change that
// no request of the merchant's made on the spot (the customer's choice on the hosted page, a
// confirmation, the DELAYED capture and a plan's billing on the test clock, an expiry), getByPayId's
// `status`, `responseCode` and `responseDescription` at the top report the payment's latest outcome,
// with the codes of the contract's x-response-codes.
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../sandbox/domain/types.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import {
  bearerOf,
  merchantUrls,
  sandboxContract,
  sandboxWithReceiverPerSuite,
  submitHostedForm,
  transId,
} from '../support/sandbox.js';

const dbs = databases();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A code of the contract's x-response-codes, by name. */
const code = (name: string) => {
  const schemas = (sandboxContract().document.components as { schemas: Record<string, Record<string, unknown>> })
    .schemas;
  const codes = (schemas.ResultCode!['x-response-codes'] as { codes: Record<string, object> }).codes;
  const entry = codes[name];
  if (!entry) throw new Error(`no response code ${name} in the contract`);
  return entry as { responseCode: string; responseDescription: string };
};
const OK = () => ({ status: 'OK', ...code('SUCCESS') });
const FAILED = (name: string) => ({ status: 'FAILED', ...code(name) });

describe.each(HTTP_STORES)("the payment record's result on %s", (kind) => {
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { maxAttempts: 3, retryBaseMs: 40, timeoutMs: 2_000, pollMs: 25 },
  });
  const scope = (): Scope => ({ merchantId: sandbox().merchant.merchantId, environment: 'test' });
  const clocks = () => sandbox().sandbox.clocks;
  const advance = async (ms: number) => clocks().advance(scope(), { byMs: ms });
  const now = async () => (await clocks().get(scope())).now;

  /** getByPayId's top-level result, its state, and the xId of each operation. */
  const record = async (payId: string) => {
    const r = await sandbox().call('GET', `/payments/getByPayId/${payId}`);
    expect(r.status).toBe(200);
    const { status, responseCode, responseDescription, state, xId } = r.body;
    return {
      top: { status, responseCode, responseDescription },
      state,
      xId,
      operations: r.body.operations as Array<{ type: string; xId: string; status: string }>,
    };
  };
  const hostedPayment = async (extra: Record<string, unknown> = {}) => {
    const id = transId('HOSTED');
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: id,
        amount: { value: 1250, currency: 'EUR' },
        urls: merchantUrls(`${receiver.url}/hooks/${id}`),
        ...extra,
      },
    });
    expect(created.status).toBe(201);
    const payId = created.body.payId as string;
    const href = created.body._links.redirect.href as string;
    return { id, payId, href };
  };
  const submit = submitHostedForm;

  it('hosted page, Pay: the capture is the outcome, OK with 00000000', async () => {
    const { payId, href } = await hostedPayment();
    expect((await submit(href, { method: 'CARD', decision: 'pay' })).status).toBe(303);
    const r = await record(payId);
    expect(r.state).toBe('CAPTURED');
    expect(r.top).toEqual(OK());
    expect(r.xId).toBe(r.operations.at(-1)!.xId);
    expect(r.operations.map((o) => o.type)).toEqual(['CREATION', 'AUTHORIZATION', 'CAPTURE']);
  });

  it('hosted page, Pay declined by the simulationMode: FAILED with the simulated code', async () => {
    const { payId, href } = await hostedPayment({ simulationMode: 'INSUFFICIENT_FUNDS' });
    await submit(href, { method: 'CARD', decision: 'pay' });
    const r = await record(payId);
    expect(r.state).toBe('FAILED');
    expect(r.top).toEqual(FAILED('INSUFFICIENT_FUNDS'));
  });

  it('hosted page, Decline: FAILED with 21000055, and the notification says so too', async () => {
    const { id, payId, href } = await hostedPayment();
    expect((await submit(href, { decision: 'decline' })).status).toBe(303);
    const r = await record(payId);
    expect(r.state).toBe('FAILED');
    expect(r.top).toEqual(FAILED('DECLINED'));
    expect(r.xId).toBe(r.operations[1]!.xId);
    const hook = await receiver.first(`/hooks/${id}`, 'the notification');
    expect(JSON.parse(hook.body)).toMatchObject({ payId, state: 'FAILED', ...FAILED('DECLINED') });
  });

  it('hosted page, Cancel decides nothing: the payment still waits, its record reports its creation', async () => {
    const { payId, href } = await hostedPayment();
    const cancelled = await submit(href, { decision: 'cancel' });
    expect(cancelled.status).toBe(303);
    const location = new URL(cancelled.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(merchantUrls().cancel);
    const r = await record(payId);
    expect(r.state).toBe('PENDING');
    expect(r.top).toEqual(OK());
    expect(r.operations.map((o) => o.type)).toEqual(['CREATION']);
  });

  it('confirmation: confirmed, the confirmation is the outcome; declined, the record reports the decline (not the creation)', async () => {
    const multiStep = async (extra: Record<string, unknown>) => {
      const created = await sandbox().call('POST', '/payments', {
        body: {
          transId: transId('KLARNA'),
          amount: { value: 4000, currency: 'EUR' },
          paymentMethods: { integrationType: 'DIRECT', type: 'KLARNA' },
          ...extra,
        },
      });
      expect(created.status).toBe(201);
      return created.body.payId as string;
    };
    const confirmed = await multiStep({});
    expect((await record(confirmed)).state).toBe('PENDING_CONFIRMATION');
    const ok = await sandbox().call('POST', `/payments/${confirmed}/confirms`, { body: { transId: transId('C') } });
    expect(ok.status).toBe(200);
    const r = await record(confirmed);
    expect(r.top).toEqual(OK());
    // AUTOMATIC: the confirmation's capture follows it, and is the latest outcome.
    expect(r.operations.map((o) => o.type)).toEqual(['CREATION', 'CONFIRMATION', 'CAPTURE']);
    expect(r.operations[1]!.xId).toBe(ok.body.xId);
    expect(r.xId).toBe(r.operations[2]!.xId);

    const declined = await multiStep({ simulationMode: 'DECLINED' });
    const no = await sandbox().call('POST', `/payments/${declined}/confirms`, { body: { transId: transId('C') } });
    expect(no.status).toBe(422);
    const d = await record(declined);
    expect(d.state).toBe('FAILED');
    expect(d.top).toEqual(FAILED('DECLINED'));
    expect(d.xId).toBe(no.body.xId);
  });

  it('confirmation of a payment intent: the payment it makes reports its result, a decline included', async () => {
    const intent = await sandbox().call('POST', '/payment-intents', {
      body: { transId: transId('INTENT'), amount: { value: 700, currency: 'EUR' }, simulationMode: 'DECLINED' },
    });
    expect(intent.status).toBe(201);
    const confirmed = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
      headers: { authorization: await bearerOf(sandbox()) },
      body: { integrationType: 'DIRECT', type: 'CARD' },
    });
    expect(confirmed.body.payId).toBeDefined();
    const r = await record(confirmed.body.payId);
    expect(r.state).toBe('FAILED');
    expect(r.top).toEqual(FAILED('DECLINED'));
  });

  it('DELAYED capture on the clock: the capture is the outcome, OK with 00000000 and its own xId', async () => {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: transId('DELAYED'),
        amount: { value: 2500, currency: 'USD' },
        captureMethod: { type: 'DELAYED', delayed: { delayedHours: 1 } },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      },
    });
    const payId = created.body.payId as string;
    const before = await record(payId);
    expect(before.state).toBe('AUTHORIZED');
    expect((await advance(HOUR + 1_000)).captured.map((c) => c.payId)).toContain(payId);
    const r = await record(payId);
    expect(r.state).toBe('CAPTURED');
    expect(r.top).toEqual(OK());
    expect(r.xId).not.toBe(before.xId);
    expect(r.xId).toBe(r.operations.at(-1)!.xId);
    expect(r.operations.at(-1)!.type).toBe('CAPTURE');
  });

  it("plan billing on the clock: the charge's payment reports its own result", async () => {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: transId('COF'),
        amount: { value: 1999, currency: 'EUR' },
        customerInfo: { merchantCustomerId: transId('cust'), firstName: 'Lena', lastName: 'Schmidt' },
        credentialOnFile: { initialPayment: true, type: 'RECURRING', recurring: { frequency: 'MONTHLY' } },
        paymentMethods: {
          integrationType: 'DIRECT',
          type: 'CARD',
          card: { cardNumber: '4111111111111111', expiryDate: '203012', cardHolderName: 'Lena Schmidt' },
        },
      },
    });
    const planId = (await sandbox().call('GET', `/payments/getByPayId/${created.body.payId}`)).body
      .paymentPlanId as string;
    const advanced = await advance(32 * DAY);
    const billed = advanced.billed.find((b) => b.paymentPlanId === planId);
    expect(billed).toBeDefined();
    const r = await record(billed!.payId);
    expect(r.state).toBe('CAPTURED');
    expect(r.top).toEqual(OK());
    expect(r.xId).toBe(r.operations.at(-1)!.xId);
  });

  it('expiry on the clock: a HOSTED payment past its expirationTime is FAILED with 22000013, its page says expired, the merchant is notified', async () => {
    const expirationTime = new Date((await now()).getTime() + HOUR).toISOString();
    const { id, payId, href } = await hostedPayment({ expirationTime });
    expect((await record(payId)).top).toEqual(OK());
    await advance(HOUR - 60_000);
    expect((await record(payId)).state).toBe('PENDING');
    await advance(2 * 60_000);
    const r = await record(payId);
    expect(r.state).toBe('FAILED');
    expect(r.top).toEqual(FAILED('PAYMENT_EXPIRED'));
    expect(r.operations.map((o) => [o.type, o.status])).toEqual([
      ['CREATION', 'OK'],
      ['AUTHORIZATION', 'FAILED'],
    ]);
    const page = await fetch(href);
    expect(page.status).toBe(410);
    expect(await page.text()).toMatch(/expired/);
    const hook = await receiver.first(`/hooks/${id}`, 'the expiry notification');
    expect(JSON.parse(hook.body)).toMatchObject({ payId, state: 'FAILED', ...FAILED('PAYMENT_EXPIRED') });
  });

  it('expiry on the clock: an intent confirmed on the hosted page and a payment awaiting its confirmation expire alike', async () => {
    const expirationTime = new Date((await now()).getTime() + HOUR).toISOString();
    const intent = await sandbox().call('POST', '/payment-intents', {
      body: { transId: transId('INTENT'), amount: { value: 700, currency: 'EUR' }, expirationTime },
    });
    const hosted = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
      headers: { authorization: await bearerOf(sandbox()) },
      body: { integrationType: 'HOSTED', type: 'CARD' },
    });
    expect((await record(hosted.body.payId)).state).toBe('PENDING');
    const unconfirmed = await sandbox().call('POST', '/payments', {
      body: {
        transId: transId('PAYPAL'),
        amount: { value: 900, currency: 'EUR' },
        expirationTime,
        paymentMethods: { integrationType: 'DIRECT', type: 'PAYPAL' },
      },
    });
    expect((await record(unconfirmed.body.payId)).state).toBe('PENDING_CONFIRMATION');
    await advance(HOUR + 1_000);
    for (const payId of [hosted.body.payId, unconfirmed.body.payId]) {
      const r = await record(payId);
      expect(r.state).toBe('FAILED');
      expect(r.top).toEqual(FAILED('PAYMENT_EXPIRED'));
    }
    const late = await sandbox().call('POST', `/payments/${unconfirmed.body.payId}/confirms`, {
      body: { transId: transId('C') },
    });
    expect(late.status).toBe(422);
    expect(late.body.responseCode).toBe(code('NOT_AWAITING_CONFIRMATION').responseCode);
    expect((await record(unconfirmed.body.payId)).top).toEqual(FAILED('PAYMENT_EXPIRED'));
  });
});
