// A Receiver holds every delivery to the contract (test/support/webhook-check.ts): a conforming one
// is received; one that does not conform fails the test at its first look, naming what is wrong, or
// at the end of the test when nobody looked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../support/receiver.js';
import {
  basicDelivery as basic,
  webhookExample as exampleBody,
  type ReceivedDelivery,
  signedDelivery,
  WebhookConformanceError,
} from '../support/webhook-check.js';

const SECRET = 'whsec_check_0123456789abcdef';
const enhanced = (body: Record<string, unknown>, secret = SECRET, text?: string) => signedDelivery(body, secret, text);

describe('a Receiver holds every delivery to the contract', () => {
  const receiver = new Receiver({ secrets: (id) => (id === 'acme_shop_de' ? [SECRET] : undefined) });
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());
  const post = async (path: string, delivery: ReceivedDelivery) => {
    const answer = await fetch(`${receiver.url}${path}`, {
      method: delivery.method,
      headers: delivery.headers as Record<string, string>,
      body: delivery.body,
    });
    return answer.status;
  };

  it('a conforming delivery is received; a non-conforming one fails the test at its first look, naming what is wrong', async () => {
    expect(await post('/good', await enhanced(exampleBody('enhancedPaymentNotification')))).toBe(200);
    expect(receiver.on('/good')).toHaveLength(1);
    const forged = await enhanced(exampleBody('enhancedPaymentNotification'), 'whsec_forger_0123456789abcdef');
    expect(await post('/forged', forged)).toBe(200);
    expect(() => receiver.on('/forged')).toThrow(WebhookConformanceError);
    // Reported once: the next look (and the end of this test) sees nothing new.
    expect(receiver.on('/forged')).toHaveLength(1);
  });

  it('a non-conforming delivery nobody looked at fails the test at its end', async () => {
    await post('/unlooked', basic({ payId: 42 }));
    let caught: unknown;
    try {
      receiver.assertConforming();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WebhookConformanceError);
    expect((caught as WebhookConformanceError).violations).toEqual([
      '/unlooked: basicPaymentNotification: body: /payId must be string {"type":"string"}',
    ]);
  });
});
