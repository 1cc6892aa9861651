// One call of an operation and its attempts: the URL and body from the resource method's positional
// arguments, the credentials (a bearer token obtained or refreshed), retries with back-off, the
// call's deadline and the caller's AbortSignal, and the answer as a typed body or a PaymentError.
import { createQuerySerializer } from 'openapi-fetch';
import type { AccessTokens } from './auth.js';
import { DeadlineSweeper } from './deadlines.js';
import {
  apiErrorFor,
  PaymentCredentialsError,
  PaymentError,
  type PaymentErrorContext,
  PaymentNetworkError,
  PaymentTimeoutError,
} from './errors.js';
import type { OperationPlan } from './plan.js';
import { attachResponse, responseMetadata } from './response.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep, untilAborted } from './retry.js';
import type { IdempotentCallOptions } from './types.js';

/** The query string exactly as `raw` (openapi-fetch's default serializer) would write it. */
const serializeQuery = createQuerySerializer();

/** The client's settings a call runs with (PaymentClientSettings, defaults applied). */
export interface CallSettings {
  readonly timeoutMs: number;
  readonly abortOnTimeout: boolean;
  readonly maxAttempts: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
}

/** One call in progress (all its attempts). */
interface Call {
  readonly plan: OperationPlan;
  readonly url: string;
  readonly body: string | undefined;
  /** Idempotency-Key and the caller's headers, sent on every attempt. */
  readonly extraHeaders: Record<string, string> | undefined;
  readonly idempotencyKey: string | undefined;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  /** performance.now() (monotonic, unlike Date.now()) after which the call times out; Infinity for none. */
  readonly deadline: number;
  /** Handed to fetch: the caller's signal, or the controller's (abortOnTimeout). */
  readonly signal: AbortSignal | undefined;
  readonly controller: AbortController | undefined;
  readonly callerSignal: AbortSignal | undefined;
  forwardAbort?: () => void;
  attempts: number;
  /** The deadline has passed: the caller already has its PaymentTimeoutError, stop at the next step. */
  expired: boolean;
  settled: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

function errorContext(call: Call, cause?: unknown): PaymentErrorContext {
  return {
    operationId: call.plan.info.operationId,
    idempotencyKey: call.idempotencyKey,
    attempts: call.attempts,
    cause,
  };
}

/** A success body: JSON, as every success response of the contract is. */
function parseSuccessBody(text: string, status: number, call: Call): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new PaymentError(
      `${call.plan.info.operationId}: the ${status} response is not JSON`,
      errorContext(call, cause),
    );
  }
}

/** The body of a non-2xx answer: JSON when it parses, else the text (undefined when empty). */
async function readErrorBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The URL of a call: the template's placeholders from the positional arguments, then the query. */
function urlOf(plan: OperationPlan, args: readonly unknown[], query: unknown): string {
  let url = plan.urlLiterals[0]!;
  for (let i = 0; i < plan.urlArgIndexes.length; i++)
    url += encodeURIComponent(String(args[plan.urlArgIndexes[i]!])) + plan.urlLiterals[i + 1];
  if (query !== undefined) {
    const search = serializeQuery(query as Record<string, unknown>);
    if (search) url += `?${search}`;
  }
  return url;
}

/** The calls of one client: each call's attempts, and the deadlines of those in flight. */
export class CallRunner {
  readonly #deadlines = new DeadlineSweeper<Call>((call) => {
    // The caller gets its error now; what is still running stops at its next step (expired).
    call.expired = true;
    this.#fail(call, new PaymentTimeoutError(call.timeoutMs, errorContext(call)));
    call.controller?.abort();
  });

  constructor(
    private readonly settings: CallSettings,
    private readonly fetchImpl: typeof globalThis.fetch,
    private readonly baseUrl: string,
    private readonly tokens: AccessTokens,
  ) {}

  /** One call of an operation, from the positional arguments of its resource method. */
  execute(plan: OperationPlan, args: readonly unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Whatever goes wrong (an unserializable body or query, …) rejects: a method never throws synchronously.
      try {
        this.#start(plan, args, resolve, reject);
      } catch (error) {
        reject(error);
      }
    });
  }

  #start(
    plan: OperationPlan,
    args: readonly unknown[],
    resolve: (value: unknown) => void,
    reject: (error: unknown) => void,
  ): void {
    const { info } = plan;
    let index = info.pathParams.length;
    const body = plan.hasBody ? args[index++] : undefined;
    const query = plan.hasQuery ? args[index++] : undefined;
    const callOptions = args[index] as IdempotentCallOptions | undefined;
    const idempotencyKey = info.idempotencyKey ? (callOptions?.idempotencyKey ?? crypto.randomUUID()) : undefined;
    if (plan.credentialsProblem) {
      reject(new PaymentCredentialsError(plan.credentialsProblem, { operationId: info.operationId, idempotencyKey }));
      return;
    }
    const callerSignal = callOptions?.signal;
    if (callerSignal?.aborted) {
      reject(callerSignal.reason);
      return;
    }

    const url = urlOf(plan, args, query);
    let extraHeaders = callOptions?.headers;
    if (idempotencyKey !== undefined) extraHeaders = { 'Idempotency-Key': idempotencyKey, ...extraHeaders };

    const timeoutMs = callOptions?.timeoutMs ?? this.settings.timeoutMs;
    const hasDeadline = timeoutMs > 0 && timeoutMs < Infinity;
    // A timed-out request is aborted, so its socket is freed (an AbortSignal has a cost in Node's
    // fetch, docs/benchmarks.md; `abortOnTimeout: false` trades it for a request left to finish).
    const controller = hasDeadline && this.settings.abortOnTimeout ? new AbortController() : undefined;
    const call: Call = {
      plan,
      url,
      body:
        body === undefined
          ? undefined
          : plan.formBody
            ? new URLSearchParams(body as Record<string, string>).toString()
            : JSON.stringify(body),
      extraHeaders,
      idempotencyKey,
      maxAttempts: callOptions?.maxAttempts ?? this.settings.maxAttempts,
      timeoutMs,
      deadline: hasDeadline ? performance.now() + timeoutMs : Infinity,
      signal: controller ? controller.signal : callerSignal,
      controller,
      callerSignal,
      attempts: 0,
      expired: false,
      settled: false,
      resolve,
      reject,
    };
    if (controller && callerSignal)
      callerSignal.addEventListener('abort', this.#forwardCallerAbort(call), { once: true });
    if (hasDeadline) this.#deadlines.watch(call);
    void this.#attemptAll(call);
  }

  /** The attempts of a call: retries, back-off, one token refresh on 401. Settles the call, never rejects. */
  async #attemptAll(call: Call): Promise<void> {
    const { plan, signal } = call;
    const { tokens } = this;
    let tokenRefreshed = false;
    try {
      for (;;) {
        let headers: Record<string, string> = plan.headers;
        let token: string | undefined;
        if (plan.bearer || call.extraHeaders) {
          headers = { ...plan.headers };
          if (plan.bearer) {
            token = tokens.current() ?? (await (signal ? untilAborted(tokens.obtain(), signal) : tokens.obtain()));
            headers.Authorization = `Bearer ${token}`;
          }
          if (call.extraHeaders) Object.assign(headers, call.extraHeaders);
        }
        if (call.expired) return;
        call.attempts++;
        let response: Response;
        try {
          response = await this.fetchImpl(call.url, { method: plan.method, headers, body: call.body, signal });
        } catch (cause) {
          if (signal?.aborted) throw cause;
          const error = new PaymentNetworkError(
            `${plan.info.operationId}: no response from ${this.baseUrl}: ${(cause as Error)?.message ?? cause}`,
            errorContext(call, cause),
          );
          if (await this.#retryAllowed(call)) continue;
          throw error;
        }
        if (response.ok) {
          const text = response.status === 204 || plan.method === 'HEAD' ? '' : await response.text();
          const body = text ? parseSuccessBody(text, response.status, call) : undefined;
          attachResponse(body, responseMetadata(response, body, call.idempotencyKey, call.attempts));
          return this.#settle(call, body);
        }
        // A rejected token (revoked, expired early): one new token and one more try, for any method:
        // a 401 means that the request was not processed.
        if (response.status === 401 && token !== undefined && !tokenRefreshed) {
          await response.body?.cancel();
          tokenRefreshed = true;
          call.attempts--;
          tokens.invalidate(token);
          continue;
        }
        const error = apiErrorFor(response.status, await readErrorBody(response), response.headers, errorContext(call));
        if (await this.#retryAllowed(call, response)) continue;
        throw error;
      }
    } catch (error) {
      this.#fail(call, error);
    }
  }

  /** Resolves the caller's promise (first settlement wins: the deadline may have come first). */
  #settle(call: Call, value: unknown): void {
    if (this.#finish(call)) call.resolve(value);
  }

  #fail(call: Call, error: unknown): void {
    if (this.#finish(call)) call.reject(error);
  }

  #finish(call: Call): boolean {
    if (call.settled) return false;
    call.settled = true;
    if (call.deadline !== Infinity) this.#deadlines.forget(call);
    if (call.forwardAbort) call.callerSignal!.removeEventListener('abort', call.forwardAbort);
    return true;
  }

  #forwardCallerAbort(call: Call): () => void {
    call.forwardAbort = () => call.controller!.abort(call.callerSignal!.reason);
    return call.forwardAbort;
  }

  /** After a failed attempt: true when another is allowed and its back-off has passed. */
  async #retryAllowed(call: Call, response?: Response): Promise<boolean> {
    if (!call.plan.retrySafe || call.attempts >= call.maxAttempts || call.expired) return false;
    if (response && !isRetryableStatus(response.status)) return false;
    const delay =
      parseRetryAfter(response?.headers.get('Retry-After') ?? null) ??
      backoffDelay(call.attempts, this.settings.retryBaseDelayMs, this.settings.retryMaxDelayMs);
    // A wait past the deadline could only end in a timeout: the error at hand says more.
    if (performance.now() + delay >= call.deadline) return false;
    await sleep(delay, call.signal);
    return !call.expired;
  }
}
