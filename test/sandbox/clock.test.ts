// The test clocks, on SQLite (HTTP_STORES): one per scope, advanced forward only; what falls due
// in between runs in order, each item at its own time: DELAYED captures `delayedHours` after the
// authorization, recurring and installment plans billing on their dates (a plan payment and a
// notification each), pending webhook retries; idempotency keys and bearer tokens expire on it;
// hosted pages expire on it; and the wall clock's passing runs what falls due without an advance.
import { describe, expect, it } from 'vitest';
import { ClockError } from '../../sandbox/app/clock.js';
import type { Scope } from '../../sandbox/domain/types.js';
import { TOKEN_LIFETIME_SECONDS } from '../../sandbox/http/auth.js';
import { IDEMPOTENCY_RETENTION_MS } from '../../sandbox/http/pipeline.js';
import { constructEnhancedNotification } from '../../src/webhooks/index.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { eventually } from '../support/receiver.js';
import { sandboxWithReceiverPerSuite, transId } from '../support/sandbox.js';

const dbs = databases();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const VISA = '4111111111111111';

describe.each(HTTP_STORES)('test clocks on %s', (kind) => {
  // Retries an hour apart: only the clock can make them due within a test.
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { maxAttempts: 4, retryBaseMs: HOUR, retryCapMs: DAY, timeoutMs: 2_000, pollMs: 25 },
  });

  const scope = (environment: Scope['environment'] = 'test'): Scope => ({
    merchantId: sandbox().merchant.merchantId,
    environment,
  });
  const clocks = () => sandbox().sandbox.clocks;
  /** Advances the merchant's test clock by `ms`. */
  const advance = async (ms: number, environment: Scope['environment'] = 'test') => {
    const { now } = await clocks().get(scope(environment));
    return clocks().advance(scope(environment), new Date(now.getTime() + ms));
  };
  const details = async (payId: string, root: 'test' | 'live' = 'test') => {
    const r = await sandbox().call('GET', `/payments/getByPayId/${payId}`, { root });
    expect(r.status).toBe(200);
    return r.body;
  };
  const delayed = async (hours: number, extra: Record<string, unknown> = {}, root: 'test' | 'live' = 'test') => {
    const created = await sandbox().call('POST', '/payments', {
      root,
      body: {
        transId: transId('DELAYED'),
        amount: { value: 2500, currency: 'USD' },
        captureMethod: { type: 'DELAYED', delayed: { delayedHours: hours } },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        ...extra,
      },
    });
    expect(created.status).toBe(201);
    return details(created.body.payId, root);
  };
  const initialPayment = async (credentialOnFile: Record<string, unknown>, webhookPath?: string) => {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: transId('COF'),
        amount: { value: 1999, currency: 'EUR' },
        customerInfo: {
          merchantCustomerId: transId('cust'),
          firstName: 'Lena',
          lastName: 'Schmidt',
          email: 'lena@example.com',
        },
        credentialOnFile: { initialPayment: true, ...credentialOnFile },
        paymentMethods: {
          integrationType: 'DIRECT',
          type: 'CARD',
          card: { cardNumber: VISA, expiryDate: '203012', cardHolderName: 'Lena Schmidt' },
        },
        ...(webhookPath ? { urls: { webhook: `${receiver.url}${webhookPath}` } } : {}),
      },
    });
    expect(created.status).toBe(201);
    return (await details(created.body.payId)).paymentPlanId as string;
  };
  const plan = async (id: string) => (await sandbox().call('GET', `/payment-plans/${id}`)).body;
  const planPayments = async (id: string) => (await sandbox().call('GET', `/payment-plans/${id}/payments`)).body;

  it('a DELAYED payment is captured when its clock passes delayedHours, at that time, and the merchant is notified', async () => {
    const payment = await delayed(2, { urls: { webhook: `${receiver.url}/delayed` } });
    expect(payment.state).toBe('AUTHORIZED');
    const early = await advance(HOUR);
    expect(early.captured.map((c) => c.payId)).not.toContain(payment.payId);
    expect((await details(payment.payId)).state).toBe('AUTHORIZED');

    const late = await advance(HOUR + 1_000);
    expect(late.captured).toContainEqual({
      payId: payment.payId,
      at: payment.captureTime,
      amount: { value: 2500, currency: 'USD' },
    });
    const after = await details(payment.payId);
    expect(after).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 2500, currency: 'USD' } });
    expect(after.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);

    const delivery = await receiver.first('/delayed', 'the capture notification');
    const notification = await constructEnhancedNotification(
      delivery.body,
      delivery.headers,
      sandbox().merchant.webhookSecret as string,
    );
    expect(notification).toMatchObject({ payId: payment.payId, state: 'CAPTURED' });
    // Captured once: a further advance does nothing to it.
    expect((await advance(DAY)).captured.map((c) => c.payId)).not.toContain(payment.payId);
  });

  it('a reversed or fully captured DELAYED payment is left alone', async () => {
    const reversed = await delayed(1);
    expect(
      (await sandbox().call('POST', `/payments/${reversed.payId}/reversals`, { body: { transId: transId('REV') } }))
        .status,
    ).toBe(200);
    const captured = await delayed(1);
    expect(
      (
        await sandbox().call('POST', `/payments/${captured.payId}/captures`, {
          body: { transId: transId('CAP'), amount: { value: 2500, currency: 'USD' } },
        })
      ).status,
    ).toBe(200);
    const result = await advance(2 * HOUR);
    expect(result.captured.map((c) => c.payId)).not.toEqual(expect.arrayContaining([reversed.payId]));
    expect(result.captured.map((c) => c.payId)).not.toEqual(expect.arrayContaining([captured.payId]));
    expect((await details(reversed.payId)).state).toBe('REVERSED');
    expect((await details(captured.payId)).operations).toHaveLength(2);
  });

  it('the wall clock passing captures too: due a moment after the advance, captured without another', async () => {
    const payment = await delayed(1);
    const { now } = await clocks().get(scope());
    const result = await clocks().advance(
      scope(),
      new Date(Math.max(now.getTime(), Date.parse(payment.captureTime) - 1_500)),
    );
    expect(result.captured.map((c) => c.payId)).not.toContain(payment.payId);
    await eventually(
      'the capture by the ticker',
      async () => ((await details(payment.payId)).state === 'CAPTURED' ? true : undefined),
      15_000,
    );
  });

  it('a recurring plan bills on its dates: a plan payment and a notification each; lastBillingDate and nextPaymentDate follow', async () => {
    const id = await initialPayment({ type: 'RECURRING', recurring: { frequency: 'MONTHLY' } }, '/recurring');
    const before = await plan(id);
    const first = `${before.recurring.nextPaymentDate}Z`;
    const { now } = await clocks().get(scope());
    const one = await clocks().advance(scope(), new Date(Date.parse(first) + 60_000));
    expect(one.billed).toEqual([expect.objectContaining({ paymentPlanId: id, at: first, status: 'CAPTURED' })]);
    const billed = await plan(id);
    expect(billed).toMatchObject({ planStatus: 'ACTIVE', lastBillingDate: first });
    expect(Date.parse(`${billed.recurring.nextPaymentDate}Z`)).toBeGreaterThan(Date.parse(first) + 27 * DAY);
    const payments = await planPayments(id);
    expect(payments.totalNumberOfItems).toBe(2);
    expect(payments.data[1]).toMatchObject({
      payId: one.billed[0]!.payId,
      amount: { value: 1999, currency: 'EUR' },
      billingDate: first,
    });
    // The billing is a payment of its own, retrievable, charged under a transId naming the plan.
    expect(await details(one.billed[0]!.payId)).toMatchObject({ state: 'CAPTURED', paymentPlanId: id });

    // Three months on: three more billings, in order, each on its date.
    const three = await clocks().advance(scope(), new Date(Date.parse(first) + 92 * DAY));
    const mine = three.billed.filter((b) => b.paymentPlanId === id);
    expect(mine).toHaveLength(3);
    expect([...mine].sort((a, b) => a.at.localeCompare(b.at))).toEqual(mine);
    expect((await planPayments(id)).totalNumberOfItems).toBe(5);
    expect(now.getTime()).toBeLessThan(Date.parse(first));
    await eventually('four billing notifications', () => (receiver.on('/recurring').length >= 4 ? true : undefined));
  });

  it('an installment plan completes after its last installment and bills no more', async () => {
    const id = await initialPayment({
      type: 'INSTALLMENTS',
      installments: { total: 3, curIdx: 1, frequency: 'WEEKLY' },
    });
    const result = await advance(30 * DAY);
    expect(result.billed.filter((b) => b.paymentPlanId === id)).toHaveLength(2);
    const done = await plan(id);
    expect(done).toMatchObject({
      planStatus: 'COMPLETED',
      installments: { totalInstallments: 3, paidInstallments: 3 },
    });
    expect(done.installments.nextPaymentDate).toBeUndefined();
    expect((await advance(30 * DAY)).billed.filter((b) => b.paymentPlanId === id)).toEqual([]);
  });

  it('a recurring plan past its expiry date completes instead of billing', async () => {
    const { now } = await clocks().get(scope());
    const expiry = new Date(now.getTime() + 40 * DAY).toISOString().slice(0, 10);
    const id = await initialPayment({ type: 'RECURRING', recurring: { frequency: 'MONTHLY', expiryDate: expiry } });
    const result = await advance(100 * DAY);
    expect(result.billed.filter((b) => b.paymentPlanId === id)).toHaveLength(1);
    expect(await plan(id)).toMatchObject({ planStatus: 'COMPLETED' });
  });

  it('a pending webhook retry falls due when the clock passes its wait', async () => {
    const id = transId('RETRY');
    receiver.answer('/retry', [503]);
    const session = await sandbox().call('POST', '/payments/sessions', {
      body: {
        transId: id,
        amount: { value: 4200, currency: 'EUR' },
        urls: { return: `${receiver.url}/return`, cancel: `${receiver.url}/cancel`, webhook: `${receiver.url}/retry` },
      },
    });
    expect(session.status).toBe(202);
    const page = await fetch(session.body._links.redirect.href, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'pay', method: 'CARD' }),
      redirect: 'manual',
    });
    expect(page.status).toBe(303);
    await eventually('the first, failed attempt', () => (receiver.on('/retry').length === 1 ? true : undefined));
    // The receiver may see the attempt before the sandbox has recorded its failure.
    const pending = await eventually('the failed attempt recorded', async () => {
      const [d] = await sandbox()
        .sandbox.store.webhooks.list({ scope: scope() })
        .then((all) => all.filter((d) => d.url.endsWith('/retry')));
      return d?.attempts.length === 1 ? d : undefined;
    });
    expect(pending).toMatchObject({ status: 'PENDING' });
    expect(Date.parse(pending!.nextAttemptAt) - Date.now()).toBeGreaterThan(HOUR - 60_000);

    const result = await advance(HOUR);
    expect(result.webhooksDue).toBeGreaterThanOrEqual(1);
    await eventually('the retry', () => (receiver.on('/retry').length === 2 ? true : undefined));
    const delivered = await eventually('the delivery acknowledged', async () => {
      const d = await sandbox().sandbox.store.webhooks.get(scope(), pending!.id);
      return d?.status === 'DELIVERED' ? d : undefined;
    });
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([503, 200]);
  });

  it('idempotency keys expire when the clock passes their retention', async () => {
    const key = `idem-${transId('k')}`;
    const body = (id: string) => ({
      transId: id,
      amount: { value: 1000, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    });
    const headers = { 'idempotency-key': key };
    expect((await sandbox().call('POST', '/payments', { body: body(transId('IDEM-A')), headers })).status).toBe(201);
    expect((await sandbox().call('POST', '/payments', { body: body(transId('IDEM-B')), headers })).status).toBe(409);
    await advance(IDEMPOTENCY_RETENTION_MS + 1_000);
    const reused = await sandbox().call('POST', '/payments', { body: body(transId('IDEM-B')), headers });
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
  });

  it('bearer tokens expire on the clock of their merchant and root', async () => {
    const token = await sandbox().call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(200);
    const bearer = { authorization: `Bearer ${token.body.access_token}` };
    expect((await sandbox().call('GET', '/customers', { headers: bearer })).status).toBe(200);
    await advance(TOKEN_LIFETIME_SECONDS * 1000 + 1_000);
    const expired = await sandbox().call('GET', '/customers', { headers: bearer });
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/);
  });

  it('a checkout session expires on the clock: its page then says so', async () => {
    const id = transId('EXPIRE');
    const session = await sandbox().call('POST', '/payments/sessions', {
      body: {
        transId: id,
        amount: { value: 990, currency: 'GBP' },
        urls: { return: `${receiver.url}/return`, cancel: `${receiver.url}/cancel`, webhook: `${receiver.url}/expire` },
      },
    });
    const href = session.body._links.redirect.href as string;
    expect((await fetch(href)).status).toBe(200);
    await advance(2 * HOUR);
    const page = await fetch(href);
    expect(page.status).toBe(410);
    expect(await page.text()).toMatch(/expired/);
  });

  it('each scope has its own clock: advancing one moves neither the live root nor another merchant', async () => {
    const live = await delayed(1, {}, 'live');
    const before = await clocks().get(scope('live'));
    const other = await clocks().get({ merchantId: sandbox().other.merchantId, environment: 'test' });
    const result = await advance(3 * HOUR);
    expect(result.captured.map((c) => c.payId)).not.toContain(live.payId);
    expect((await details(live.payId, 'live')).state).toBe('AUTHORIZED');
    expect((await clocks().get(scope('live'))).offsetMs).toBe(before.offsetMs);
    expect((await clocks().get({ merchantId: sandbox().other.merchantId, environment: 'test' })).offsetMs).toBe(
      other.offsetMs,
    );
    expect((await advance(3 * HOUR, 'live')).captured.map((c) => c.payId)).toContain(live.payId);
  });

  it('a clock never goes back', async () => {
    const { now } = await clocks().get(scope());
    await expect(clocks().advance(scope(), new Date(now.getTime() - 60_000))).rejects.toThrow(ClockError);
    expect((await clocks().get(scope())).now.getTime()).toBeGreaterThanOrEqual(now.getTime());
  });
});
