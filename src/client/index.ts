// The client SDK of the Payment Service API v2. Web-standard APIs only (fetch, AbortSignal,
// crypto.randomUUID, timers, performance.now, btoa, TextEncoder): it runs in Node ≥ 20 and in browsers.

export type { PaymentClient, PaymentClientOptions, PaymentClientSettings, PaymentCredentials } from './client.js';
export { createPaymentClient, listAllName } from './client.js';
export type { FieldErrors, PaymentErrorContext, ProblemDetails } from './errors.js';
export {
  AuthenticationError,
  apiErrorFor,
  IdempotencyConflictError,
  NotFoundError,
  PaymentApiError,
  PaymentCredentialsError,
  PaymentDeclinedError,
  PaymentError,
  PaymentNetworkError,
  PaymentTimeoutError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
export type { ResponseMetadata } from './response.js';
export { responseOf } from './response.js';
export type {
  CallOptions,
  CallOptionsFor,
  Environment,
  IdempotentCallOptions,
  KnownValue,
  ListAllMethod,
  ListAllName,
  ListFilter,
  OperationArgs,
  OperationId,
  OperationMethod,
  OperationTypes,
  PageItem,
  PathArgs,
  QueryParams,
  RequestBody,
  Resource,
  ResourceName,
  Resources,
  SuccessBody,
} from './types.js';
