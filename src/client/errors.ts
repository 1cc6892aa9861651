// What a failed call rejects with. One base class, so that `catch (e) { if (e instanceof
// PaymentError) … }` catches everything the client itself raises; the kinds below tell apart an
// answer of the API (PaymentApiError), no answer (PaymentNetworkError, PaymentTimeoutError) and
// credentials that cannot work for the operation (PaymentCredentialsError, raised before sending).
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

/** The API answered with a non-2xx status. */
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
    const fieldErrors = fieldErrorsOf(object);
    const operationResult = status === 422 && object && !problem ? (object as DeclinedOperationResult) : undefined;
    super(describe(status, object, problem, fieldErrors, context.operationId), context);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.problem = problem;
    this.fieldErrors = fieldErrors;
    this.operationResult = operationResult;
    this.traceId = typeof problem?.traceId === 'string' ? problem.traceId : undefined;
  }
}

/** No answer: the connection failed (DNS, refused, reset, TLS, …). `cause` is the fetch error. */
export class PaymentNetworkError extends PaymentError {
  override name = 'PaymentNetworkError';
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
