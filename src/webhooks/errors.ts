// Errors of the webhook helpers. Each carries a machine-readable `code` so that a handler can
// branch (answer 400, log, alert) without matching message text.

abstract class CodedError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string) {
    super(message);
    this.code = code;
  }
}

export type WebhookSignatureErrorCode =
  /** The `X-Webhook-Signature` header is absent or empty. */
  | 'missing_header'
  /** The header is not `t=<unix seconds>,v1=<64 lowercase hex>[,v1=…]`. */
  | 'malformed_header'
  /** The signature is valid, but `t` is further from this clock than the tolerance. */
  | 'timestamp_out_of_tolerance'
  /** No `v1` matches the body under any of the configured secrets. */
  | 'no_matching_signature';

/**
 * The request is not a valid signed webhook: answer it with 400 and do not process it. Messages
 * name the header and the reason; they never contain the expected signature or a secret.
 */
export class WebhookSignatureError extends CodedError<WebhookSignatureErrorCode> {
  override readonly name = 'WebhookSignatureError';
}

export type WebhookPayloadErrorCode =
  /** The body is not UTF-8 JSON. */
  | 'invalid_json'
  /** The JSON is not an object with a non-empty string `payId`. */
  | 'invalid_payload';

/**
 * The body is not a notification. Messages describe the problem but never quote the body, which
 * holds payment data that should not end up in logs.
 */
export class WebhookPayloadError extends CodedError<WebhookPayloadErrorCode> {
  override readonly name = 'WebhookPayloadError';
}
