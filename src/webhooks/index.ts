// Public entry of `@payment-service/api-v2/webhooks`: receive the service's payment notifications.
// Web-standard APIs only (Web Crypto, TextEncoder/TextDecoder): runs in Node >= 20, browsers,
// edge runtimes and a sandbox.

export type { BasicWebhookNotification, EnhancedWebhookNotification } from '../../generated/types.js';
export {
  WebhookPayloadError,
  type WebhookPayloadErrorCode,
  WebhookSignatureError,
  type WebhookSignatureErrorCode,
} from './errors.js';
export {
  constructEnhancedNotification,
  parseBasicNotification,
  parseEnhancedNotification,
  type VerifiedEnhancedNotification,
} from './notifications.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type HeadersLike,
  type RawBody,
  type SignOptions,
  signWebhook,
  type VerifiedSignature,
  type VerifyOptions,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
} from './signature.js';
