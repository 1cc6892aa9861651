// The webhook helpers (src/webhooks): the contract's inferred X-Webhook-Signature scheme, the
// payload parsers, and the example receiver in examples/webhook-server.ts.
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createWebhookServer, type PaymentEvent } from '../../examples/webhook-server.js';
import type { BasicWebhookNotification, EnhancedWebhookNotification, webhooks } from '../../generated/types.js';
import {
  constructEnhancedNotification,
  type HeadersLike,
  parseBasicNotification,
  parseEnhancedNotification,
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookPayloadError,
  WebhookSignatureError,
  type WebhookSignatureErrorCode,
} from '../../src/webhooks/index.js';
import { deref, operationById, type ParameterObject, parametersOf } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const SECRET = 'whsec_test_2f0c5a8e4b7d4e1f';
const OLD_SECRET = 'whsec_old_9a3c6b2d8e0f1a7c';
const NOW = 1_795_771_200; // unix seconds, fixed for every test
const now = () => NOW * 1000;
const BODY = '{"payId":"2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c","status":"OK","amount":{"value":11900,"currency":"EUR"}}';

/** The contract's X-Webhook-Signature parameter of the enhanced webhook. */
function signatureParameter(): ParameterObject {
  const bundle = loadBundle();
  const found = parametersOf(bundle, operationById(bundle, 'receiveEnhancedPaymentNotification')).find(
    (p) => p.in === 'header' && String(p.name).toLowerCase() === WEBHOOK_SIGNATURE_HEADER.toLowerCase(),
  );
  if (!found) throw new Error(`the enhanced webhook declares no ${WEBHOOK_SIGNATURE_HEADER} header`);
  return found;
}

const headers = (value: string) => ({ [WEBHOOK_SIGNATURE_HEADER]: value });
const hmacHex = (secret: string, t: number | string, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<WebhookSignatureError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a WebhookSignatureError').toBeInstanceOf(WebhookSignatureError);
  return error as WebhookSignatureError;
}

async function expectCode(promise: Promise<unknown>, code: WebhookSignatureErrorCode): Promise<WebhookSignatureError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  expect(error.message).toContain(WEBHOOK_SIGNATURE_HEADER);
  return error;
}

describe('signWebhook', () => {
  it('is deterministic for a fixed timestamp and equals an independently computed HMAC-SHA256', async () => {
    const a = await signWebhook(BODY, SECRET, { timestamp: NOW });
    expect(await signWebhook(BODY, SECRET, { timestamp: NOW })).toBe(a);
    expect(a).toBe(`t=${NOW},v1=${hmacHex(SECRET, NOW, BODY)}`);
  });

  it('puts one v1 per secret, in order', async () => {
    expect(await signWebhook(BODY, [OLD_SECRET, SECRET], { timestamp: NOW })).toBe(
      `t=${NOW},v1=${hmacHex(OLD_SECRET, NOW, BODY)},v1=${hmacHex(SECRET, NOW, BODY)}`,
    );
  });

  it('signs the UTF-8 bytes: a Uint8Array body gives the same header as its string', async () => {
    const body = '{"payId":"p-1","description":"Café – 10 €"}';
    const bytes = new TextEncoder().encode(body);
    const fromBytes = await signWebhook(bytes, SECRET, { timestamp: NOW });
    expect(fromBytes).toBe(await signWebhook(body, SECRET, { timestamp: NOW }));
    expect(fromBytes).toBe(`t=${NOW},v1=${hmacHex(SECRET, NOW, Buffer.from(body, 'utf8'))}`);
  });

  it('defaults t to the current unix second', async () => {
    const before = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),/.exec(await signWebhook(BODY, SECRET))![1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('refuses milliseconds, fractions and empty secrets', async () => {
    await expect(signWebhook(BODY, SECRET, { timestamp: NOW * 1000 })).rejects.toThrow(TypeError);
    await expect(signWebhook(BODY, SECRET, { timestamp: NOW + 0.5 })).rejects.toThrow(TypeError);
    await expect(signWebhook(BODY, '')).rejects.toThrow(TypeError);
    await expect(signWebhook(BODY, [])).rejects.toThrow(TypeError);
  });
});

describe('verifyWebhookSignature', () => {
  it('accepts a valid signature and returns its timestamp', async () => {
    const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
    await expect(verifyWebhookSignature(BODY, headers(header), SECRET, { now })).resolves.toEqual({ timestamp: NOW });
  });

  it('accepts a header computed independently with node:crypto', async () => {
    const header = `t=${NOW},v1=${hmacHex(SECRET, NOW, BODY)}`;
    await expect(verifyWebhookSignature(BODY, headers(header), SECRET, { now })).resolves.toEqual({ timestamp: NOW });
  });

  it('rejects a tampered body, including a re-serialised one', async () => {
    const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
    await expectCode(
      verifyWebhookSignature(BODY.replace('11900', '1'), headers(header), SECRET, { now }),
      'no_matching_signature',
    );
    // Same JSON value, different bytes: the raw body must be verified, not JSON.stringify(JSON.parse(body)).
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 1);
    await expectCode(verifyWebhookSignature(reserialised, headers(header), SECRET, { now }), 'no_matching_signature');
  });

  it('compares every byte: a signature that differs from the right one in any single byte is rejected', async () => {
    const right = Buffer.from(hmacHex(SECRET, NOW, BODY), 'hex');
    for (let i = 0; i < right.length; i++) {
      const forged = Buffer.from(right);
      forged[i]! ^= 0x01;
      const error = await rejection(
        verifyWebhookSignature(BODY, headers(`t=${NOW},v1=${forged.toString('hex')}`), SECRET, { now }),
      );
      expect(error.code, `byte ${i}`).toBe('no_matching_signature');
    }
    // Alongside a wrong v1, the right one still counts (rotation), and a forged one never does.
    const wrong = 'f'.repeat(64);
    await expect(
      verifyWebhookSignature(BODY, headers(`t=${NOW},v1=${wrong},v1=${right.toString('hex')}`), SECRET, { now }),
    ).resolves.toEqual({ timestamp: NOW });
  });

  it('leaves the comparison to crypto.subtle.verify (constant time), never recomputing and comparing itself', async () => {
    // A timing leak cannot be asserted reliably in a unit test; what can be asserted is that the
    // check goes through the platform's constant-time verify and that no expected MAC is produced.
    const verify = vi.spyOn(crypto.subtle, 'verify');
    const sign = vi.spyOn(crypto.subtle, 'sign');
    try {
      const header = await signWebhook(BODY, [OLD_SECRET, SECRET], { timestamp: NOW });
      sign.mockClear();
      await verifyWebhookSignature(BODY, headers(header), 'whsec_third', { now }).catch(() => {});
      expect(verify).toHaveBeenCalledTimes(2);
      expect(sign).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
      sign.mockRestore();
    }
  });

  it('rejects a different t than the one signed (t is part of the signed string)', async () => {
    const v1 = hmacHex(SECRET, NOW, BODY);
    await expectCode(
      verifyWebhookSignature(BODY, headers(`t=${NOW - 1},v1=${v1}`), SECRET, { now }),
      'no_matching_signature',
    );
  });

  it('rejects a wrong secret without leaking the expected signature', async () => {
    const header = await signWebhook(BODY, 'whsec_someone_else', { timestamp: NOW });
    const error = await expectCode(
      verifyWebhookSignature(BODY, headers(header), SECRET, { now }),
      'no_matching_signature',
    );
    const expected = hmacHex(SECRET, NOW, BODY);
    expect(error.message).not.toContain(expected);
    expect(error.message).not.toContain(SECRET);
    expect(JSON.stringify({ ...error })).not.toContain(expected);
  });

  describe('timestamp tolerance (300 s default, both directions)', () => {
    const at = async (t: number, options: { toleranceSeconds?: number } = {}) =>
      verifyWebhookSignature(BODY, headers(await signWebhook(BODY, SECRET, { timestamp: t })), SECRET, {
        now,
        ...options,
      });

    it('rejects a stale timestamp (now - 301 s) with a valid signature', async () => {
      const error = await expectCode(at(NOW - 301), 'timestamp_out_of_tolerance');
      expect(error.message).toMatch(/301 s in the past/);
    });

    it('rejects a future timestamp (now + 301 s) with a valid signature', async () => {
      const error = await expectCode(at(NOW + 301), 'timestamp_out_of_tolerance');
      expect(error.message).toMatch(/301 s in the future/);
    });

    it('accepts exactly at the boundary, in both directions', async () => {
      await expect(at(NOW - 300)).resolves.toEqual({ timestamp: NOW - 300 });
      await expect(at(NOW + 300)).resolves.toEqual({ timestamp: NOW + 300 });
    });

    it('honours toleranceSeconds', async () => {
      await expect(at(NOW - 10, { toleranceSeconds: 10 })).resolves.toEqual({ timestamp: NOW - 10 });
      await expectCode(at(NOW - 11, { toleranceSeconds: 10 }), 'timestamp_out_of_tolerance');
      await expectCode(at(NOW + 1, { toleranceSeconds: 0 }), 'timestamp_out_of_tolerance');
      await expect(at(NOW - 1, { toleranceSeconds: -1 })).rejects.toThrow(TypeError);
    });

    it('uses the real clock by default', async () => {
      const header = await signWebhook(BODY, SECRET);
      await expect(verifyWebhookSignature(BODY, headers(header), SECRET)).resolves.toHaveProperty('timestamp');
      const stale = await signWebhook(BODY, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
      await expectCode(verifyWebhookSignature(BODY, headers(stale), SECRET), 'timestamp_out_of_tolerance');
    });

    it('reports a bad signature, not the timestamp, for an unauthentic stale request', async () => {
      const header = await signWebhook(BODY, 'whsec_someone_else', { timestamp: NOW - 10_000 });
      await expectCode(verifyWebhookSignature(BODY, headers(header), SECRET, { now }), 'no_matching_signature');
    });
  });

  describe('rotation', () => {
    it('the service rotating: a header with the old and the new v1 is accepted with only the new or only the old secret', async () => {
      const header = await signWebhook(BODY, [OLD_SECRET, SECRET], { timestamp: NOW });
      expect(header.match(/v1=/g)).toHaveLength(2);
      await expect(verifyWebhookSignature(BODY, headers(header), SECRET, { now })).resolves.toEqual({ timestamp: NOW });
      await expect(verifyWebhookSignature(BODY, headers(header), OLD_SECRET, { now })).resolves.toEqual({
        timestamp: NOW,
      });
      await expect(verifyWebhookSignature(BODY, headers(header), [SECRET], { now })).resolves.toEqual({
        timestamp: NOW,
      });
      await expectCode(verifyWebhookSignature(BODY, headers(header), 'whsec_third', { now }), 'no_matching_signature');
    });

    it('the receiver holding several secrets accepts a header signed with any one of them', async () => {
      const receiver = ['whsec_unused', OLD_SECRET, SECRET];
      for (const signer of [OLD_SECRET, SECRET]) {
        const header = await signWebhook(BODY, signer, { timestamp: NOW });
        await expect(verifyWebhookSignature(BODY, headers(header), receiver, { now })).resolves.toEqual({
          timestamp: NOW,
        });
      }
      const foreign = await signWebhook(BODY, 'whsec_foreign', { timestamp: NOW });
      await expectCode(verifyWebhookSignature(BODY, headers(foreign), receiver, { now }), 'no_matching_signature');
    });

    it('a wrong secret is a configuration error (TypeError), not a bad request', async () => {
      const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
      await expect(verifyWebhookSignature(BODY, headers(header), [], { now })).rejects.toThrow(TypeError);
      await expect(verifyWebhookSignature(BODY, headers(header), '', { now })).rejects.toThrow(TypeError);
      await expect(verifyWebhookSignature(BODY, headers(header), [SECRET, ''], { now })).rejects.toThrow(TypeError);
    });
  });

  describe('malformed headers', () => {
    const hex = 'a'.repeat(64);
    const cases: [string, HeadersLike, WebhookSignatureErrorCode][] = [
      ['no header at all', { 'content-type': 'application/json' }, 'missing_header'],
      ['an empty header', headers(''), 'missing_header'],
      ['a header of spaces', headers('   '), 'missing_header'],
      ['an undefined value (Node)', { 'x-webhook-signature': undefined }, 'missing_header'],
      ['an empty Fetch Headers', new Headers(), 'missing_header'],
      ['no t=', headers(`v1=${hex}`), 'malformed_header'],
      ['t= not first', headers(`v1=${hex},t=${NOW}`), 'malformed_header'],
      ['t= twice', headers(`t=${NOW},t=${NOW},v1=${hex}`), 'malformed_header'],
      ['a non-numeric t', headers(`t=abc,v1=${hex}`), 'malformed_header'],
      ['a negative t', headers(`t=-1,v1=${hex}`), 'malformed_header'],
      ['a fractional t', headers(`t=${NOW}.5,v1=${hex}`), 'malformed_header'],
      ['a millisecond t (13 digits)', headers(`t=${NOW}000,v1=${hex}`), 'malformed_header'],
      ['an empty t', headers(`t=,v1=${hex}`), 'malformed_header'],
      ['no v1', headers(`t=${NOW}`), 'malformed_header'],
      ['an empty v1', headers(`t=${NOW},v1=`), 'malformed_header'],
      ['bad hex in v1', headers(`t=${NOW},v1=${'g'.repeat(64)}`), 'malformed_header'],
      ['upper-case hex in v1', headers(`t=${NOW},v1=${'A'.repeat(64)}`), 'malformed_header'],
      ['a v1 too short (SHA-1 length)', headers(`t=${NOW},v1=${'a'.repeat(40)}`), 'malformed_header'],
      ['a v1 too long', headers(`t=${NOW},v1=${'a'.repeat(66)}`), 'malformed_header'],
      ['base64 instead of hex', headers(`t=${NOW},v1=${Buffer.alloc(32, 7).toString('base64')}`), 'malformed_header'],
      ['an unknown scheme', headers(`t=${NOW},v0=${hex}`), 'malformed_header'],
      ['an element without =', headers(`t=${NOW},v1=${hex},junk`), 'malformed_header'],
      ['a trailing comma', headers(`t=${NOW},v1=${hex},`), 'malformed_header'],
      ['semicolons', headers(`t=${NOW};v1=${hex}`), 'malformed_header'],
      ['garbage', headers('garbage'), 'malformed_header'],
      ['a Bearer token', headers('Bearer abc.def.ghi'), 'malformed_header'],
      ['over the contract maxLength of 1024', headers(`t=${NOW}${`,v1=${hex}`.repeat(16)}`), 'malformed_header'],
    ];
    it.each(cases)('%s', async (_name, h, code) => {
      await expectCode(verifyWebhookSignature(BODY, h, SECRET, { now }), code);
    });

    it('accepts the contract header example as well-formed (it just does not match this body)', async () => {
      const example = String(signatureParameter().example);
      await expectCode(verifyWebhookSignature(BODY, headers(example), SECRET, { now }), 'no_matching_signature');
    });

    it('every header signWebhook produces matches the contract schema pattern', async () => {
      const pattern = new RegExp(String(deref(loadBundle(), signatureParameter().schema).pattern));
      expect(await signWebhook(BODY, SECRET, { timestamp: NOW })).toMatch(pattern);
      expect(await signWebhook(BODY, [OLD_SECRET, SECRET], { timestamp: 0 })).toMatch(pattern);
    });
  });

  describe('header containers', () => {
    it('Node IncomingHttpHeaders: lower-case key, string or array value', async () => {
      const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
      const nodeHeaders: import('node:http').IncomingHttpHeaders = {
        'x-webhook-signature': header,
        'content-type': 'application/json',
      };
      await expect(verifyWebhookSignature(BODY, nodeHeaders, SECRET, { now })).resolves.toEqual({ timestamp: NOW });
      await expect(verifyWebhookSignature(BODY, { 'x-webhook-signature': [header] }, SECRET, { now })).resolves.toEqual(
        { timestamp: NOW },
      );
    });

    it('Fetch Headers and mixed-case record keys', async () => {
      const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
      await expect(
        verifyWebhookSignature(BODY, new Headers({ 'X-Webhook-Signature': header }), SECRET, { now }),
      ).resolves.toEqual({ timestamp: NOW });
      await expect(
        verifyWebhookSignature(BODY, new Headers([['x-WEBHOOK-signature', header]]), SECRET, { now }),
      ).resolves.toEqual({ timestamp: NOW });
      await expect(verifyWebhookSignature(BODY, { 'X-WEBHOOK-SIGNATURE': header }, SECRET, { now })).resolves.toEqual({
        timestamp: NOW,
      });
      await expect(
        verifyWebhookSignature(BODY, new Map([['x-webhook-signature', header]]), SECRET, { now }),
      ).resolves.toEqual({ timestamp: NOW });
    });

    it('tolerates HTTP list whitespace, but two header fields (two t=) are malformed', async () => {
      const header = await signWebhook(BODY, [OLD_SECRET, SECRET], { timestamp: NOW });
      await expect(
        verifyWebhookSignature(BODY, headers(` ${header.replaceAll(',', ', ')} `), SECRET, { now }),
      ).resolves.toEqual({ timestamp: NOW });
      await expectCode(
        verifyWebhookSignature(BODY, { 'x-webhook-signature': [header, header] }, SECRET, { now }),
        'malformed_header',
      );
      const fetchHeaders = new Headers();
      fetchHeaders.append(WEBHOOK_SIGNATURE_HEADER, header);
      fetchHeaders.append(WEBHOOK_SIGNATURE_HEADER, header);
      await expectCode(verifyWebhookSignature(BODY, fetchHeaders, SECRET, { now }), 'malformed_header');
    });
  });

  describe('raw body', () => {
    it('a Uint8Array (and a Buffer) body verifies like its string', async () => {
      const body = '{"payId":"p-1","description":"Café – 10 €"}';
      const header = await signWebhook(body, SECRET, { timestamp: NOW });
      const bytes = new TextEncoder().encode(body);
      const fromBytes = await verifyWebhookSignature(bytes, headers(header), SECRET, { now });
      expect(fromBytes).toEqual(await verifyWebhookSignature(body, headers(header), SECRET, { now }));
      await expect(verifyWebhookSignature(Buffer.from(body), headers(header), SECRET, { now })).resolves.toEqual({
        timestamp: NOW,
      });
      // A view into a larger buffer: only its own bytes count.
      const padded = new Uint8Array(bytes.length + 8);
      padded.set(bytes, 4);
      await expect(
        verifyWebhookSignature(padded.subarray(4, 4 + bytes.length), headers(header), SECRET, { now }),
      ).resolves.toEqual({ timestamp: NOW });
    });

    it('refuses an already parsed body', async () => {
      const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
      await expect(verifyWebhookSignature(JSON.parse(BODY) as never, headers(header), SECRET, { now })).rejects.toThrow(
        /raw body/,
      );
    });
  });
});

describe('parsers', () => {
  const notObjects = ['null', '[]', '[{"payId":"x"}]', '"payId"', '42', 'true'];
  const withoutPayId = [
    '{}',
    '{"payid":"x"}',
    '{"payId":""}',
    '{"payId":42}',
    '{"payId":null}',
    '{"payId":{"id":"x"}}',
  ];

  it.each([
    ['parseBasicNotification', parseBasicNotification],
    ['parseEnhancedNotification', parseEnhancedNotification],
  ] as const)('%s rejects invalid JSON, non-objects and bodies without a string payId', (_name, parse) => {
    const codeOf = (body: string | Uint8Array) => {
      try {
        parse(body);
      } catch (e) {
        expect(e).toBeInstanceOf(WebhookPayloadError);
        return (e as WebhookPayloadError).code;
      }
      return 'parsed';
    };
    expect(codeOf('not json')).toBe('invalid_json');
    expect(codeOf('')).toBe('invalid_json');
    expect(codeOf(new Uint8Array([0x7b, 0xff, 0x7d]))).toBe('invalid_json'); // invalid UTF-8
    for (const body of [...notObjects, ...withoutPayId]) expect(codeOf(body), body).toBe('invalid_payload');
    expect(codeOf('{"payId":"p-1","extra":true}')).toBe('parsed');
  });

  it('messages never quote the body', () => {
    const secretish = '{"payId":"p-1","card":"4111111111111111"';
    expect(() => parseEnhancedNotification(secretish)).toThrow(WebhookPayloadError);
    try {
      parseEnhancedNotification(secretish);
    } catch (e) {
      expect((e as Error).message).not.toContain('4111');
      expect((e as Error).cause).toBeUndefined();
    }
  });

  it('parse strings and bytes alike and are typed from generated/types.ts', () => {
    const basic = parseBasicNotification(new TextEncoder().encode('{"payId":"p-1"}'));
    expect(basic).toEqual({ payId: 'p-1' });
    expectTypeOf(basic).toEqualTypeOf<BasicWebhookNotification>();
    const enhanced = parseEnhancedNotification(BODY);
    expect(enhanced.payId).toBe('2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c');
    expectTypeOf(enhanced).toExtend<EnhancedWebhookNotification>();
    expectTypeOf(enhanced.payId).toEqualTypeOf<string>();
    // The root aliases are the webhooks' request bodies.
    expectTypeOf<webhooks['basicPaymentNotification']['post']['requestBody']>().toExtend<
      { content: { 'application/json': BasicWebhookNotification } } | undefined
    >();
    expectTypeOf<webhooks['enhancedPaymentNotification']['post']['requestBody']>().toExtend<
      { content: { 'application/json': EnhancedWebhookNotification } } | undefined
    >();
  });
});

describe('constructEnhancedNotification', () => {
  it('verifies, then parses', async () => {
    const header = await signWebhook(BODY, SECRET, { timestamp: NOW });
    const notification = await constructEnhancedNotification(BODY, headers(header), SECRET, { now });
    expect(notification).toEqual(JSON.parse(BODY));
  });

  it('never parses an unverified body: invalid JSON with a bad signature gives the signature error', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const garbage = '{not json';
      const header = await signWebhook(garbage, 'whsec_someone_else', { timestamp: NOW });
      await expectCode(
        constructEnhancedNotification(garbage, headers(header), SECRET, { now }),
        'no_matching_signature',
      );
      await expectCode(constructEnhancedNotification(garbage, {}, SECRET, { now }), 'missing_header');
      const stale = await signWebhook(garbage, SECRET, { timestamp: NOW - 301 });
      await expectCode(
        constructEnhancedNotification(garbage, headers(stale), SECRET, { now }),
        'timestamp_out_of_tolerance',
      );
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('a correctly signed body that is not a notification gives the payload error', async () => {
    const header = await signWebhook('[1,2]', SECRET, { timestamp: NOW });
    await expect(constructEnhancedNotification('[1,2]', headers(header), SECRET, { now })).rejects.toMatchObject({
      name: 'WebhookPayloadError',
      code: 'invalid_payload',
    });
  });

  it('round-trips the enhanced webhook example of the contract', async () => {
    const bundle = loadBundle();
    const operation = deref(bundle, (bundle.webhooks as JsonObject).enhancedPaymentNotification).post as JsonObject;
    const media = (deref(bundle, operation.requestBody).content as JsonObject)['application/json'] as JsonObject;
    const examples = Object.values(media.examples as JsonObject).map((e) => deref(bundle, e).value as JsonObject);
    expect(examples.length).toBeGreaterThan(0);
    for (const value of examples) {
      const rawBody = JSON.stringify(value);
      const header = await signWebhook(rawBody, [OLD_SECRET, SECRET], { timestamp: NOW });
      const notification = await constructEnhancedNotification(
        Buffer.from(rawBody),
        { 'x-webhook-signature': header },
        SECRET,
        { now },
      );
      expect(notification.payId).toBe(value.payId);
      expect(notification).toEqual(value);
    }
  });
});

describe('portability', () => {
  it('src/webhooks imports no Node built-ins and uses no Node-only globals', () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'webhooks');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.[cm]?[jt]s$/.test(f));
    expect(files).toContain('index.ts');
    const builtins = new Set(builtinModules);
    for (const file of files) {
      // Strip comments so that prose may mention Node.
      const code = readFileSync(join(dir, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1');
      expect(code, file).not.toMatch(/['"]node:/);
      const specifiers = [...code.matchAll(/(?:from|import|require)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const s of specifiers) {
        expect(s.startsWith('.') || !builtins.has(s), `${file} imports ${s}`).toBe(true);
      }
      expect(code, file).not.toMatch(/\b(?:Buffer|process)\s*[.(]|\brequire\s*\(|\b__dirname\b/);
    }
  });
});

describe('examples/webhook-server.ts', () => {
  it('answers 2xx to a signed enhanced and a basic notification, 400 to a tampered one', async () => {
    const events: PaymentEvent[] = [];
    const retrieve = vi.fn(async (payId: string) => ({ payId, status: 'OK' }));
    const server = createWebhookServer({
      secret: SECRET,
      client: { payments: { retrieve } },
      onPayment: (e) => void events.push(e),
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const post = (path: string, body: string, h: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...h },
        });

      const signed = await signWebhook(BODY, SECRET); // the real clock: the server uses its own
      const ok = await post('/webhooks/enhanced', BODY, { [WEBHOOK_SIGNATURE_HEADER]: signed });
      expect(ok.status).toBe(200);

      const tampered = await post('/webhooks/enhanced', BODY.replace('11900', '1'), {
        [WEBHOOK_SIGNATURE_HEADER]: signed,
      });
      expect(tampered.status).toBe(400);
      expect(await tampered.text()).toBe('no_matching_signature');
      const unsigned = await post('/webhooks/enhanced', BODY);
      expect(unsigned.status).toBe(400);

      const basic = await post('/webhooks/basic', '{"payId":"2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c"}');
      expect(basic.status).toBe(200);
      expect(retrieve).toHaveBeenCalledExactlyOnceWith('2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c');
      expect((await post('/webhooks/basic', '{"nope":1}')).status).toBe(400);

      expect(events.map((e) => [e.kind, e.payId])).toEqual([
        ['enhanced', '2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c'],
        ['basic', '2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c'],
      ]);
    } finally {
      warn.mockRestore();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers 405, 404, 413 and 500 where the handler says so', async () => {
    const server = createWebhookServer({
      secret: SECRET,
      client: { payments: { retrieve: async () => Promise.reject(new Error('API down')) } },
      maxBodyBytes: 256,
    });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await fetch(`${base}/webhooks/enhanced`)).status).toBe(405);
      expect((await fetch(`${base}/elsewhere`, { method: 'POST', body: '{}' })).status).toBe(404);
      expect((await fetch(`${base}/webhooks/enhanced`, { method: 'POST', body: 'x'.repeat(257) })).status).toBe(413);
      // The API call failing is our problem: non-2xx, so that a redelivery can try again.
      expect((await fetch(`${base}/webhooks/basic`, { method: 'POST', body: '{"payId":"p-1"}' })).status).toBe(500);
      expect(error).toHaveBeenCalled();
    } finally {
      error.mockRestore();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is the program docs/webhooks.md links, and each excerpt shown there is a true excerpt of it', () => {
    const root = join(import.meta.dirname, '..', '..');
    const doc = readFileSync(join(root, 'docs', 'webhooks.md'), 'utf8');
    expect(doc, 'docs/webhooks.md links examples/webhook-server.ts').toContain('](../examples/webhook-server.ts)');
    // An excerpt: a ```ts block right after a paragraph whose last line links the program and ends with ':'.
    const excerpts = [
      ...doc.matchAll(/^[^\n]*\]\(\.\.\/examples\/webhook-server\.ts\)[^\n]*:\n\n```ts\n([\s\S]*?)\n```/gm),
    ].map((m) => m[1]!);
    expect(excerpts.length, 'the Node http excerpt').toBeGreaterThan(0);
    const example = readFileSync(join(root, 'examples', 'webhook-server.ts'), 'utf8');
    for (const excerpt of excerpts)
      expect(example).toContain(excerpt.replace(`'@payment-service/api-v2/webhooks'`, `'../src/webhooks/index.js'`));
  });
});
