// What a failed call rejects with. One base class, so that `catch (e) { if (e instanceof
// PaymentError) … }` catches everything the client itself raises; the kinds below tell apart an
// answer of the API (PaymentApiError and its subclasses by meaning: ValidationError, NotFoundError,
// …), no answer (PaymentNetworkError, PaymentTimeoutError) and credentials that cannot work for the
// operation (PaymentCredentialsError, raised before sending).
import type {
  DeclinedOperationResult,
  ErrorProblem,
  LegacyRefundValidationError,
  PlanProblem,
  PlanValidationProblem,
  ResultCode,
  TokenError,
  ValidationProblem,
} from '../../generated/types.js';
import { parseRetryAfter } from './retry.js';

type ProblemBody = ErrorProblem | ValidationProblem | PlanProblem | PlanValidationProblem;
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type ValueInUnion<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * Every field of every problem body of the contract (`type`, `title`, `detail`, `traceId`,
 * `errors`, …). `status` is a number in payment problems and a string in payment plan problems.
 */
export type ProblemDetails = { [K in KeysOfUnion<ProblemBody>]?: ValueInUnion<ProblemBody, K> };

/** Field → messages, from a problem's `errors` or from the legacy refund `{ field, error }` body. */
export type FieldErrors = Record<string, string[]>;

export interface PaymentErrorContext {
  operationId?: string | undefined;
  /** The Idempotency-Key the call sent: reuse it to retry the same operation later. */
  idempotencyKey?: string | undefined;
  /** Attempts made (0 when the call failed before sending). */
  attempts?: number;
  cause?: unknown;
}

export class PaymentError extends Error {
  override name = 'PaymentError';
  readonly operationId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(message: string, context: PaymentErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.operationId = context.operationId;
    this.idempotencyKey = context.idempotencyKey;
    this.attempts = context.attempts ?? 0;
  }
}

/**
 * The API answered with a non-2xx status. `apiErrorFor` picks the subclass of the status
 * (ValidationError, NotFoundError, …); a status without one (413, 415, …) is a PaymentApiError.
 */
export class PaymentApiError extends PaymentError {
  override name = 'PaymentApiError';
  readonly status: number;
  /** The response body: parsed JSON, else text, else undefined. */
  readonly body: unknown;
  readonly headers: Headers;
  /** The problem details, when the body is a problem (`type`, `title`, `detail`, `traceId`, …). */
  readonly problem: ProblemDetails | undefined;
  /** Field → messages of a validation failure; empty when there are none. */
  readonly fieldErrors: FieldErrors;
  /**
   * The operation result of a declined or refused operation (422): provider decline details under
   * `paymentMethods`; no `payId` or `xId` when it was refused before a payment existed.
   */
  readonly operationResult: DeclinedOperationResult | undefined;
  readonly traceId: string | undefined;

  constructor(status: number, body: unknown, headers: Headers, context: PaymentErrorContext = {}) {
    const object = isObject(body) ? body : undefined;
    const problem = object && isProblem(object) ? (object as ProblemDetails) : undefined;
    const violations = refusedByMock(status, headers);
    const fieldErrors = violations ?? fieldErrorsOf(object);
    // With violations the body is the mock's canned example: it says nothing about this request.
    const operationResult =
      status === 422 && object && !problem && !violations ? (object as DeclinedOperationResult) : undefined;
    const described = violations
      ? describe(status, undefined, undefined, fieldErrors, context.operationId)
      : describe(status, object, problem, fieldErrors, context.operationId);
    super(described, context);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.problem = problem;
    this.fieldErrors = fieldErrors;
    this.operationResult = operationResult;
    this.traceId = typeof problem?.traceId === 'string' ? problem.traceId : undefined;
  }
}

/** 400: the request breaks the contract's rules; `fieldErrors` names the fields. */
export class ValidationError extends PaymentApiError {
  override name = 'ValidationError';
}

/** 401: missing, wrong or expired credentials. */
export class AuthenticationError extends PaymentApiError {
  override name = 'AuthenticationError';
}

/** 403: the credentials are valid but may not do this (scope, merchant, feature). */
export class PermissionError extends PaymentApiError {
  override name = 'PermissionError';
}

/** 404: no such payment, plan, customer, … for this merchant. */
export class NotFoundError extends PaymentApiError {
  override name = 'NotFoundError';
}

/** 409: the Idempotency-Key was used with another request, or that request is still in progress. */
export class IdempotencyConflictError extends PaymentApiError {
  override name = 'IdempotencyConflictError';
}

/**
 * 422: the operation was declined or refused. `operationResult` is the operation result (provider
 * decline details under `paymentMethods`); `responseCode` and `responseDescription` are its result code.
 */
export class PaymentDeclinedError extends PaymentApiError {
  override name = 'PaymentDeclinedError';
  readonly responseCode: string | undefined;
  readonly responseDescription: string | undefined;

  constructor(status: number, body: unknown, headers: Headers, context: PaymentErrorContext = {}) {
    super(status, body, headers, context);
    const result = isObject(body) ? (body as Partial<ResultCode>) : undefined;
    this.responseCode = typeof result?.responseCode === 'string' ? result.responseCode : undefined;
    this.responseDescription = typeof result?.responseDescription === 'string' ? result.responseDescription : undefined;
  }
}

/** 429: too many requests. `retryAfter` is the Retry-After header in seconds (undefined without one). */
export class RateLimitError extends PaymentApiError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;

  constructor(status: number, body: unknown, headers: Headers, context: PaymentErrorContext = {}) {
    super(status, body, headers, context);
    const ms = parseRetryAfter(headers.get('Retry-After'));
    this.retryAfter = ms === undefined ? undefined : ms / 1000;
  }
}

/** 5xx: the service failed; the outcome of a write is unknown (retry with the same Idempotency-Key). */
export class ServerError extends PaymentApiError {
  override name = 'ServerError';
}

type ApiErrorClass = new (
  status: number,
  body: unknown,
  headers: Headers,
  context?: PaymentErrorContext,
) => PaymentApiError;
const API_ERRORS: Record<number, ApiErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: IdempotencyConflictError,
  422: PaymentDeclinedError,
  429: RateLimitError,
};

/**
 * The PaymentApiError subclass that says what a non-2xx status means. A 400 or 422 with Prism's
 * `sl-violations` is a ValidationError (the mock answers an invalid request with the operation's 422
 * when it documents one), as the service answers it with 400.
 */
export function apiErrorFor(
  status: number,
  body: unknown,
  headers: Headers,
  context: PaymentErrorContext = {},
): PaymentApiError {
  const Class = refusedByMock(status, headers)
    ? ValidationError
    : (API_ERRORS[status] ?? (status >= 500 ? ServerError : PaymentApiError));
  return new Class(status, body, headers, context);
}

/**
 * No answer: the connection failed (DNS, refused, reset, TLS, …). `cause` is the fetch error;
 * `code` is the system error code found in its causes (`ECONNREFUSED`, `ENOTFOUND`, …).
 */
export class PaymentNetworkError extends PaymentError {
  override name = 'PaymentNetworkError';
  readonly code: string | undefined;

  constructor(message: string, context: PaymentErrorContext = {}) {
    const code = errorCodeOf(context.cause);
    // Without a code (fetch's own refusals: "bad port", …) the innermost cause says what happened.
    const detail = code ?? innermostMessage(context.cause);
    super(detail && !message.includes(detail) ? `${message} (${detail})` : message, context);
    this.code = code;
  }
}

function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  for (let e = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) message = e.message;
  return message;
}

/**
 * The first `code` along an error's causes: undici's fetch rejects with `TypeError('fetch failed')`
 * whose `cause` holds the system error, or an AggregateError of one per address tried.
 */
export function errorCodeOf(error: unknown, depth = 0): string | undefined {
  if (!isObject(error) && !(error instanceof Error)) return undefined;
  if (depth > 5) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = errorCodeOf(inner, depth + 1);
      if (found) return found;
    }
  return errorCodeOf(cause, depth + 1);
}

/** No answer within the call's `timeoutMs` (retries and back-off included). */
export class PaymentTimeoutError extends PaymentError {
  override name = 'PaymentTimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number, context: PaymentErrorContext = {}) {
    super(`${context.operationId ?? 'request'} timed out after ${timeoutMs} ms`, context);
    this.timeoutMs = timeoutMs;
  }
}

/** The client's credentials cannot satisfy the operation's security; nothing was sent. */
export class PaymentCredentialsError extends PaymentError {
  override name = 'PaymentCredentialsError';
}

/**
 * The violations of a request Prism refused as invalid: it answers those with 400, or the
 * operation's 422. (Its 401 for a wrong security scheme carries `sl-violations` too: not a validation.)
 */
function refusedByMock(status: number, headers: Headers): FieldErrors | undefined {
  return status === 400 || status === 422 ? violationsOf(headers) : undefined;
}

/**
 * Prism's `sl-violations` header (a JSON array of `{ location, message }`): the real violations of a
 * request the mock refused, whose body is the contract's canned example. Undefined without it.
 */
function violationsOf(headers: Headers): FieldErrors | undefined {
  const header = headers.get('sl-violations');
  if (!header) return undefined;
  let violations: unknown;
  try {
    violations = JSON.parse(header);
  } catch {
    return undefined;
  }
  if (!Array.isArray(violations) || violations.length === 0) return undefined;
  const out: FieldErrors = {};
  for (const violation of violations) {
    if (!isObject(violation) || typeof violation.message !== 'string') continue;
    const field = violationField(violation.location, violation.message);
    out[field] ??= [];
    out[field]!.push(violation.message);
  }
  return out;
}

/** `['request', 'body', 'amount', 'value']` → `amount.value`; a missing property names itself. */
function violationField(location: unknown, message: string): string {
  const path = Array.isArray(location) ? location.map(String) : [];
  if (path[0] === 'request') path.shift();
  if (path[0] === 'body') path.shift();
  else if (path[0] === 'query' || path[0] === 'path' || path[0] === 'header') path.shift();
  const missing = /required property '([^']+)'/.exec(message);
  if (missing) path.push(missing[1]!);
  return path.join('.');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProblem(body: Record<string, unknown>): boolean {
  return (
    typeof body.title === 'string' ||
    typeof body.type === 'string' ||
    typeof body.detail === 'string' ||
    isObject(body.errors)
  );
}

function fieldErrorsOf(body: Record<string, unknown> | undefined): FieldErrors {
  const out: FieldErrors = {};
  if (!body) return out;
  if (isObject(body.errors)) {
    for (const [field, messages] of Object.entries(body.errors)) {
      out[field] = Array.isArray(messages) ? messages.map(String) : [String(messages)];
    }
  }
  // The older refund description (2.0.0) answers 400 with one `{ field, error }`.
  const legacy = body as LegacyRefundValidationError;
  if (typeof legacy.field === 'string' && typeof legacy.error === 'string') {
    out[legacy.field] ??= [];
    out[legacy.field]!.push(legacy.error);
  }
  return out;
}

function describe(
  status: number,
  body: Record<string, unknown> | undefined,
  problem: ProblemDetails | undefined,
  fieldErrors: FieldErrors,
  operationId: string | undefined,
): string {
  const parts = [`${operationId ?? 'request'} failed with HTTP ${status}`];
  if (problem) {
    const text = [problem.title, problem.detail].filter(Boolean).join(': ');
    if (text) parts.push(text);
  } else if (body) {
    // Operation results and 5xx result codes carry responseDescription; the token endpoint, RFC 6749 errors.
    const result = body as ResultCode & Partial<TokenError>;
    const text = result.responseDescription ?? result.error_description ?? result.error;
    if (text) parts.push(String(text));
  }
  const fields = Object.entries(fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
  if (fields.length) parts.push(`(${fields.join('; ')})`);
  return parts.join(' — ');
}
