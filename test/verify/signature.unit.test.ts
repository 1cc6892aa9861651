// payment-verify's check of a notification's signature (packages/verify/src/signature.ts), against
// headers the SDK's signWebhook writes (an implementation of its own) and headers made here: a valid
// one, a wrong secret, other bytes, several v1 during a rotation, a timestamp outside the tolerance,
// and headers that are not of the form `t=…,v1=…`.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignature, toleranceOf } from '../../packages/verify/src/signature.js';
import { signWebhook } from '../../src/webhooks/index.js';
import { loadBundle } from '../support/openapi.js';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const OTHER_SECRET = 'whsec_fedcba9876543210fedcba9876543210';
const BODY = '{"payId":"01a2","state":"CAPTURED","amount":{"value":4200,"currency":"EUR"}}';
const T = 1_795_771_200;
const NOW = T * 1000;
const TOLERANCE = 300;

const NO_MATCH = 'no v1 signature matches the HMAC-SHA256 of "<t>.<raw body>" with the webhook secret';
const hmac = (secret: string, t: number | string, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('checkSignature', () => {
  it('accepts what signWebhook signs, and returns its timestamp', async () => {
    const header = await signWebhook(BODY, SECRET, { timestamp: T });
    expect(checkSignature(header, BODY, SECRET, TOLERANCE, NOW)).toEqual({ problems: [], timestamp: T });
  });

  it('refuses a signature made with another secret', async () => {
    const header = await signWebhook(BODY, OTHER_SECRET, { timestamp: T });
    expect(checkSignature(header, BODY, SECRET, TOLERANCE, NOW).problems).toEqual([NO_MATCH]);
  });

  it('refuses a signature over other bytes: the same JSON re-serialized, one byte changed, another t', async () => {
    const header = await signWebhook(BODY, SECRET, { timestamp: T });
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(checkSignature(header, pretty, SECRET, TOLERANCE, NOW).problems).toEqual([NO_MATCH]);
    expect(checkSignature(header, BODY.replace('4200', '4201'), SECRET, TOLERANCE, NOW).problems).toEqual([NO_MATCH]);
    const otherT = header.replace(`t=${T}`, `t=${T + 1}`);
    expect(checkSignature(otherT, BODY, SECRET, TOLERANCE, NOW).problems).toEqual([NO_MATCH]);
  });

  it('accepts a header with several v1 when any one matches (a secret being rotated)', async () => {
    const rotated = await signWebhook(BODY, [OTHER_SECRET, SECRET], { timestamp: T });
    expect(rotated.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(checkSignature(rotated, BODY, SECRET, TOLERANCE, NOW).problems).toEqual([]);
    expect(checkSignature(rotated, BODY, OTHER_SECRET, TOLERANCE, NOW).problems).toEqual([]);
    const made = `t=${T},v1=${'0'.repeat(64)},v1=${hmac(SECRET, T, BODY)}`;
    expect(checkSignature(made, BODY, SECRET, TOLERANCE, NOW).problems).toEqual([]);
    const none = `t=${T},v1=${hmac(OTHER_SECRET, T, BODY)},v1=${'ab'.repeat(32)}`;
    expect(checkSignature(none, BODY, SECRET, TOLERANCE, NOW).problems).toEqual([NO_MATCH]);
  });

  it('refuses a v1 of another length or that is not hex', () => {
    const good = hmac(SECRET, T, BODY);
    for (const v1 of [good.slice(0, 62), `${good}00`, `${good.slice(0, 62)}zz`, ''])
      expect(checkSignature(`t=${T},v1=${v1}`, BODY, SECRET, TOLERANCE, NOW).problems, v1).toEqual([NO_MATCH]);
  });

  it('refuses a timestamp further from now than the tolerance, either way, and accepts one at it', () => {
    const signedAt = (t: number) => `t=${t},v1=${hmac(SECRET, t, BODY)}`;
    expect(checkSignature(signedAt(T - 301), BODY, SECRET, TOLERANCE, NOW).problems).toEqual([
      'the timestamp is 301 s from now, more than 300 s',
    ]);
    expect(checkSignature(signedAt(T + 3600), BODY, SECRET, TOLERANCE, NOW).problems).toEqual([
      'the timestamp is 3600 s from now, more than 300 s',
    ]);
    expect(checkSignature(signedAt(T - 300), BODY, SECRET, TOLERANCE, NOW).problems).toEqual([]);
    expect(checkSignature(signedAt(T + 300), BODY, SECRET, TOLERANCE, NOW).problems).toEqual([]);
  });

  it('reports both a stale timestamp and a signature that does not match', () => {
    const stale = `t=${T - 1000},v1=${hmac(OTHER_SECRET, T - 1000, BODY)}`;
    expect(checkSignature(stale, BODY, SECRET, TOLERANCE, NOW)).toEqual({
      timestamp: T - 1000,
      problems: [NO_MATCH, 'the timestamp is 1000 s from now, more than 300 s'],
    });
  });

  it('refuses a missing or malformed header, naming it', () => {
    expect(checkSignature(undefined, BODY, SECRET, TOLERANCE, NOW)).toEqual({ problems: ['no signature header'] });
    expect(checkSignature('', BODY, SECRET, TOLERANCE, NOW)).toEqual({ problems: ['no signature header'] });
    const v1 = hmac(SECRET, T, BODY);
    for (const header of [
      `v1=${v1}`,
      `t=${T}`,
      `t=,v1=${v1}`,
      `t=${T}.5,v1=${v1}`,
      `t=-${T},v1=${v1}`,
      `t=abc,v1=${v1}`,
      `T=${T},V1=${v1}`,
      `sha256=${v1}`,
      v1,
    ])
      expect(checkSignature(header, BODY, SECRET, TOLERANCE, NOW), header).toEqual({
        problems: [`a signature header not of the form t=…,v1=…: ${header}`],
      });
  });
});

describe('toleranceOf', () => {
  it("reads the tolerance from the contract's description of the signature header", () => {
    const bundle = loadBundle() as { components: { parameters: Record<string, { description: string }> } };
    expect(toleranceOf(bundle.components.parameters.WebhookSignatureHeader!.description)).toBe(300);
  });

  it('reads the first number of seconds a text states, or nothing', () => {
    expect(toleranceOf('reject timestamps more than 120 seconds from your clock')).toBe(120);
    expect(toleranceOf('reject timestamps more than 120  seconds old, and 300 seconds ahead')).toBe(120);
    expect(toleranceOf('reject old timestamps')).toBeUndefined();
  });
});
