// Plans, customers and services of the sandbox, on SQLite (HTTP_STORES): initial
// credential-on-file payments create plans of the matching type; charges follow the document's
// amount rules; installments complete; the plan list filters and pages for real. Customers and their
// stored cards come from payments (never a full card number). The services answer from fixtures.
import { describe, expect, it } from 'vitest';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { sandboxPerSuite, transId } from '../support/sandbox.js';

const dbs = databases();
const id = transId;

const VISA = '4111111111111111';

describe.each(HTTP_STORES)('plans, customers and services on %s', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

  /** An initial credential-on-file card payment; resolves with its payment details. */
  async function initialPayment(
    credentialOnFile: Record<string, unknown>,
    options: { customer?: string; value?: number; currency?: string; card?: Record<string, unknown> } = {},
  ) {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: id('COF'),
        amount: { value: options.value ?? 1999, currency: options.currency ?? 'EUR' },
        customerInfo: {
          merchantCustomerId: options.customer ?? id('cust'),
          firstName: 'Lena',
          lastName: 'Schmidt',
          email: 'lena@example.com',
        },
        credentialOnFile: { initialPayment: true, ...credentialOnFile },
        paymentMethods: {
          integrationType: 'DIRECT',
          type: 'CARD',
          card: options.card ?? { cardNumber: VISA, expiryDate: '202912', cardHolderName: 'Lena Schmidt' },
        },
      },
    });
    expect(created.status).toBe(201);
    return (await sandbox().call('GET', `/payments/getByPayId/${created.body.payId}`)).body;
  }
  const plan = async (planId: string) => (await sandbox().call('GET', `/payment-plans/${planId}`)).body;
  const charge = (planId: string, body: Record<string, unknown>) =>
    sandbox().call('POST', `/payment-plans/${planId}/charge`, { body: { transId: id('CHG'), ...body } });

  describe('plans from initial credential-on-file payments', () => {
    it('creates a plan of the matching type for each credential-on-file type', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ type: 'RECURRING', recurring: { useCase: 'FIXED', frequency: 'MONTHLY' } }, 'RECURRING', 'AUTOMATIC'],
        [
          { type: 'INSTALLMENTS', installments: { total: 3, curIdx: 1, frequency: 'MONTHLY' } },
          'INSTALLMENTS',
          'AUTOMATIC',
        ],
        [{ type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }, 'UNSCHEDULED_MIT', 'MANUAL'],
        [{ type: 'UNSCHEDULED', unscheduled: { subType: 'CIT' } }, 'DELAYED_SHIPMENT', 'MANUAL'],
      ];
      for (const [cof, type, trigger] of cases) {
        const payment = await initialPayment(cof);
        expect(payment.paymentPlanId, type).toMatch(/^pp_[0-9A-HJKMNP-TV-Z]{26}$/);
        const p = await plan(payment.paymentPlanId);
        expect(p).toMatchObject({
          id: payment.paymentPlanId,
          paymentPlanType: type,
          planStatus: 'ACTIVE',
          triggerType: trigger,
          paymentMethod: { type: 'CARD', card: { brand: 'VISA', last4Digits: '1111', expiryDate: '202912' } },
        });
        const payments = await sandbox().call('GET', `/payment-plans/${p.id}/payments`);
        expect(payments.body.data.map((x: { payId: string }) => x.payId)).toEqual([payment.payId]);
      }
      // a payment without initialPayment creates no plan
      const plain = await sandbox().call('POST', '/payments', {
        body: {
          transId: id('NOPLAN'),
          amount: { value: 100, currency: 'EUR' },
          credentialOnFile: { type: 'RECURRING' },
          paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        },
      });
      expect(
        (await sandbox().call('GET', `/payments/getByPayId/${plain.body.payId}`)).body.paymentPlanId,
      ).toBeUndefined();
    });

    it('recurring plans charge their fixed amount: sending one is a 400', async () => {
      const p = (await initialPayment({ type: 'RECURRING', recurring: { frequency: 'WEEKLY' } }, { value: 1500 }))
        .paymentPlanId;
      const refused = await charge(p, { amount: { value: 900 } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.amount[0]).toMatch(/not applicable to recurring plans/);
      const ok = await charge(p, {});
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ paymentPlanId: p, status: 'OK' });
      expect((await sandbox().call('GET', `/payments/getByPayId/${ok.body.payId}`)).body).toMatchObject({
        amount: { value: 1500, currency: 'EUR' },
        state: 'CAPTURED',
        paymentPlanId: p,
      });
    });

    it('unscheduled merchant-initiated plans need the amount', async () => {
      const p = (await initialPayment({ type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } })).paymentPlanId;
      expect((await charge(p, {})).status).toBe(400);
      const ok = await charge(p, { amount: { value: 4321 } });
      expect(ok.status).toBe(201);
      expect((await sandbox().call('GET', `/payments/getByPayId/${ok.body.payId}`)).body.amount).toEqual({
        value: 4321,
        currency: 'EUR',
      });
    });

    it('installment plans take an optional amount and complete after the last installment', async () => {
      const p = (
        await initialPayment(
          { type: 'INSTALLMENTS', installments: { total: 3, curIdx: 1, frequency: 'MONTHLY' } },
          { value: 3000 },
        )
      ).paymentPlanId;
      expect((await plan(p)).installments).toMatchObject({ totalInstallments: 3, paidInstallments: 1 });
      expect((await charge(p, {})).status).toBe(201);
      expect((await charge(p, { amount: { value: 2500 } })).status).toBe(201);
      const done = await plan(p);
      expect(done).toMatchObject({ planStatus: 'COMPLETED', installments: { paidInstallments: 3 } });
      expect(done.installments.nextPaymentDate).toBeUndefined();
      const refused = await charge(p, {});
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ paymentPlanId: p, status: 'FAILED', responseCode: '22000012' });
      const payments = await sandbox().call('GET', `/payment-plans/${p}/payments`);
      expect(payments.body.data.map((x: { amount: { value: number } }) => x.amount.value)).toEqual([3000, 3000, 2500]);
    });

    it('an unknown plan is a 404 with the plan problem body', async () => {
      const r = await charge('pp_00000000000000000000000000', {});
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ status: '404', title: 'Payment plan not found.' });
      expect((await sandbox().call('GET', '/payment-plans/pp_nothere/payments')).status).toBe(404);
    });

    it('the plan list pages for real and applies every filter', async () => {
      const customer = id('pager');
      const created: string[] = [];
      for (let i = 0; i < 23; i++) {
        const type =
          i % 2 === 0
            ? { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }
            : { type: 'RECURRING', recurring: { frequency: 'MONTHLY' } };
        created.push(
          (await initialPayment(type, { customer, value: 1000 + i, currency: i < 20 ? 'EUR' : 'CHF' })).paymentPlanId,
        );
      }
      const base = `/payment-plans?MerchantCustomerId=${customer}`;
      const page1 = await sandbox().call('GET', base);
      expect(page1.body).toMatchObject({ totalNumberOfItems: 23, totalNumberOfPages: 2, page: 1, pageSize: 20 });
      const page2 = await sandbox().call('GET', `${base}&Page=2`);
      expect(page2.body.data).toHaveLength(3);
      const all = [...page1.body.data, ...page2.body.data].map((p: { id: string }) => p.id);
      expect(new Set(all)).toEqual(new Set(created)); // every plan once: no page repeats another
      expect((await sandbox().call('GET', `${base}&Page=3`)).body.data).toEqual([]);

      const count = async (query: string) => (await sandbox().call('GET', `${base}&${query}`)).body.totalNumberOfItems;
      expect(await count('PlanType=RECURRING')).toBe(11);
      expect(await count('Currency=CHF')).toBe(3);
      expect(await count('AmountFrom=1010&AmountTo=1012')).toBe(3);
      expect(await count('Amount=1022')).toBe(1);
      expect(await count(`PaymentPlanId=${created[5]}`)).toBe(1);
      expect(await count('PlanStatus=CANCELLED')).toBe(0);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect(await count(`CreatedAtFrom=${encodeURIComponent(future)}`)).toBe(0);
      expect(await count(`CreatedAtTo=${encodeURIComponent(future)}&LastBillingTo=${encodeURIComponent(future)}`)).toBe(
        23,
      );
      expect(await count(`LastBillingFrom=${encodeURIComponent(future)}`)).toBe(0);
      // another merchant sees none of them
      expect((await sandbox().call('GET', base, { who: sandbox().other })).body.totalNumberOfItems).toBe(0);
    });
  });

  describe('customers and stored payment methods', () => {
    it('come from payments: the card as brand, last four and expiry, never the number', async () => {
      const merchantCustomerId = id('cus');
      const first = await initialPayment(
        { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } },
        { customer: merchantCustomerId },
      );
      await initialPayment({ type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } }, { customer: merchantCustomerId }); // same card: one method
      await initialPayment(
        { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } },
        { customer: merchantCustomerId, card: { cardNumber: '5555555555554444', expiryDate: '203001' } },
      );
      const list = await sandbox().call('GET', `/customers?MerchantCustomerId=${merchantCustomerId}`);
      expect(list.body.totalNumberOfItems).toBe(1);
      const customer = list.body.data[0];
      expect(customer).toMatchObject({ merchantCustomerId, firstName: 'Lena', email: 'lena@example.com' });
      expect((await sandbox().call('GET', `/customers/${customer.id}`)).body).toEqual(customer);
      const methods = await sandbox().call('GET', `/customers/${customer.id}/paymentMethods`);
      expect(
        methods.body.data
          .map((m: { card: { brand: string; last4Digits: string } }) => `${m.card.brand} ${m.card.last4Digits}`)
          .sort(),
      ).toEqual(['MASTERCARD 4444', 'VISA 1111']);
      const method = methods.body.data[0];
      expect((await sandbox().call('GET', `/customers/${customer.id}/paymentMethods/${method.id}`)).body).toEqual(
        method,
      );
      // the full numbers are nowhere in any response
      expect(JSON.stringify([first, methods.body])).not.toMatch(/4111111111111111|5555555555554444/);
      // the customer's plans
      const plans = await sandbox().call('GET', `/customers/${customer.id}/payment-plans`);
      expect(plans.body.totalNumberOfItems).toBe(3);
    });

    it('update and delete; deleting a customer deletes its methods', async () => {
      const payment = await initialPayment({ type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' } });
      const customerId = (
        await sandbox().call('GET', `/customers?MerchantCustomerId=${payment.customerInfo.merchantCustomerId}`)
      ).body.data[0].id;
      const updated = await sandbox().call('PATCH', `/customers/${customerId}`, {
        body: { lastName: 'Weber', phone: { countryCode: '+49', number: '301234567' } },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        id: customerId,
        firstName: 'Lena',
        lastName: 'Weber',
        merchantCustomerId: payment.customerInfo.merchantCustomerId,
      });
      const methodId = (await sandbox().call('GET', `/customers/${customerId}/paymentMethods`)).body.data[0].id;
      expect((await sandbox().call('GET', `/customers/${customerId}`, { who: sandbox().other })).status).toBe(404);
      expect(
        (
          await sandbox().call('DELETE', `/customers/${customerId}/paymentMethods/${methodId}`, {
            who: sandbox().other,
          })
        ).status,
      ).toBe(404);
      expect((await sandbox().call('DELETE', `/customers/${customerId}`)).status).toBe(204);
      expect((await sandbox().call('GET', `/customers/${customerId}`)).status).toBe(404);
      expect((await sandbox().call('GET', `/customers/${customerId}/paymentMethods/${methodId}`)).status).toBe(404);
      expect((await sandbox().call('DELETE', `/customers/${customerId}`)).status).toBe(404);
    });
  });

  describe('services', () => {
    it('BIN check and currency conversion quotes from the fixture tables', async () => {
      expect(
        (
          await sandbox().call('POST', '/services/dcc/bin-check', {
            body: { bin: '450875', amount: { value: 1000, currency: 'EUR' } },
          })
        ).body,
      ).toEqual({ bin: '450875', cardCountry: 'GBR', cardCurrency: 'GBP', dccEligible: true });
      expect(
        (
          await sandbox().call('POST', '/services/dcc/bin-check', {
            body: { bin: '453201', amount: { value: 1000, currency: 'EUR' } },
          })
        ).body.dccEligible,
      ).toBe(false);
      expect((await sandbox().call('POST', '/services/dcc/bin-check', { body: { bin: '999999' } })).body).toEqual({
        bin: '999999',
        dccEligible: false,
      });
      const before = Date.now();
      const quote = await sandbox().call('POST', '/services/dcc/quote', {
        body: { bin: '520082', amount: { value: 10_000, currency: 'EUR' } },
      });
      expect(quote.status).toBe(200);
      // 100.00 EUR at 162.35 JPY/EUR plus 3.5 %: 16 803 JPY, which has no minor unit
      expect(quote.body).toMatchObject({
        amount: { value: 10_000, currency: 'EUR' },
        convertedAmount: { value: 16_803, currency: 'JPY' },
        exchangeRate: '162.350000',
        markupPercentage: '3.5',
      });
      expect(Date.parse(quote.body.expirationTime) - before).toBeGreaterThanOrEqual(15 * 60_000 - 1_000);
      const same = await sandbox().call('POST', '/services/dcc/quote', {
        body: { bin: '453201', amount: { value: 100, currency: 'EUR' } },
      });
      expect(same.status).toBe(400);
      expect(Object.keys(same.body.errors)).toEqual(['bin']);
    });

    it('duplication check: same merchant, amount and reference within the window', async () => {
      const transId = id('DUP');
      const created = await sandbox().call('POST', '/payments', {
        body: {
          transId,
          amount: { value: 777, currency: 'EUR' },
          paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        },
      });
      const check = (body: Record<string, unknown>, who = sandbox().merchant) =>
        sandbox().call('POST', '/services/duplicationCheck', { body, who });
      expect((await check({ transId, amount: { value: 777, currency: 'EUR' } })).body).toEqual({
        duplicate: true,
        payIds: [created.body.payId],
      });
      expect((await check({ transId, amount: { value: 778, currency: 'EUR' } })).body).toEqual({ duplicate: false });
      expect((await check({ transId: id('other'), amount: { value: 777, currency: 'EUR' } })).body).toEqual({
        duplicate: false,
      });
      expect((await check({ transId, amount: { value: 777, currency: 'EUR' } }, sandbox().other)).body).toEqual({
        duplicate: false,
      });
    });

    it('pseudo numbers: the same card or IBAN gives the same token per merchant, another merchant another', async () => {
      const card = async (who = sandbox().merchant) =>
        (
          await sandbox().call('POST', '/services/createPseudoNumber', {
            body: { cardNumber: '4000000000000069' },
            who,
          })
        ).body;
      const a = await card();
      expect(a).toMatchObject({ type: 'CARD', maskedNumber: '400000******0069' });
      expect((await card()).pseudoNumber).toBe(a.pseudoNumber);
      expect((await card(sandbox().other)).pseudoNumber).not.toBe(a.pseudoNumber);
      const iban = await sandbox().call('POST', '/services/createPseudoNumber', {
        body: { iban: 'DE89370400440532013000' },
      });
      expect(iban.body).toMatchObject({ type: 'IBAN', maskedNumber: 'DE89**************3000' });
      const luhn = await sandbox().call('POST', '/services/createPseudoNumber', {
        body: { cardNumber: '4111111111111112' },
      });
      expect(luhn.status).toBe(400);
      expect(luhn.body.errors.cardNumber[0]).toMatch(/Luhn/);
    });

    it('account updater: the fixture cards, an expired card, an unknown pseudo number', async () => {
      const pseudo = async (cardNumber: string) =>
        (await sandbox().call('POST', '/services/createPseudoNumber', { body: { cardNumber } })).body.pseudoNumber;
      const update = async (body: Record<string, unknown>) =>
        (await sandbox().call('POST', '/services/accountUpdater', { body })).body;
      expect((await update({ pseudoNumber: await pseudo('4000000000000069') })).result).toBe('UPDATED');
      expect((await update({ pseudoNumber: await pseudo('4000000000000119') })).result).toBe('CLOSED');
      const visa = await pseudo('4242424242424242');
      expect((await update({ pseudoNumber: visa, expiryDate: '203012' })).result).toBe('NO_CHANGE');
      const expired = await update({ pseudoNumber: visa, expiryDate: '202001' });
      expect(expired.result).toBe('UPDATED');
      expect(expired.expiryDate > '202001').toBe(true);
      expect((await update({ pseudoNumber: 'pn_unknown' })).result).toBe('UNKNOWN');
    });
  });
});
