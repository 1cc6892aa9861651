// The objects a run needs and makes through the API itself, the way the contract says they come
// about: card payments in the states the checks need, a Klarna payment that waits for Confirm, a
// customer with a stored card and plans (an initial credential-on-file payment makes them), a
// payment intent, a pseudo number. Each is made once per merchant and reused; a check that uses one
// up (a capture, a delete) asks for a fresh one.
import type { Merchant } from './client.js';
import type { RunContext } from './context.js';
import type { Exchange } from './judge.js';

export interface PaymentFixture {
  payId: string;
  transId: string;
  amount: { value: number; currency: string };
  created: Exchange;
}

export interface CustomerFixture {
  merchantCustomerId: string;
  customerId: string;
  paymentMethodId?: string;
  planId?: string;
  unscheduledPlanId?: string;
}

export class FixtureError extends Error {
  constructor(what: string, exchange: Exchange | undefined) {
    super(
      exchange
        ? `could not make ${what}: ${exchange.operationId} answered ${exchange.status} ${exchange.text.slice(0, 200)}`
        : `could not make ${what}`,
    );
    this.name = 'FixtureError';
  }
}

export class Fixtures {
  readonly #customers = new Map<string, Promise<CustomerFixture>>();
  readonly #made: Array<{ merchant: Merchant; merchantCustomerId: string }> = [];

  constructor(readonly ctx: RunContext) {}

  /** A DIRECT card payment: MANUAL waits AUTHORIZED, AUTOMATIC is CAPTURED. */
  async cardPayment(
    options: {
      capture?: 'MANUAL' | 'AUTOMATIC';
      value?: number;
      currency?: string;
      merchant?: Merchant;
      extra?: Record<string, unknown>;
      label?: string;
    } = {},
  ): Promise<PaymentFixture> {
    const amount = { value: options.value ?? 11900, currency: options.currency ?? 'EUR' };
    const transId = this.ctx.ref(options.label ?? 'pay');
    const created = await this.ctx.client.send({
      operationId: 'createPayment',
      title: `a DIRECT card payment, ${options.capture ?? 'MANUAL'} capture`,
      auth: { scheme: 'basic', merchant: options.merchant ?? this.ctx.first },
      body: {
        transId,
        amount,
        captureMethod: { type: options.capture ?? 'MANUAL' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        ...options.extra,
      },
    });
    if (created.status !== 201 || typeof created.json?.payId !== 'string')
      throw new FixtureError('a card payment', created);
    return { payId: created.json.payId, transId, amount, created };
  }

  /** A DIRECT Klarna payment, which waits for Confirm. */
  async klarnaPayment(merchant: Merchant = this.ctx.first): Promise<PaymentFixture> {
    const transId = this.ctx.ref('klarna');
    const amount = { value: 4990, currency: 'EUR' };
    const created = await this.ctx.client.send({
      operationId: 'createPayment',
      title: 'a DIRECT Klarna payment (waits for Confirm)',
      auth: { scheme: 'basic', merchant },
      body: { transId, amount, paymentMethods: { integrationType: 'DIRECT', type: 'KLARNA' } },
    });
    if (created.status !== 201 || typeof created.json?.payId !== 'string')
      throw new FixtureError('a Klarna payment', created);
    return { payId: created.json.payId, transId, amount, created };
  }

  /**
   * A customer of the merchant with a stored card, a RECURRING plan and an UNSCHEDULED one, made by
   * two initial credential-on-file card payments; `label` tells customers apart (one per use that
   * deletes).
   */
  customer(merchant: Merchant = this.ctx.first, label = 'main'): Promise<CustomerFixture> {
    const key = `${merchant.merchantId} ${label}`;
    let made = this.#customers.get(key);
    if (!made) {
      made = this.#makeCustomer(merchant, label);
      this.#customers.set(key, made);
    }
    return made;
  }

  async #makeCustomer(merchant: Merchant, label: string): Promise<CustomerFixture> {
    const merchantCustomerId = this.ctx.ref(`cus-${label}`);
    this.remember(merchant, merchantCustomerId);
    const initial = async (credentialOnFile: Record<string, unknown>, value: number) => {
      const payment = await this.cardPayment({
        merchant,
        capture: 'AUTOMATIC',
        value,
        label: 'cof',
        extra: { customerInfo: { merchantCustomerId, firstName: 'Lena', lastName: 'Schmidt' }, credentialOnFile },
      });
      const read = await this.ctx.client.send({
        operationId: 'getPaymentByPayId',
        title: 'the initial credential-on-file payment, read',
        auth: { scheme: 'basic', merchant },
        params: { id: payment.payId },
      });
      return read.json?.paymentPlanId as string | undefined;
    };
    const planId = await initial(
      { type: 'RECURRING', initialPayment: true, recurring: { useCase: 'FIXED', frequency: 'MONTHLY' } },
      1499,
    );
    const unscheduledPlanId = await initial(
      { type: 'UNSCHEDULED', initialPayment: true, unscheduled: { subType: 'MIT' } },
      1250,
    );
    const list = await this.ctx.client.send({
      operationId: 'listCustomers',
      title: 'the customer, by its merchantCustomerId',
      auth: { scheme: 'basic', merchant },
      query: { MerchantCustomerId: merchantCustomerId },
    });
    const customerId = list.json?.data?.[0]?.id;
    if (list.status !== 200 || typeof customerId !== 'string') throw new FixtureError('a customer', list);
    const methods = await this.ctx.client.send({
      operationId: 'listCustomerPaymentMethods',
      title: "the customer's stored payment methods",
      auth: { scheme: 'basic', merchant },
      params: { id: customerId },
    });
    const paymentMethodId = methods.json?.data?.[0]?.id as string | undefined;
    return {
      merchantCustomerId,
      customerId,
      ...(paymentMethodId ? { paymentMethodId } : {}),
      ...(planId ? { planId } : {}),
      ...(unscheduledPlanId ? { unscheduledPlanId } : {}),
    };
  }

  /** A customer this run made by other means (a workflow's), to be deleted at the end. */
  remember(merchant: Merchant, merchantCustomerId: string): void {
    this.#made.push({ merchant, merchantCustomerId });
  }

  /**
   * Deletes the customers this run made (with their stored cards), the one kind of object the
   * contract lets a client delete; payments, plans and intents stay behind, marked with the run id.
   * Each is looked up by its merchantCustomerId first: a check may have deleted it already.
   */
  async cleanup(): Promise<void> {
    for (const { merchant, merchantCustomerId } of this.#made) {
      const list = await this.ctx.client.send({
        operationId: 'listCustomers',
        title: 'a customer this run made, found at its end',
        auth: { scheme: 'basic', merchant },
        query: { MerchantCustomerId: merchantCustomerId },
      });
      for (const customer of Array.isArray(list.json?.data) ? list.json.data : []) {
        if (typeof customer?.id !== 'string') continue;
        await this.ctx.client.send({
          operationId: 'deleteCustomer',
          title: 'a customer this run made, deleted at its end',
          auth: { scheme: 'basic', merchant },
          params: { id: customer.id },
        });
      }
    }
  }

  /** A payment intent, which waits for its confirmation with a bearer token. */
  async paymentIntent(merchant: Merchant = this.ctx.first): Promise<{ id: string; transId: string }> {
    const transId = this.ctx.ref('intent');
    const created = await this.ctx.client.send({
      operationId: 'createPaymentIntent',
      title: 'a payment intent',
      auth: { scheme: 'basic', merchant },
      body: { transId, amount: { value: 2499, currency: 'EUR' }, captureMethod: { type: 'AUTOMATIC' } },
    });
    const id = created.json?.id ?? created.json?.paymentIntentId;
    if (created.status !== 201 || typeof id !== 'string') throw new FixtureError('a payment intent', created);
    return { id, transId };
  }
}
