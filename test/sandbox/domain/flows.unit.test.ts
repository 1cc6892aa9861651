// Checkout sessions, payment links and payment intents (sandbox/domain/flows.ts) without HTTP: their
// lifetimes, the link body, and the confirmation of an intent (the payment it makes, and why it is
// refused: confirmed already, or no amount).
import { describe, expect, it } from 'vitest';
import {
  confirmIntent,
  createIntent,
  createLink,
  createSession,
  LINK_LIFETIME_MS,
  linkBody,
  refusedIntentResult,
  SESSION_LIFETIME_MS,
} from '../../../sandbox/domain/flows.js';
import { createPayment } from '../../../sandbox/domain/payments.js';
import type { Schemas } from '../../../sandbox/domain/types.js';
import { DAY, HOUR, MERCHANT_URLS, newPayment, SCOPE, T0, testDomain } from '../../support/domain.js';

const SESSION: Schemas['CheckoutSessionRequest'] = {
  transId: 'S-1',
  amount: { value: 2500, currency: 'EUR' },
  urls: MERCHANT_URLS,
};
const LINK: Schemas['PaymentLinkRequest'] = { transId: 'L-1', amount: { value: 1500, currency: 'EUR', taxTotal: 100 } };

describe('createSession', () => {
  it('is OPEN, and expires an hour after its creation unless the request says when', () => {
    const ctx = testDomain();
    const s = createSession(SCOPE, SESSION, ctx);
    expect(SESSION_LIFETIME_MS).toBe(HOUR);
    expect(s).toEqual({
      id: 'cs_0001',
      scope: SCOPE,
      status: 'OPEN',
      request: SESSION,
      createdAt: T0,
      expiresAt: new Date(Date.parse(T0) + HOUR).toISOString(),
    });
    expect(createSession(SCOPE, { ...SESSION, expirationTime: '2026-11-24T09:05:00.000Z' }, ctx).expiresAt).toBe(
      '2026-11-24T09:05:00.000Z',
    );
  });
});

describe('createLink and linkBody', () => {
  it('is ACTIVE, and expires seven days after its creation unless the request says when', () => {
    const ctx = testDomain();
    const l = createLink(SCOPE, LINK, ctx);
    expect(LINK_LIFETIME_MS).toBe(7 * DAY);
    expect(l).toEqual({
      id: 'pl_0001',
      scope: SCOPE,
      status: 'ACTIVE',
      request: LINK,
      createdAt: T0,
      expiresAt: new Date(Date.parse(T0) + 7 * DAY).toISOString(),
    });
    expect(createLink(SCOPE, { ...LINK, expirationTime: '2027-01-01T00:00:00.000Z' }, ctx).expiresAt).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });

  it('the body: the url given, the amount as value and currency, the expiry, the status, the payId once paid', () => {
    const ctx = testDomain();
    const l = createLink(SCOPE, LINK, ctx);
    expect(linkBody(l, 'https://sandbox.example/hosted/links/test/m/pl_0001')).toEqual({
      id: 'pl_0001',
      url: 'https://sandbox.example/hosted/links/test/m/pl_0001',
      transId: 'L-1',
      amount: { value: 1500, currency: 'EUR' },
      expirationTime: l.expiresAt,
      status: 'ACTIVE',
    });
    expect(linkBody({ ...l, status: 'PAID', payId: 'pay_9' }, 'u')).toMatchObject({ payId: 'pay_9', status: 'PAID' });
  });
});

describe('confirmIntent', () => {
  const REQUEST: Schemas['PaymentIntentRequest'] = {
    transId: 'PI-1',
    refNr: 'R-1',
    amount: { value: 990, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    metadata: { app: 'ios' },
    simulationMode: 'SUCCESS',
    order: { merchantReference: 'O-1' },
    urls: { return: 'https://shop.example/ok' },
    customerInfo: { merchantCustomerId: 'c-1', email: 'a@example.com' },
    credentialOnFile: { type: 'RECURRING', initialPayment: true },
    referencePayId: 'pay_prev',
    fraudData: {},
  } as Schemas['PaymentIntentRequest'];

  it('a new intent is CREATED, with its request', () => {
    const ctx = testDomain();
    expect(createIntent(SCOPE, REQUEST, ctx)).toEqual({
      id: 'pi_0001',
      scope: SCOPE,
      status: 'CREATED',
      request: REQUEST,
      createdAt: T0,
    });
  });

  it("makes the intent's payment with the method the app chose; the intent becomes CONFIRMED", () => {
    const ctx = testDomain();
    const intent = createIntent(SCOPE, REQUEST, ctx);
    const c = confirmIntent(intent, { integrationType: 'DIRECT', type: 'CARD' });
    if (c.outcome !== 'ok') throw new Error(c.code);
    expect(c.intent).toEqual({ ...intent, status: 'CONFIRMED' });
    // a DIRECT card payment of the intent's scope, MANUAL as the intent asked: newPayment's defaults
    expect(c.payment).toEqual(
      newPayment({
        transId: 'PI-1',
        refNr: 'R-1',
        amount: { value: 990, currency: 'EUR' },
        details: {
          order: { merchantReference: 'O-1' },
          urls: { return: 'https://shop.example/ok' },
          customerInfo: { merchantCustomerId: 'c-1', email: 'a@example.com' },
          referencePayId: 'pay_prev',
        },
        metadata: { app: 'ios' },
        simulationMode: 'SUCCESS',
      }),
    );
    // the intent's credential on file is of its own kind: the payment does not take it over
    expect(c.payment.details.credentialOnFile).toBeUndefined();
    expect(createPayment(c.payment, ctx).payment).toMatchObject({ state: 'AUTHORIZED', authorizedValue: 990 });
  });

  it("the payment's transId is the intent id when the intent has none; a HOSTED selection makes a pending payment", () => {
    const ctx = testDomain();
    const intent = createIntent(SCOPE, { amount: { value: 100, currency: 'EUR' } }, ctx);
    const c = confirmIntent(intent, { integrationType: 'HOSTED', type: 'PAYPAL' });
    if (c.outcome !== 'ok') throw new Error(c.code);
    expect(c.payment).toMatchObject({
      transId: intent.id,
      integrationType: 'HOSTED',
      paymentMethodType: 'PAYPAL',
      details: {},
    });
    expect(c.payment.captureMethod).toBeUndefined();
    expect(createPayment(c.payment, ctx).payment.state).toBe('PENDING');
  });

  it('is refused with INTENT_ALREADY_CONFIRMED once confirmed', () => {
    const ctx = testDomain();
    const c = confirmIntent(createIntent(SCOPE, REQUEST, ctx), { integrationType: 'DIRECT', type: 'CARD' });
    if (c.outcome !== 'ok') throw new Error(c.code);
    expect(confirmIntent(c.intent, { integrationType: 'DIRECT', type: 'CARD' })).toEqual({
      outcome: 'refused',
      code: 'INTENT_ALREADY_CONFIRMED',
    });
  });

  it('is refused with INTENT_INCOMPLETE when the intent has no amount; a confirmed one without amount is confirmed already', () => {
    const ctx = testDomain();
    const intent = createIntent(SCOPE, { transId: 'PI-0' }, ctx);
    expect(confirmIntent(intent, { integrationType: 'DIRECT', type: 'CARD' })).toEqual({
      outcome: 'refused',
      code: 'INTENT_INCOMPLETE',
    });
    expect(confirmIntent({ ...intent, status: 'CONFIRMED' }, { integrationType: 'DIRECT', type: 'CARD' })).toEqual({
      outcome: 'refused',
      code: 'INTENT_ALREADY_CONFIRMED',
    });
  });

  it('refusedIntentResult: FAILED with the contract code, the transId (the intent id without one) and the payId when there is one', () => {
    const ctx = testDomain();
    const intent = createIntent(SCOPE, { transId: 'PI-0' }, ctx);
    const body = refusedIntentResult(intent, 'INTENT_INCOMPLETE', ctx);
    expect(body).toEqual({
      merchantId: SCOPE.merchantId,
      transId: 'PI-0',
      status: 'FAILED',
      ...ctx.code('INTENT_INCOMPLETE'),
    });
    expect(ctx.nameOf(body.responseCode!)).toBe('INTENT_INCOMPLETE');
    const withoutTransId = createIntent(SCOPE, {}, ctx);
    const confirmed = refusedIntentResult(
      { ...withoutTransId, status: 'CONFIRMED', payId: 'pay_7' },
      'INTENT_ALREADY_CONFIRMED',
      ctx,
    );
    expect(confirmed).toEqual({
      merchantId: SCOPE.merchantId,
      transId: withoutTransId.id,
      payId: 'pay_7',
      status: 'FAILED',
      ...ctx.code('INTENT_ALREADY_CONFIRMED'),
    });
  });
});
