// The payment lifecycle of the sandbox, on SQLite (HTTP_STORES): the interface document's rules
// and preconditions (capture of an authorized payment, reversal only while nothing is captured,
// refunds up to what was captured, incremental authorization of card payments, confirmation of
// multi-step methods, the payId that never changes and an xId per operation), the contract's
// simulation codes, payment links, checkout sessions and payment intents.
import { describe, expect, it } from 'vitest';
import { isObject } from '../../tooling/openapi/walker.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { checkoutSession, sandboxContract, sandboxPerSuite, transId } from '../support/sandbox.js';

const dbs = databases();

/** The contract's simulation codes, as the sandbox must honour them. */
function simulationCodes(): Array<{
  simulationMode: string;
  responseCode: string;
  providerDetails?: Record<string, Record<string, unknown>>;
}> {
  const schema = (sandboxContract().document.components as { schemas: Record<string, Record<string, unknown>> }).schemas
    .SimulationMode!;
  return (schema['x-simulation-codes'] as { codes: [] }).codes;
}
function responseCodes(): Record<string, { responseCode: string; responseDescription: string }> {
  const schema = (sandboxContract().document.components as { schemas: Record<string, Record<string, unknown>> }).schemas
    .ResultCode!;
  return (
    schema['x-response-codes'] as { codes: Record<string, { responseCode: string; responseDescription: string }> }
  ).codes;
}

describe.each(HTTP_STORES)('payments on %s', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

  const create = (body: Record<string, unknown>) => sandbox().call('POST', '/payments', { body });
  const direct = (id: string, value: number, captureType: string, extra: Record<string, unknown> = {}) =>
    create({
      transId: id,
      amount: { value, currency: 'USD' },
      captureMethod: { type: captureType, ...(captureType === 'DELAYED' ? { delayed: { delayedHours: 48 } } : {}) },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      ...extra,
    });
  const details = async (payId: string) => {
    const r = await sandbox().call('GET', `/payments/getByPayId/${payId}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const op = (payId: string, kind: string, body: Record<string, unknown>) =>
    sandbox().call('POST', `/payments/${payId}/${kind}`, { body });

  it('the documented example: 25.00 USD with transId MYSHOP-42 comes back as itself, by payId and by transId', async () => {
    const id = transId('MYSHOP-42');
    const created = await direct(id, 2500, 'MANUAL');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      merchantId: sandbox().merchant.merchantId,
      transId: id,
      status: 'OK',
      responseCode: '00000000',
    });
    const byPayId = await details(created.body.payId);
    expect(byPayId).toMatchObject({
      payId: created.body.payId,
      transId: id,
      state: 'AUTHORIZED',
      amount: { value: 2500, currency: 'USD' },
      authorizedAmount: { value: 2500, currency: 'USD' },
    });
    const byTransId = await sandbox().call('GET', `/payments/getByTransId/${id}`);
    expect(byTransId.body).toEqual(byPayId);
  });

  it('AUTOMATIC captures at once; MANUAL waits; DELAYED records when the clock will capture', async () => {
    const auto = await details((await direct(transId('AUTO'), 1000, 'AUTOMATIC')).body.payId);
    expect(auto).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 1000 } });
    expect(auto.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
    expect((await details((await direct(transId('MAN'), 1000, 'MANUAL')).body.payId)).state).toBe('AUTHORIZED');
    const before = Date.now();
    const delayed = await details((await direct(transId('DEL'), 1000, 'DELAYED')).body.payId);
    expect(delayed).toMatchObject({
      state: 'AUTHORIZED',
      captureMethod: { type: 'DELAYED', delayed: { delayedHours: 48 } },
    });
    expect(Date.parse(delayed.captureTime) - before).toBeGreaterThanOrEqual(48 * 3_600_000 - 1_000);
  });

  it('captures in parts up to the authorized amount; each operation has its own xId, the payId stays', async () => {
    const id = transId('CAP');
    const payId = (await direct(id, 10_000, 'MANUAL')).body.payId;
    const first = await op(payId, 'captures', { transId: `${id}-1`, amount: { value: 4000, currency: 'USD' } });
    expect(first.status).toBe(200);
    expect((await details(payId)).state).toBe('PARTIALLY_CAPTURED');
    const second = await op(payId, 'captures', { transId: `${id}-2`, amount: { value: 6000, currency: 'USD' } });
    expect(second.status).toBe(200);
    const over = await op(payId, 'captures', { transId: `${id}-3`, amount: { value: 1, currency: 'USD' } });
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({
      payId,
      status: 'FAILED',
      responseCode: responseCodes().ALREADY_CAPTURED!.responseCode,
    });
    const d = await details(payId);
    expect(d).toMatchObject({ state: 'CAPTURED', capturedAmount: { value: 10_000 } });
    const xIds = d.operations.map((o: { xId: string }) => o.xId);
    expect(new Set(xIds).size).toBe(xIds.length);
    expect(xIds).toContain(first.body.xId);
    expect([first.body.payId, second.body.payId, over.body.payId]).toEqual([payId, payId, payId]);
  });

  it('refuses a capture above what is left, in another currency, or of nothing', async () => {
    const id = transId('CAPX');
    const payId = (await direct(id, 5000, 'MANUAL')).body.payId;
    const codes = responseCodes();
    expect(
      (await op(payId, 'captures', { transId: `${id}-a`, amount: { value: 5001, currency: 'USD' } })).body.responseCode,
    ).toBe(codes.AMOUNT_EXCEEDS_AVAILABLE!.responseCode);
    expect(
      (await op(payId, 'captures', { transId: `${id}-b`, amount: { value: 100, currency: 'EUR' } })).body.responseCode,
    ).toBe(codes.CURRENCY_MISMATCH!.responseCode);
    expect(
      (await op(payId, 'captures', { transId: `${id}-c`, amount: { value: 0, currency: 'USD' } })).body.responseCode,
    ).toBe(codes.AMOUNT_NOT_POSITIVE!.responseCode);
    expect((await details(payId)).state).toBe('AUTHORIZED');
    expect((await details(payId)).operations.filter((o: { status: string }) => o.status === 'FAILED')).toHaveLength(3);
  });

  it('reversal only while nothing is captured: whole or partial', async () => {
    const id = transId('REV');
    const payId = (await direct(id, 5000, 'MANUAL')).body.payId;
    expect(
      (await op(payId, 'reversals', { transId: `${id}-1`, amount: { value: 2000, currency: 'USD' } })).status,
    ).toBe(200);
    expect(await details(payId)).toMatchObject({ state: 'AUTHORIZED', reversedAmount: { value: 2000 } });
    expect((await op(payId, 'reversals', { transId: `${id}-2` })).status).toBe(200);
    expect(await details(payId)).toMatchObject({ state: 'REVERSED', reversedAmount: { value: 5000 } });
    expect((await op(payId, 'captures', { transId: `${id}-3`, amount: { value: 1, currency: 'USD' } })).status).toBe(
      422,
    );

    const captured = (await direct(transId('REV2'), 5000, 'MANUAL')).body.payId;
    await op(captured, 'captures', { transId: `${id}-c`, amount: { value: 100, currency: 'USD' } });
    const refused = await op(captured, 'reversals', { transId: `${id}-4` });
    expect(refused.status).toBe(422);
    expect(refused.body.responseCode).toBe(responseCodes().ALREADY_CAPTURED!.responseCode);
  });

  it('refunds in total up to what was captured', async () => {
    const id = transId('RFD');
    const payId = (await direct(id, 8000, 'MANUAL')).body.payId;
    expect((await op(payId, 'refunds', { transId: `${id}-0`, amount: { value: 100, currency: 'USD' } })).status).toBe(
      422,
    ); // nothing captured
    await op(payId, 'captures', { transId: `${id}-c`, amount: { value: 5000, currency: 'USD' } });
    expect((await op(payId, 'refunds', { transId: `${id}-1`, amount: { value: 3000, currency: 'USD' } })).status).toBe(
      200,
    );
    expect((await details(payId)).state).toBe('PARTIALLY_REFUNDED');
    expect(
      (await op(payId, 'refunds', { transId: `${id}-2`, amount: { value: 2001, currency: 'USD' } })).body.responseCode,
    ).toBe(responseCodes().AMOUNT_EXCEEDS_AVAILABLE!.responseCode);
    expect(
      (
        await op(payId, 'refunds', {
          transId: `${id}-3`,
          amount: { value: 2000, currency: 'USD' },
          metadata: { reason: 'returned' },
        })
      ).body.metadata,
    ).toEqual({ reason: 'returned' });
    expect(await details(payId)).toMatchObject({ refundedAmount: { value: 5000 }, capturedAmount: { value: 5000 } });
  });

  it('a refund without reference is a payment of its own, retrievable', async () => {
    const id = transId('URF');
    const r = await sandbox().call('POST', '/payments/refunds', {
      body: {
        transId: id,
        amount: { value: 700, currency: 'EUR' },
        paymentMethods: { card: { pseudoNumber: 'pn_x' } },
      },
    });
    expect(r.status).toBe(200);
    expect(await details(r.body.payId)).toMatchObject({
      state: 'REFUNDED',
      refundedAmount: { value: 700, currency: 'EUR' },
      paymentMethodType: 'CARD',
    });
  });

  it('incremental authorization: card authorizations only; the total authorized reflects both', async () => {
    const id = transId('INC');
    const payId = (await direct(id, 10_000, 'MANUAL')).body.payId;
    expect(
      (await op(payId, 'incrementals', { transId: `${id}-1`, amount: { value: 2500, currency: 'USD' } })).status,
    ).toBe(200);
    expect(await details(payId)).toMatchObject({ state: 'AUTHORIZED', authorizedAmount: { value: 12_500 } });
    expect(
      (await op(payId, 'captures', { transId: `${id}-c`, amount: { value: 12_500, currency: 'USD' } })).status,
    ).toBe(200);
    const paypal = await create({
      transId: transId('INCPP'),
      amount: { value: 1000, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'PAYPAL' },
      captureMethod: { type: 'MANUAL' },
    });
    await op(paypal.body.payId, 'confirms', { transId: transId('INCPP-conf') });
    const refused = await op(paypal.body.payId, 'incrementals', {
      transId: transId('INCPP-1'),
      amount: { value: 100, currency: 'EUR' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.responseCode).toBe(responseCodes().CARD_ONLY!.responseCode);
  });

  it('multi-step methods wait for the confirmation; HOSTED payments wait for the customer and link to the hosted page', async () => {
    const klarna = await create({
      transId: transId('KL'),
      amount: { value: 4990, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'KLARNA' },
    });
    expect(klarna.status).toBe(201);
    expect((await details(klarna.body.payId)).state).toBe('PENDING_CONFIRMATION');
    expect(
      (await op(klarna.body.payId, 'captures', { transId: transId('KL-c'), amount: { value: 1, currency: 'EUR' } }))
        .body.responseCode,
    ).toBe(responseCodes().NOTHING_TO_CAPTURE!.responseCode);
    const confirmed = await op(klarna.body.payId, 'confirms', {
      transId: transId('KL-conf'),
      paymentMethods: { klarna: { authorizationToken: 'tok' } },
    });
    expect(confirmed.status).toBe(200);
    expect(await details(klarna.body.payId)).toMatchObject({ state: 'CAPTURED' }); // AUTOMATIC by default
    expect((await op(klarna.body.payId, 'confirms', { transId: transId('KL-again') })).body.responseCode).toBe(
      responseCodes().NOT_AWAITING_CONFIRMATION!.responseCode,
    );

    const hosted = await create({
      transId: transId('HOST'),
      amount: { value: 4990, currency: 'EUR' },
      paymentMethods: { integrationType: 'HOSTED', type: 'PAYPAL' },
    });
    expect(hosted.body._links.redirect.href).toMatch(new RegExp(`^${sandbox().url}/hosted/payments/test/`));
    expect((await details(hosted.body.payId)).state).toBe('PENDING');
  });

  it('PATCH updates the descriptive fields and keeps the money', async () => {
    const payId = (await direct(transId('UPD'), 3000, 'MANUAL')).body.payId;
    const r = await sandbox().call('PATCH', `/payments/${payId}`, {
      body: { refNr: 'INV-9', metadata: { note: 'gift' }, order: { merchantReference: 'ORD-9' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      payId,
      refNr: 'INV-9',
      metadata: { note: 'gift' },
      order: { merchantReference: 'ORD-9' },
      state: 'AUTHORIZED',
      authorizedAmount: { value: 3000 },
    });
    expect(r.body.operations.at(-1).type).toBe('UPDATE');
    expect((await sandbox().call('PATCH', `/payments/${payId}`, { body: {} })).status).toBe(400); // minProperties 1
  });

  it.each(simulationCodes())(
    'simulationMode $simulationMode forces its response code at authorization, capture and refund',
    async (code) => {
      const codes = responseCodes();
      const declines = code.responseCode !== codes.SUCCESS!.responseCode;
      const id = transId(`SIM-${code.simulationMode}`);
      const created = await direct(id, 2000, 'MANUAL', { simulationMode: code.simulationMode });
      expect(created.status).toBe(declines ? 422 : 201);
      expect(created.body.responseCode).toBe(code.responseCode);
      if (declines) {
        expect(created.body.status).toBe('FAILED');
        expect(created.body.paymentMethods?.card).toEqual(code.providerDetails?.card);
        expect((await details(created.body.payId)).state).toBe('FAILED');
        return;
      }
      const payId = created.body.payId;
      for (const mode of simulationCodes().map((c) => c.simulationMode)) {
        const capture = await op(payId, 'captures', {
          transId: transId(`${id}-${mode}`),
          amount: { value: 100, currency: 'USD' },
          simulationMode: mode,
        });
        const expected = simulationCodes().find((c) => c.simulationMode === mode)!;
        expect(capture.body.responseCode, mode).toBe(expected.responseCode);
        const refund = await op(payId, 'refunds', {
          transId: transId(`${id}-r-${mode}`),
          amount: { value: 10, currency: 'USD' },
          simulationMode: mode,
        });
        expect(refund.body.responseCode, mode).toBe(expected.responseCode);
      }
    },
  );

  it('payment links, checkout sessions and payment intents', async () => {
    const link = await sandbox().call('POST', '/payments/links', {
      body: { transId: transId('LINK'), amount: { value: 1500, currency: 'EUR' } },
    });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ status: 'ACTIVE', amount: { value: 1500, currency: 'EUR' } });
    expect(link.body.url).toMatch(new RegExp(`^${sandbox().url}/hosted/links/test/`));
    const session = await sandbox().call('POST', '/payments/sessions', { body: checkoutSession(transId('SES')) });
    expect(session.status).toBe(202);
    expect(session.body._links.redirect.href).toMatch(new RegExp(`^${sandbox().url}/hosted/sessions/test/`));

    const intent = await sandbox().call('POST', '/payment-intents', {
      body: { transId: transId('PI'), amount: { value: 990, currency: 'EUR' }, captureMethod: { type: 'MANUAL' } },
    });
    expect(intent.status).toBe(201);
    const token = (
      await sandbox().call('POST', '/authorization/oauth/token', {
        body: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    ).body.access_token;
    const bearer = { authorization: `Bearer ${token}` };
    const confirmed = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
      headers: bearer,
      body: { integrationType: 'DIRECT', type: 'CARD' },
    });
    expect(confirmed.status).toBe(201);
    expect(await details(confirmed.body.payId)).toMatchObject({ state: 'AUTHORIZED', amount: { value: 990 } });
    const again = await sandbox().call('POST', `/payment-intents/${intent.body.id}/confirm`, {
      headers: bearer,
      body: { integrationType: 'DIRECT', type: 'CARD' },
    });
    expect(again.status).toBe(422);
    expect(again.body.responseCode).toBe(responseCodes().INTENT_ALREADY_CONFIRMED!.responseCode);
    const noAmount = await sandbox().call('POST', '/payment-intents', { body: { transId: transId('PI0') } });
    const incomplete = await sandbox().call('POST', `/payment-intents/${noAmount.body.id}/confirm`, {
      headers: bearer,
      body: { integrationType: 'DIRECT', type: 'CARD' },
    });
    expect(incomplete.body.responseCode).toBe(responseCodes().INTENT_INCOMPLETE!.responseCode);
    expect(
      (
        await sandbox().call('POST', '/payment-intents/pi_nothere/confirm', {
          headers: bearer,
          body: { integrationType: 'DIRECT', type: 'CARD' },
        })
      ).status,
    ).toBe(404);
  });

  it('every response code the sandbox sends is in the contract, with its description', async () => {
    const payId = (await direct(transId('CODES'), 100, 'MANUAL')).body.payId;
    const d = await details(payId);
    const known = new Map(Object.values(responseCodes()).map((c) => [c.responseCode, c.responseDescription]));
    for (const o of d.operations) expect(known.get(o.responseCode)).toBe(o.responseDescription);
    expect(isObject(d)).toBe(true);
  });
});
