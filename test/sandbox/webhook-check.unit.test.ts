// The check every test receiver holds the sandbox's deliveries to (test/support/webhook-check.ts):
// a delivery as the contract's webhooks declare it passes; a wrong body, an undeclared member, a bad
// or missing signature, an unknown merchant, a wrong method or media type are each caught. (A
// Receiver that received one fails the test: receiver.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import {
  basicDelivery as basic,
  checkDelivery,
  webhookExample as exampleBody,
  registerWebhookSecrets,
  signedDelivery,
} from '../support/webhook-check.js';

const SECRET = 'whsec_check_0123456789abcdef';
const enhanced = (body: Record<string, unknown>, secret = SECRET, text?: string) => signedDelivery(body, secret, text);

describe('checkDelivery', () => {
  const merchantId = exampleBody('enhancedPaymentNotification').merchantId as string;
  beforeAll(() => registerWebhookSecrets({ merchantId, webhookSecret: SECRET }));

  it("the contract's examples, delivered as the sandbox delivers them, conform", async () => {
    expect(await checkDelivery(await enhanced(exampleBody('enhancedPaymentNotification')))).toEqual([]);
    expect(await checkDelivery(basic(exampleBody('basicPaymentNotification')))).toEqual([]);
  });

  it('a signed body the schema refuses, or with a member it does not declare', async () => {
    const wrongType = { ...exampleBody('enhancedPaymentNotification'), status: 42 };
    const [problem] = await checkDelivery(await enhanced(wrongType));
    expect(problem).toMatch(/^enhancedPaymentNotification: body: \/status must be string/);
    const extra = { ...exampleBody('enhancedPaymentNotification'), surprise: true };
    expect(await checkDelivery(await enhanced(extra))).toEqual([
      'enhancedPaymentNotification: body: $.surprise is not declared by the schema',
    ]);
    expect((await checkDelivery(await enhanced({}, SECRET, 'not json')))[0]).toMatch(/the body is not JSON/);
  });

  it('a bad signature: another secret, a body changed after signing, a malformed header', async () => {
    const body = exampleBody('enhancedPaymentNotification');
    expect(await checkDelivery(await enhanced(body, 'whsec_someone_else_0123456789'))).toEqual([
      expect.stringMatching(/^enhancedPaymentNotification: signature: .*none of the 1 v1 signature/),
    ]);
    const signed = await enhanced(body);
    const tampered = { ...signed, body: signed.body.replace('"OK"', '"FAILED"') };
    expect((await checkDelivery(tampered)).join('\n')).toMatch(/signature: /);
    const malformed = { ...signed, headers: { ...signed.headers, 'x-webhook-signature': 'v1=abc' } };
    const problems = (await checkDelivery(malformed)).join('\n');
    expect(problems).toMatch(/header x-webhook-signature: \/ must match pattern/);
    expect(problems).toMatch(/signature: /);
  });

  it('an enhanced body without its signature is no basic notification; a merchant whose secret is unknown cannot be verified', async () => {
    const unsigned = basic(exampleBody('enhancedPaymentNotification'));
    const problems = await checkDelivery(unsigned);
    expect(problems.length).toBeGreaterThan(5);
    expect(problems[0]).toMatch(/^basicPaymentNotification: body: \$\.\w+ is not declared by the schema$/);
    const stranger = { ...exampleBody('enhancedPaymentNotification'), merchantId: 'nobody_known' };
    expect(await checkDelivery(await enhanced(stranger))).toEqual([
      'enhancedPaymentNotification: no webhook secret of merchant nobody_known to verify the signature with',
    ]);
  });

  it('a basic notification without its payId, sent with GET, or as text', async () => {
    expect(await checkDelivery(basic({}))).toEqual([
      'basicPaymentNotification: body: / must have required property \'payId\' {"missingProperty":"payId"}',
    ]);
    const asText = { ...basic(exampleBody('basicPaymentNotification')), method: 'GET' };
    asText.headers = { 'content-type': 'text/plain' };
    expect(await checkDelivery(asText)).toEqual([
      'basicPaymentNotification: sent with GET, not post',
      'basicPaymentNotification: content-type text/plain, not application/json',
    ]);
  });
});
