// Public entry of `@payment-service/api-v2/webhooks`: receive the service's payment notifications.
// Web-standard APIs only (Web Crypto, TextEncoder/TextDecoder): runs in Node >= 20, browsers,
// edge runtimes and a sandbox.

export {
  WEBHOOK_SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhookSignature,
  signWebhook,
  type HeadersLike,
  type RawBody,
  type VerifyOptions,
  type SignOptions,
  type VerifiedSignature,
} from './signature.js';
export {
  parseBasicNotification,
  parseEnhancedNotification,
  constructEnhancedNotification,
  type VerifiedEnhancedNotification,
} from './notifications.js';
export {
  WebhookSignatureError,
  WebhookPayloadError,
  type WebhookSignatureErrorCode,
  type WebhookPayloadErrorCode,
} from './errors.js';
export type { BasicWebhookNotification, EnhancedWebhookNotification } from '../../generated/types.js';
