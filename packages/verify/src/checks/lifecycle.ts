// lifecycle: the payment state machine as the contract and its lifecycle guide state it, each step
// followed by a read that must show it: authorize → partial and full capture → partial and full
// refund, with a capture beyond the authorized amount and a refund beyond the captured one refused
// (422) and changing nothing; an incremental authorization adding to the authorized amount; a
// reversal, after which a capture is refused; a decline by simulation (422, FAILED); and reads of
// what was deleted (404) or finished.
import type { RunContext } from '../context.js';
import type { Fixtures } from '../fixtures.js';
import type { Exchange } from '../judge.js';

interface Expected {
  state?: string;
  authorized?: number;
  captured?: number;
  refunded?: number;
  reversed?: number;
}

type Step = (title: string, operationId: string, payId: string, body: unknown, status: number) => Promise<Exchange>;

function stepper(ctx: RunContext): Step {
  return async (title, operationId, payId, body, status) => {
    const exchange = await ctx.client.send({
      operationId,
      title,
      auth: { scheme: 'basic', merchant: ctx.first },
      params: { id: payId },
      body,
    });
    ctx.results.judge(
      'lifecycle',
      { operationId, title, expected: String(status), actual: String(exchange.status), curl: exchange.curl },
      exchange.status === status ? [] : [`${exchange.status}: ${exchange.text.slice(0, 200)}`],
    );
    return exchange;
  };
}

async function expectRead(ctx: RunContext, payId: string, after: string, expected: Expected): Promise<void> {
  const read = await ctx.client.send({
    operationId: 'getPaymentByPayId',
    title: `the payment after ${after}`,
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: payId },
  });
  const p = read.json ?? {};
  const actual: Expected = {
    state: p.state,
    authorized: p.authorizedAmount?.value,
    captured: p.capturedAmount?.value,
    refunded: p.refundedAmount?.value,
    reversed: p.reversedAmount?.value,
  };
  const problems = Object.entries(expected)
    .filter(([k, v]) => actual[k as keyof Expected] !== v)
    .map(([k, v]) => `${k} ${JSON.stringify(actual[k as keyof Expected])}, not ${JSON.stringify(v)}`);
  ctx.results.judge(
    'lifecycle',
    {
      operationId: 'getPaymentByPayId',
      title: `the payment after ${after}`,
      expected: JSON.stringify(expected),
      actual: JSON.stringify(actual),
      curl: read.curl,
    },
    read.status === 200 ? problems : [`${read.status}: ${read.text.slice(0, 200)}`],
  );
}

const eur = (value: number) => ({ value, currency: 'EUR' });

async function captureAndRefund(ctx: RunContext, fx: Fixtures): Promise<void> {
  const step = stepper(ctx);
  const { payId } = await fx.cardPayment({ value: 2500, label: 'life' });
  await expectRead(ctx, payId, 'its authorization', { state: 'AUTHORIZED', authorized: 2500, captured: 0 });
  await step('capture 10.00 of 25.00', 'capturePayment', payId, { transId: ctx.ref('cap'), amount: eur(1000) }, 200);
  await expectRead(ctx, payId, 'a capture of 10.00', { state: 'PARTIALLY_CAPTURED', captured: 1000 });
  await step(
    'capture 20.00, more than the 15.00 left',
    'capturePayment',
    payId,
    { transId: ctx.ref('cap'), amount: eur(2000) },
    422,
  );
  await expectRead(ctx, payId, 'a refused capture', { state: 'PARTIALLY_CAPTURED', captured: 1000 });
  await step('capture the 15.00 left', 'capturePayment', payId, { transId: ctx.ref('cap'), amount: eur(1500) }, 200);
  await expectRead(ctx, payId, 'the full capture', { state: 'CAPTURED', captured: 2500 });
  await step('refund 4.00', 'refundPayment', payId, { transId: ctx.ref('rfd'), amount: eur(400) }, 200);
  await expectRead(ctx, payId, 'a refund of 4.00', { state: 'PARTIALLY_REFUNDED', refunded: 400 });
  await step(
    'refund 30.00, more than the 21.00 left',
    'refundPayment',
    payId,
    { transId: ctx.ref('rfd'), amount: eur(3000) },
    422,
  );
  await expectRead(ctx, payId, 'a refused refund', { state: 'PARTIALLY_REFUNDED', refunded: 400 });
  await step('refund the 21.00 left', 'refundPayment', payId, { transId: ctx.ref('rfd'), amount: eur(2100) }, 200);
  await expectRead(ctx, payId, 'the full refund', { state: 'REFUNDED', refunded: 2500, captured: 2500 });
  await step('reverse a refunded payment', 'reversePayment', payId, { transId: ctx.ref('rev') }, 422);
}

async function incrementAndReverse(ctx: RunContext, fx: Fixtures): Promise<void> {
  const step = stepper(ctx);
  const { payId } = await fx.cardPayment({ value: 5000, label: 'life-rev' });
  await step(
    'increase the authorization by 20.00',
    'incrementAuthorization',
    payId,
    { transId: ctx.ref('inc'), amount: eur(2000) },
    200,
  );
  await expectRead(ctx, payId, 'an incremental authorization of 20.00', { state: 'AUTHORIZED', authorized: 7000 });
  await step(
    'confirm a payment that waits for no confirmation',
    'confirmPayment',
    payId,
    { transId: ctx.ref('conf') },
    422,
  );
  await step('reverse the authorization', 'reversePayment', payId, { transId: ctx.ref('rev') }, 200);
  await expectRead(ctx, payId, 'its reversal', { state: 'REVERSED', captured: 0, reversed: 7000 });
  await step(
    'capture a reversed payment',
    'capturePayment',
    payId,
    { transId: ctx.ref('cap'), amount: eur(1000) },
    422,
  );
  await expectRead(ctx, payId, 'a refused capture of a reversed payment', { state: 'REVERSED', captured: 0 });
}

async function declinedBySimulation(ctx: RunContext, fx: Fixtures): Promise<void> {
  const transId = ctx.ref('decline');
  const exchange = await ctx.client.send({
    operationId: 'createPayment',
    title: 'a card payment declined by simulation (simulationMode DECLINED)',
    auth: { scheme: 'basic', merchant: ctx.first },
    body: {
      transId,
      amount: eur(1500),
      simulationMode: 'DECLINED',
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    },
  });
  ctx.results.judge(
    'lifecycle',
    {
      operationId: 'createPayment',
      title: 'a declined payment',
      expected: '422 with status FAILED',
      actual: `${exchange.status} ${exchange.json?.status}`,
      curl: exchange.curl,
    },
    exchange.status === 422 && exchange.json?.status === 'FAILED'
      ? []
      : [`${exchange.status}: ${exchange.text.slice(0, 200)}`],
  );
  const read = await ctx.client.send({
    operationId: 'getPaymentByTransId',
    title: 'the declined payment, by transId',
    auth: { scheme: 'basic', merchant: ctx.first },
    params: { id: transId },
  });
  ctx.results.judge(
    'lifecycle',
    {
      operationId: 'getPaymentByTransId',
      title: 'the declined payment',
      expected: 'state FAILED, nothing captured',
      actual: `${read.json?.state}`,
      curl: read.curl,
    },
    read.status === 200 && read.json?.state === 'FAILED' && read.json?.capturedAmount?.value === 0
      ? []
      : [`${read.status}: ${read.text.slice(0, 200)}`],
  );
  void fx;
}

async function useAfterDelete(ctx: RunContext, fx: Fixtures): Promise<void> {
  const customer = await fx.customer(ctx.first, 'deleted');
  const as = { scheme: 'basic' as const, merchant: ctx.first };
  const expect = async (operationId: string, title: string, params: Record<string, string>, status: number) => {
    const exchange = await ctx.client.send({ operationId, title, auth: as, params });
    ctx.results.judge(
      'lifecycle',
      { operationId, title, expected: String(status), actual: String(exchange.status), curl: exchange.curl },
      exchange.status === status ? [] : [`${exchange.status}: ${exchange.text.slice(0, 200)}`],
    );
  };
  if (customer.paymentMethodId) {
    const params = { customerId: customer.customerId, paymentMethodId: customer.paymentMethodId };
    await expect('deleteCustomerPaymentMethod', 'delete a stored payment method', params, 204);
    await expect('getCustomerPaymentMethod', 'read a deleted payment method', params, 404);
    await expect('deleteCustomerPaymentMethod', 'delete a deleted payment method', params, 404);
  }
  await expect('deleteCustomer', 'delete a customer', { id: customer.customerId }, 204);
  await expect('getCustomer', 'read a deleted customer', { id: customer.customerId }, 404);
  await expect('deleteCustomer', 'delete a deleted customer', { id: customer.customerId }, 404);
}

export async function checkLifecycle(ctx: RunContext, fx: Fixtures): Promise<void> {
  if (ctx.readOnly) {
    ctx.results.skipCheck('lifecycle', 'a live server: nothing may be created');
    return;
  }
  await captureAndRefund(ctx, fx);
  await incrementAndReverse(ctx, fx);
  await declinedBySimulation(ctx, fx);
  await useAfterDelete(ctx, fx);
}
