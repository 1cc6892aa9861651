// The check every test receiver holds the sandbox's deliveries to (test/support/webhook-check.ts):
// a delivery as the contract's webhooks declare it passes; a wrong body, an undeclared member, a bad
// or missing signature, an unknown merchant, a wrong method or media type are each caught, and a
// Receiver that received one fails the test at its first look (and when the test ends).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/webhooks/index.js';
import { locate, operations, toPointer } from '../../tooling/openapi/walker.js';
import { loadBundle } from '../support/openapi.js';
import { Receiver } from '../support/receiver.js';
import {
  checkDelivery,
  type ReceivedDelivery,
  registerWebhookSecrets,
  WebhookConformanceError,
} from '../support/webhook-check.js';

const SECRET = 'whsec_check_0123456789abcdef';

/** The contract's own example of a webhook's body (the first one it gives). */
function exampleBody(webhook: string): Record<string, unknown> {
  const entry = operations(loadBundle(), ['webhooks']).find((e) => e.key === webhook);
  if (!entry) throw new Error(`no webhook ${webhook}`);
  const examples = locate<Record<string, { $ref?: string; value?: unknown }>>(
    loadBundle(),
    toPointer([...entry.tokens, 'requestBody', 'content', 'application/json', 'examples']),
  ).node;
  const first = Object.values(examples)[0]!;
  const example = first.$ref ? locate<{ value: unknown }>(loadBundle(), first.$ref).node : first;
  return structuredClone(example.value) as Record<string, unknown>;
}

const enhanced = async (
  body: Record<string, unknown>,
  secret: string = SECRET,
  text = JSON.stringify(body),
): Promise<ReceivedDelivery> => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-webhook-signature': await signWebhook(text, secret) },
  body: text,
});
const basic = (body: unknown): ReceivedDelivery => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

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
