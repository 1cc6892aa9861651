// The hosted page's rules (sandbox/domain/hosted.ts) without HTTP: whether a HOSTED payment, a
// checkout session or a payment link is open (used, expired, open, at the very instant of expiry),
// what it offers, the payment a session or link becomes, both used once whatever the result, the
// redirect targets, the notification bodies and the retry delays.
import { describe, expect, it } from 'vitest';
import { createLink, createSession } from '../../../sandbox/domain/flows.js';
import {
  DEFAULT_HOSTED_METHODS,
  type HostedTarget,
  hostedAvailability,
  notificationBody,
  paymentOfHostedRequest,
  redirectTarget,
  retryDelayMs,
  usedHostedTarget,
} from '../../../sandbox/domain/hosted.js';
import { completeOnHostedPage, createPayment, expirePayment } from '../../../sandbox/domain/payments.js';
import type { CheckoutSession, PaymentLink, PaymentState, Schemas } from '../../../sandbox/domain/types.js';
import { HOUR, MERCHANT_URLS, newPayment, SCOPE, testDomain } from '../../support/domain.js';

const SESSION: Schemas['CheckoutSessionRequest'] = {
  transId: 'S-1',
  refNr: 'R-1',
  amount: { value: 2500, currency: 'USD', taxTotal: 200 },
  urls: MERCHANT_URLS,
  captureMethod: { type: 'MANUAL' },
  metadata: { k: 'v' },
  simulationMode: 'DECLINED',
  order: { merchantReference: 'O-1' },
  allowedPaymentMethods: ['PAYPAL', 'CARD'],
  template: { name: 'dark' },
} as Schemas['CheckoutSessionRequest'];
const LINK: Schemas['PaymentLinkRequest'] = { transId: 'L-1', amount: { value: 1500, currency: 'EUR' } };

const session = (ctx = testDomain(), request = SESSION) => ({
  kind: 'sessions' as const,
  session: createSession(SCOPE, request, ctx),
});
const link = (ctx = testDomain(), request = LINK) => ({
  kind: 'links' as const,
  link: createLink(SCOPE, request, ctx),
});

describe('hostedAvailability of a HOSTED payment', () => {
  it('while PENDING: offers its amount, reference, urls, and the methods (its own, else the defaults)', () => {
    const ctx = testDomain();
    const any = createPayment(
      newPayment({ integrationType: 'HOSTED', paymentMethodType: undefined, details: { urls: MERCHANT_URLS } }),
      ctx,
    ).payment;
    expect(hostedAvailability({ kind: 'payments', payment: any }, ctx.now)).toEqual({
      open: true,
      offer: {
        amount: { value: 10_000, currency: 'EUR' },
        reference: 'T-1',
        methods: DEFAULT_HOSTED_METHODS,
        urls: MERCHANT_URLS,
      },
    });
    const paypal = createPayment(newPayment({ integrationType: 'HOSTED', paymentMethodType: 'PAYPAL' }), ctx).payment;
    const offer = hostedAvailability({ kind: 'payments', payment: paypal }, ctx.now);
    expect(offer).toMatchObject({ open: true, offer: { methods: ['PAYPAL'], urls: {} } });
  });

  it.each(['AUTHORIZED', 'CAPTURED', 'FAILED', 'REVERSED', 'PENDING_CONFIRMATION'] as PaymentState[])(
    'is used once %s',
    (state) => {
      const ctx = testDomain();
      const payment = { ...createPayment(newPayment({ integrationType: 'HOSTED' }), ctx).payment, state };
      expect(hostedAvailability({ kind: 'payments', payment }, ctx.now)).toEqual({ open: false, reason: 'used' });
    },
  );

  it('a payment the customer paid or declined is used', () => {
    const ctx = testDomain();
    const pending = createPayment(newPayment({ integrationType: 'HOSTED' }), ctx).payment;
    for (const choice of [{ decision: 'pay' as const, paymentMethodType: 'CARD' }, { decision: 'decline' as const }]) {
      const decided = completeOnHostedPage(pending, choice, ctx).payment;
      expect(hostedAvailability({ kind: 'payments', payment: decided }, ctx.now)).toEqual({
        open: false,
        reason: 'used',
      });
    }
  });

  it('a payment the clock expired says expired, not used', () => {
    const ctx = testDomain();
    const expirationTime = '2026-11-24T10:00:00.000Z';
    const pending = createPayment(newPayment({ integrationType: 'HOSTED', details: { expirationTime } }), ctx).payment;
    ctx.at(expirationTime);
    const expired = expirePayment(pending, ctx).payment;
    expect(expired.state).toBe('FAILED');
    expect(hostedAvailability({ kind: 'payments', payment: expired }, ctx.now)).toEqual({
      open: false,
      reason: 'expired',
    });
  });

  it('expires at its expirationTime (that instant included); without one it never does', () => {
    const ctx = testDomain();
    const expiring = createPayment(
      newPayment({ integrationType: 'HOSTED', details: { expirationTime: '2026-11-24T10:00:00.000Z' } }),
      ctx,
    ).payment;
    const target: HostedTarget = { kind: 'payments', payment: expiring };
    expect(hostedAvailability(target, new Date('2026-11-24T09:59:59.999Z')).open).toBe(true);
    expect(hostedAvailability(target, new Date('2026-11-24T10:00:00.000Z'))).toEqual({
      open: false,
      reason: 'expired',
    });
    const forever = createPayment(newPayment({ integrationType: 'HOSTED' }), ctx).payment;
    expect(hostedAvailability({ kind: 'payments', payment: forever }, new Date('2099-01-01T00:00:00Z')).open).toBe(
      true,
    );
  });

  it('a used payment is reported used, even after its expiry', () => {
    const ctx = testDomain();
    const payment = {
      ...createPayment(
        newPayment({ integrationType: 'HOSTED', details: { expirationTime: '2026-11-24T10:00:00.000Z' } }),
        ctx,
      ).payment,
      state: 'CAPTURED' as const,
    };
    expect(hostedAvailability({ kind: 'payments', payment }, new Date('2027-01-01T00:00:00Z'))).toEqual({
      open: false,
      reason: 'used',
    });
  });
});

describe('hostedAvailability of a checkout session', () => {
  it('while OPEN and before its expiry: offers its amount, reference, urls and allowed methods', () => {
    const ctx = testDomain();
    const target = session(ctx);
    expect(hostedAvailability(target, ctx.now)).toEqual({
      open: true,
      offer: {
        amount: { value: 2500, currency: 'USD' },
        reference: 'S-1',
        methods: ['PAYPAL', 'CARD'],
        urls: MERCHANT_URLS,
      },
    });
    const { allowedPaymentMethods: _, ...withoutMethods } = SESSION;
    expect(hostedAvailability(session(ctx, withoutMethods), ctx.now)).toMatchObject({
      open: true,
      offer: { methods: DEFAULT_HOSTED_METHODS },
    });
  });

  it('expires an hour after its creation (that instant included)', () => {
    const ctx = testDomain();
    const target = session(ctx);
    expect(hostedAvailability(target, new Date(ctx.now.getTime() + HOUR - 1)).open).toBe(true);
    expect(hostedAvailability(target, new Date(ctx.now.getTime() + HOUR))).toEqual({ open: false, reason: 'expired' });
  });

  it.each([
    ['COMPLETED', 'used'],
    ['CANCELLED', 'used'],
    ['EXPIRED', 'expired'],
  ] as Array<[CheckoutSession['status'], string]>)('%s is %s', (status, reason) => {
    const ctx = testDomain();
    const s = session(ctx).session;
    expect(hostedAvailability({ kind: 'sessions', session: { ...s, status } }, ctx.now)).toEqual({
      open: false,
      reason,
    });
  });
});

describe('hostedAvailability of a payment link', () => {
  it('while ACTIVE and before its expiry: offers its amount and the default methods; urls may be absent', () => {
    const ctx = testDomain();
    expect(hostedAvailability(link(ctx), ctx.now)).toEqual({
      open: true,
      offer: { amount: { value: 1500, currency: 'EUR' }, reference: 'L-1', methods: DEFAULT_HOSTED_METHODS, urls: {} },
    });
  });

  it('expires seven days after its creation, or at the expirationTime sent', () => {
    const ctx = testDomain();
    const target = link(ctx);
    expect(hostedAvailability(target, new Date(Date.parse(target.link.expiresAt) - 1)).open).toBe(true);
    expect(hostedAvailability(target, new Date(target.link.expiresAt))).toEqual({ open: false, reason: 'expired' });
    const short = link(ctx, { ...LINK, expirationTime: '2026-11-24T09:30:00.000Z' });
    expect(hostedAvailability(short, new Date('2026-11-24T09:30:00.000Z'))).toEqual({ open: false, reason: 'expired' });
  });

  it.each([
    ['PAID', 'used'],
    ['FAILED', 'used'],
    ['EXPIRED', 'expired'],
  ] as Array<[PaymentLink['status'], string]>)('%s is %s', (status, reason) => {
    const ctx = testDomain();
    expect(hostedAvailability({ kind: 'links', link: { ...link(ctx).link, status } }, ctx.now)).toEqual({
      open: false,
      reason,
    });
  });
});

describe('paymentOfHostedRequest', () => {
  it('a session becomes a HOSTED payment of its request, method to be chosen, pending until decided', () => {
    const ctx = testDomain();
    const input = paymentOfHostedRequest(session(ctx));
    expect(input).toEqual({
      scope: SCOPE,
      transId: 'S-1',
      refNr: 'R-1',
      amount: SESSION.amount,
      captureMethod: { type: 'MANUAL' },
      integrationType: 'HOSTED',
      details: { order: { merchantReference: 'O-1' }, urls: MERCHANT_URLS },
      metadata: { k: 'v' },
      simulationMode: 'DECLINED',
    });
    expect(input.paymentMethodType).toBeUndefined();
    const pending = createPayment(input, ctx);
    expect(pending.payment.state).toBe('PENDING');
    // the session's simulationMode decides on the page
    expect(
      completeOnHostedPage(pending.payment, { decision: 'pay', paymentMethodType: 'CARD' }, ctx).payment.state,
    ).toBe('FAILED');
  });

  it('a link with the least it needs becomes a payment with AUTOMATIC capture that captures on Pay', () => {
    const ctx = testDomain();
    const input = paymentOfHostedRequest(link(ctx));
    expect(input).toEqual({
      scope: SCOPE,
      transId: 'L-1',
      amount: LINK.amount,
      integrationType: 'HOSTED',
      details: {},
    });
    const paid = completeOnHostedPage(
      createPayment(input, ctx).payment,
      { decision: 'pay', paymentMethodType: 'GOOGLEPAY' },
      ctx,
    );
    expect(paid.payment).toMatchObject({ state: 'CAPTURED', paymentMethodType: 'GOOGLEPAY', capturedValue: 1500 });
  });
});

describe('usedHostedTarget', () => {
  it('a session is COMPLETED with the payment, paid or not', () => {
    const ctx = testDomain();
    for (const paid of [true, false]) {
      const used = usedHostedTarget(session(ctx), 'pay_1', paid);
      expect(used).toMatchObject({ kind: 'sessions', session: { status: 'COMPLETED', payId: 'pay_1' } });
      expect(hostedAvailability(used, ctx.now)).toEqual({ open: false, reason: 'used' });
    }
  });

  it('a link is PAID or FAILED with the payment, and used either way', () => {
    const ctx = testDomain();
    const paid = usedHostedTarget(link(ctx), 'pay_1', true);
    const failed = usedHostedTarget(link(ctx), 'pay_2', false);
    expect(paid).toMatchObject({ kind: 'links', link: { status: 'PAID', payId: 'pay_1' } });
    expect(failed).toMatchObject({ kind: 'links', link: { status: 'FAILED', payId: 'pay_2' } });
    for (const used of [paid, failed])
      expect(hostedAvailability(used, ctx.now)).toEqual({ open: false, reason: 'used' });
  });
});

describe('redirectTarget', () => {
  it("appends the identifiers given to the merchant's URL and keeps its own parameters", () => {
    const url = new URL(
      redirectTarget(MERCHANT_URLS.return, {
        payId: 'pay_1',
        transId: 'S-1',
        status: 'CAPTURED',
        sessionId: 'cs_1',
        linkId: undefined,
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://shop.example/ok');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      order: '7',
      payId: 'pay_1',
      transId: 'S-1',
      status: 'CAPTURED',
      sessionId: 'cs_1',
    });
  });

  it('replaces a parameter of the same name, and encodes values', () => {
    const url = new URL(redirectTarget('https://shop.example/back?transId=old', { transId: 'A&B=C' }));
    expect(url.searchParams.getAll('transId')).toEqual(['A&B=C']);
  });
});

describe('notificationBody', () => {
  it('basic carries the payId only; enhanced the details document as it is', () => {
    const document = JSON.stringify({ payId: 'pay_1', state: 'CAPTURED' });
    expect(JSON.parse(notificationBody('basic', 'pay_1', document))).toEqual({ payId: 'pay_1' });
    expect(notificationBody('enhanced', 'pay_1', document)).toBe(document);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base with each attempt, up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, 1000, 10_000))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(retryDelayMs(50, 1000, 60_000)).toBe(60_000);
  });
});
