// Signature of the enhanced webhook, as designed by the contract (x-provenance: inferred; the
// interface document does not show algorithm, key, header or procedure):
//
//   X-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]
//   v1 = lowercase hex HMAC-SHA256(key = webhook secret as UTF-8, data = `<t>.<raw body>`)
//
// Only web-standard APIs (Web Crypto, TextEncoder) are used, so the same code runs in Node ≥ 20,
// browsers, edge runtimes and a sandbox; do not add `node:` imports here.

import { WebhookSignatureError } from './errors.js';

/** Name of the signature header (matched case-insensitively). */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Webhook-Signature';

/** Default maximum distance, in seconds, between `t` and the receiver's clock (either way). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The contract's `maxLength` of the header; bounds the work spent on one request. */
const MAX_HEADER_LENGTH = 1024;

/** The raw request body: the bytes as received, or their UTF-8 decoding. */
export type RawBody = string | Uint8Array;

/**
 * Request headers: a Fetch `Headers` (or anything with a `get(name)`), Node's
 * `IncomingHttpHeaders` (lower-case keys, string or string[] values), or a plain record.
 */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** Maximum distance between `t` and now, in seconds, in both directions. Default 300. */
  toleranceSeconds?: number;
  /** Current time in milliseconds since the epoch (for tests). Default `Date.now`. */
  now?: () => number;
}

export interface SignOptions {
  /** `t` in unix seconds. Default: now. */
  timestamp?: number;
}

export interface VerifiedSignature {
  /** `t` of the header, unix seconds. */
  timestamp: number;
}

const encoder = new TextEncoder();
// Exactly the contract's header grammar, element by element; lowercase hex only.
const TIMESTAMP = /^[0-9]{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  // Browsers expose crypto.subtle only in secure contexts; say so instead of failing on undefined.
  if (!s)
    throw new Error(
      'Web Crypto (globalThis.crypto.subtle) is not available: webhook signatures need Node >= 20, an edge runtime or a browser secure context',
    );
  return s;
}

/** A wrong configuration is the receiver's bug, not a bad request: TypeError, not a 400. */
function normalizeSecrets(secret: string | readonly string[]): string[] {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('no webhook secret configured');
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length === 0) throw new TypeError('a webhook secret must be a non-empty string');
  }
  return secrets;
}

function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

/**
 * The signed bytes `<t>.<raw body>`. The body is taken byte for byte (a string is encoded as
 * UTF-8): re-serialised JSON would differ in whitespace, key order or escapes and fail.
 */
function signedPayload(t: string, rawBody: RawBody): Uint8Array<ArrayBuffer> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('the raw body must be a string or a Uint8Array (for example a Buffer), not a parsed object');
  }
  const prefix = encoder.encode(`${t}.`);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  return data;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** All values of the header, case-insensitively; several values are joined as HTTP does (`, `). */
function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object')
    throw new TypeError('headers must be a Headers object or a record of header values');
  const lower = name.toLowerCase();
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const h = headers as { get(name: string): string | null | undefined };
    // Fetch Headers are case-insensitive; the second lookup serves Map-like objects with lower-case keys.
    return h.get(name) ?? h.get(lower) ?? undefined;
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== lower) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return values.length > 0 ? values.join(', ') : undefined;
}

interface ParsedHeader {
  /** `t` exactly as sent: it is part of the signed string. */
  t: string;
  timestamp: number;
  signatures: Uint8Array<ArrayBuffer>[];
}

function malformed(reason: string): WebhookSignatureError {
  return new WebhookSignatureError(
    'malformed_header',
    `${WEBHOOK_SIGNATURE_HEADER} header is malformed: ${reason}; expected t=<unix seconds>,v1=<64 lowercase hex digits>[,v1=…]`,
  );
}

/**
 * Strict parse of `t=<1–12 digits>,v1=<64 hex>[,v1=…]`: `t` first and once, at least one `v1`,
 * no other keys (the contract's pattern allows none). Whitespace around the commas is tolerated
 * because HTTP joins repeated header fields with `, `.
 */
function parseHeader(value: string): ParsedHeader {
  if (value.length > MAX_HEADER_LENGTH) throw malformed(`longer than ${MAX_HEADER_LENGTH} characters`);
  const elements = value.split(',').map((e) => e.trim());
  let t: string | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const [index, element] of elements.entries()) {
    const eq = element.indexOf('=');
    if (eq <= 0) throw malformed(`element ${index + 1} is not key=value`);
    const key = element.slice(0, eq);
    const val = element.slice(eq + 1);
    if (key === 't') {
      if (index !== 0) throw malformed(t === undefined ? 't= must come first' : 't= appears more than once');
      if (!TIMESTAMP.test(val)) throw malformed('t= is not a unix timestamp in seconds (1 to 12 digits)');
      t = val;
    } else if (key === 'v1') {
      if (!SIGNATURE.test(val)) throw malformed('a v1= value is not 64 lowercase hex digits (an HMAC-SHA256)');
      signatures.push(fromHex(val));
    } else {
      // Only the first characters: the value is attacker-controlled and ends up in logs.
      throw malformed(`unknown key ${JSON.stringify(key.slice(0, 16))}`);
    }
  }
  if (t === undefined) throw malformed('no t= timestamp');
  if (signatures.length === 0) throw malformed('no v1= signature');
  return { t, timestamp: Number(t), signatures };
}

/**
 * Verifies the `X-Webhook-Signature` of an enhanced webhook over the raw body. Resolves with the
 * signed timestamp; rejects with a {@link WebhookSignatureError} otherwise.
 *
 * @param rawBody the body exactly as received (a Buffer/Uint8Array is best), never re-serialised JSON
 * @param secret the webhook secret, or several during the merchant's own rotation (any may match)
 */
export async function verifyWebhookSignature(
  rawBody: RawBody,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<VerifiedSignature> {
  const secrets = normalizeSecrets(secret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError('toleranceSeconds must be a finite number >= 0');
  const now = options.now ?? Date.now;

  const value = readHeader(headers, WEBHOOK_SIGNATURE_HEADER)?.trim();
  if (!value) {
    throw new WebhookSignatureError(
      'missing_header',
      `${WEBHOOK_SIGNATURE_HEADER} header is missing or empty: the request is not a signed enhanced webhook`,
    );
  }
  const { t, timestamp, signatures } = parseHeader(value);

  const data = signedPayload(t, rawBody);
  let matched = false;
  // crypto.subtle.verify recomputes the HMAC and compares in constant time inside the platform,
  // so no byte of the expected signature can be learnt from response timing. Stopping at the
  // first match only reveals that the request is authentic, which the caller learns anyway.
  search: for (const s of secrets) {
    const key = await hmacKey(s, 'verify');
    for (const signature of signatures) {
      if (await subtle().verify('HMAC', key, signature, data)) {
        matched = true;
        break search;
      }
    }
  }
  if (!matched) {
    throw new WebhookSignatureError(
      'no_matching_signature',
      `${WEBHOOK_SIGNATURE_HEADER} header: none of the ${signatures.length} v1 signature(s) matches the body under the ` +
        `${secrets.length} configured secret(s); check the webhook secret and verify the raw body as received, not re-serialised JSON`,
    );
  }

  // Checked after the signature, so that this code is only reported for authentic requests:
  // a replay (stale) or a skewed clock (stale or future). The signature binds t, so it cannot be
  // refreshed without the secret.
  const nowMs = now();
  if (!Number.isFinite(nowMs)) throw new TypeError('options.now() must return milliseconds since the epoch');
  const skew = Math.floor(nowMs / 1000) - timestamp;
  if (Math.abs(skew) > tolerance) {
    const direction = skew > 0 ? `${skew} s in the past` : `${-skew} s in the future`;
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `${WEBHOOK_SIGNATURE_HEADER} header: timestamp t=${t} is ${direction} (tolerance ${tolerance} s): a replayed request or a skewed clock`,
    );
  }
  return { timestamp };
}

/**
 * The `X-Webhook-Signature` header value for a body: one `v1=` per secret, in order (several
 * during a rotation). For tests and for a sandbox that sends webhooks.
 */
export async function signWebhook(
  rawBody: RawBody,
  secret: string | readonly string[],
  options: SignOptions = {},
): Promise<string> {
  const secrets = normalizeSecrets(secret);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp > 999_999_999_999) {
    throw new TypeError('timestamp must be whole unix seconds (0 to 12 digits), not milliseconds');
  }
  const t = String(timestamp);
  const data = signedPayload(t, rawBody);
  const parts = [`t=${t}`];
  for (const s of secrets) {
    const mac = await subtle().sign('HMAC', await hmacKey(s, 'sign'), data);
    parts.push(`v1=${toHex(new Uint8Array(mac))}`);
  }
  return parts.join(',');
}
