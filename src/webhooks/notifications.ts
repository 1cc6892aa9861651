// Typed parsers for the two webhook payloads, and the verify-then-parse entry point for the
// enhanced one. The runtime checks are deliberately minimal (an object with a payId): the body
// comes from the service, and a full schema validator would not fit every runtime.

import type { BasicWebhookNotification, EnhancedWebhookNotification } from '../../generated/types.js';
import { WebhookPayloadError } from './errors.js';
import { type HeadersLike, type RawBody, type VerifyOptions, verifyWebhookSignature } from './signature.js';

/** An enhanced notification whose `payId` has been checked to be present. */
export type VerifiedEnhancedNotification = EnhancedWebhookNotification & { payId: string };

// fatal: invalid UTF-8 is an error rather than silently replaced characters.
const decoder = new TextDecoder('utf-8', { fatal: true });

function parseObjectWithPayId(rawBody: RawBody, kind: string): Record<string, unknown> & { payId: string } {
  let text: string;
  if (typeof rawBody === 'string') text = rawBody;
  else if (rawBody instanceof Uint8Array) {
    try {
      text = decoder.decode(rawBody);
    } catch {
      throw new WebhookPayloadError('invalid_json', `${kind} webhook body is not valid UTF-8`);
    }
  } else throw new TypeError('the raw body must be a string or a Uint8Array (for example a Buffer)');

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // No `cause`: JSON.parse messages quote the body, which holds payment data.
    throw new WebhookPayloadError('invalid_json', `${kind} webhook body is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new WebhookPayloadError('invalid_payload', `${kind} webhook body must be a JSON object, got ${got}`);
  }
  const payId = (value as { payId?: unknown }).payId;
  if (typeof payId !== 'string' || payId.length === 0) {
    throw new WebhookPayloadError(
      'invalid_payload',
      `${kind} webhook body needs a payId that is a non-empty string, got ${payId === undefined ? 'none' : typeof payId}`,
    );
  }
  return value as Record<string, unknown> & { payId: string };
}

/**
 * Parses the basic (unsigned) notification. It only carries the payId and anyone can send it, so
 * treat it as a hint: fetch the payment with `payments.retrieve(payId)` and trust that answer.
 */
export function parseBasicNotification(rawBody: RawBody): BasicWebhookNotification {
  return parseObjectWithPayId(rawBody, 'basic') as BasicWebhookNotification;
}

/**
 * Parses the enhanced notification WITHOUT checking its signature; prefer
 * {@link constructEnhancedNotification}, which verifies first.
 */
export function parseEnhancedNotification(rawBody: RawBody): VerifiedEnhancedNotification {
  return parseObjectWithPayId(rawBody, 'enhanced') as VerifiedEnhancedNotification;
}

/**
 * The recommended entry point for the enhanced webhook: verifies the `X-Webhook-Signature` over
 * the raw body first and parses only an authentic body (so attacker-controlled JSON never reaches
 * the parser). Rejects with a `WebhookSignatureError` (answer 400) or a `WebhookPayloadError`.
 */
export async function constructEnhancedNotification(
  rawBody: RawBody,
  headers: HeadersLike,
  secret: string | readonly string[],
  options?: VerifyOptions,
): Promise<VerifiedEnhancedNotification> {
  await verifyWebhookSignature(rawBody, headers, secret, options);
  return parseEnhancedNotification(rawBody);
}
