// createPaymentClient: an openapi-fetch client typed by `paths` (`client.raw`), plus resource
// methods built at run time from the generated operations table (`client.payments.capture(…)`).
import createClient, { type Client, createQuerySerializer, type Middleware } from 'openapi-fetch';
import { type OperationInfo, operations, servers } from '../../generated/operations.js';
import type { Resources } from '../../generated/resources.js';
import type { paths, TokenResponse } from '../../generated/types.js';
import {
  API_KEY,
  API_KEY_HEADER,
  type AuthMode,
  BASIC,
  BEARER,
  basicAuthorization,
  chooseRequirement,
  createAccessTokens,
} from './auth.js';
import {
  apiErrorFor,
  PaymentCredentialsError,
  PaymentError,
  type PaymentErrorContext,
  PaymentNetworkError,
  PaymentTimeoutError,
} from './errors.js';
import { attachResponse, responseMetadata } from './response.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep, untilAborted } from './retry.js';
import type { Environment, IdempotentCallOptions } from './types.js';

export interface PaymentClientSettings {
  /** Which of the contract's servers to call (default `test`). */
  environment?: Environment;
  /** Overrides the environment's URL: a mock, a local sandbox, a proxy. */
  baseUrl?: string;
  /** Default `globalThis.fetch`. Resource methods call `fetch(url, init)`, `raw` calls `fetch(request)`. */
  fetch?: typeof globalThis.fetch;
  /** Deadline of a call, retries and back-off included (default 30 000 ms; 0 for none). Checked every 25 ms. */
  timeoutMs?: number;
  /**
   * Abort the HTTP request when the deadline passes, freeing its connection (default true). With
   * false the call still rejects with PaymentTimeoutError at the deadline, but the request is left
   * to finish and its answer discarded: that saves the AbortSignal per call (about 10 µs in Node
   * 20's fetch, noticeable only against a local server). A `signal` passed to a call always aborts.
   */
  abortOnTimeout?: boolean;
  /** Attempts at most per call, the first included (default 3). Only GETs and calls with an Idempotency-Key are retried. */
  maxAttempts?: number;
  /** Back-off: full jitter over base · 2^(attempt-1), capped (defaults 300 ms and 5 000 ms). */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** OAuth: refresh the access token this long before it expires (default 30 000 ms). */
  tokenRefreshSkewMs?: number;
}

export type PaymentCredentials =
  /** HTTP Basic (default) or, with `auth: 'oauth'`, a bearer token obtained with them. */
  | { merchantId: string; apiKey: string; auth?: 'basic' | 'oauth' }
  /** The API key alone: the X-API-Key header, accepted by payment plan operations only. */
  | { merchantId?: undefined; apiKey: string; auth?: undefined };

export type PaymentClientOptions = PaymentClientSettings & PaymentCredentials;

export type PaymentClient = Resources & {
  /** The openapi-fetch client (typed by `paths`) with the same base URL, fetch and credentials; no retries. */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
};

const DEFAULTS = {
  timeoutMs: 30_000,
  abortOnTimeout: true,
  maxAttempts: 3,
  retryBaseDelayMs: 300,
  retryMaxDelayMs: 5_000,
  tokenRefreshSkewMs: 30_000,
};
const TOKEN_OPERATION: OperationInfo = operations.createAccessToken;
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
const RESERVED = new Set(['raw', 'baseUrl']);
/** How late a timeout may fire: the period of the deadline sweep. */
const DEADLINE_SWEEP_MS = 25;
/** The query string exactly as `raw` (openapi-fetch's default serializer) would write it. */
const serializeQuery = createQuerySerializer();

/** What every call of one operation shares, worked out once per client. */
interface OperationPlan {
  readonly info: OperationInfo;
  readonly method: string;
  /** The URL template split at its path parameters: literal, param, literal, … */
  readonly urlLiterals: readonly string[];
  /** For each placeholder of the template, the index of its positional argument. */
  readonly urlArgIndexes: readonly number[];
  readonly hasBody: boolean;
  readonly formBody: boolean;
  readonly hasQuery: boolean;
  /** GETs and calls with an Idempotency-Key may be sent again; other writes never. */
  readonly retrySafe: boolean;
  /** Content-Type and the Basic or X-API-Key credentials: the same on every call, shared. */
  readonly headers: Record<string, string>;
  readonly bearer: boolean;
  /** Why the credentials cannot call this operation, when they cannot. */
  readonly credentialsProblem: string | undefined;
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

export function createPaymentClient(options: PaymentClientOptions): PaymentClient {
  const settings = { ...DEFAULTS, ...withoutUndefined(options) };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const environment = options.environment ?? 'test';
  const server = servers.find((s) => s.environment === environment);
  if (!server && options.baseUrl === undefined)
    throw new PaymentError(
      `unknown environment ${JSON.stringify(environment)}; the contract has ${servers.map((s) => s.environment).join(', ')}`,
    );
  const baseUrl = (options.baseUrl ?? server!.url).replace(/\/+$/, '');
  if (!(settings.maxAttempts >= 1)) throw new PaymentError('maxAttempts must be at least 1');

  const mode = authModeOf(options);
  const basic = mode === 'apiKey' ? undefined : basicAuthorization(options.merchantId!, options.apiKey);

  function planOf(info: OperationInfo): OperationPlan {
    const tokenEndpoint = info === TOKEN_OPERATION;
    const requirement = chooseRequirement(info.security, mode, tokenEndpoint);
    const headers: Record<string, string> = {};
    if (info.requestBody) headers['Content-Type'] = info.requestBody.mediaType;
    if (requirement?.includes(BASIC)) headers.Authorization = basic!;
    if (requirement?.includes(API_KEY)) headers[API_KEY_HEADER] = options.apiKey;
    // '/customers/{customerId}/paymentMethods/{paymentMethodId}' → literals and placeholders, alternating.
    const parts = info.path.split(/\{([^}]+)\}/);
    return {
      info,
      method: info.method.toUpperCase(),
      urlLiterals: parts.filter((_, i) => i % 2 === 0).map((literal, i) => (i === 0 ? baseUrl + literal : literal)),
      urlArgIndexes: parts.filter((_, i) => i % 2 === 1).map((name) => info.pathParams.indexOf(name)),
      hasBody: info.requestBody !== null,
      formBody: info.requestBody?.mediaType === FORM_MEDIA_TYPE,
      hasQuery: info.queryParams.length > 0,
      retrySafe: info.method === 'get' || info.method === 'head' || info.idempotencyKey || tokenEndpoint,
      headers: Object.freeze(headers),
      bearer: requirement?.includes(BEARER) ?? false,
      credentialsProblem: requirement ? undefined : credentialsProblem(info, mode),
    };
  }

  const tokenPlan = planOf(TOKEN_OPERATION);
  const tokens = createAccessTokens(async () => {
    const grant = (await execute(tokenPlan, [{ grant_type: 'client_credentials' }])) as TokenResponse | undefined;
    if (typeof grant?.access_token !== 'string')
      throw new PaymentError('the token endpoint answered without an access_token', {
        operationId: TOKEN_OPERATION.operationId,
        attempts: 1,
      });
    return grant;
  }, settings.tokenRefreshSkewMs);

  /** One call of an operation, from the positional arguments of its resource method. */
  function execute(plan: OperationPlan, args: readonly unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Whatever goes wrong (an unserializable body or query, …) rejects: a method never throws synchronously.
      try {
        startCall(plan, args, resolve, reject);
      } catch (error) {
        reject(error);
      }
    });
  }

  function startCall(
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

    let url = plan.urlLiterals[0]!;
    for (let i = 0; i < plan.urlArgIndexes.length; i++)
      url += encodeURIComponent(String(args[plan.urlArgIndexes[i]!])) + plan.urlLiterals[i + 1];
    if (query !== undefined) {
      const search = serializeQuery(query as Record<string, unknown>);
      if (search) url += `?${search}`;
    }
    let extraHeaders = callOptions?.headers;
    if (idempotencyKey !== undefined) extraHeaders = { 'Idempotency-Key': idempotencyKey, ...extraHeaders };

    const timeoutMs = callOptions?.timeoutMs ?? settings.timeoutMs;
    const hasDeadline = timeoutMs > 0 && timeoutMs < Infinity;
    // A timed-out request is aborted, so its socket is freed (an AbortSignal costs Node's fetch
    // ~10 µs per request; `abortOnTimeout: false` trades that for a request left to finish).
    const controller = hasDeadline && settings.abortOnTimeout ? new AbortController() : undefined;
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
      maxAttempts: callOptions?.maxAttempts ?? settings.maxAttempts,
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
    if (controller && callerSignal) callerSignal.addEventListener('abort', forwardCallerAbort(call), { once: true });
    if (hasDeadline) watchDeadline(call);
    void attemptAll(call);
  }

  /** The attempts of a call: retries, back-off, one token refresh on 401. Settles the call, never rejects. */
  async function attemptAll(call: Call): Promise<void> {
    const { plan, signal } = call;
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
          response = await fetchImpl(call.url, { method: plan.method, headers, body: call.body, signal });
        } catch (cause) {
          if (signal?.aborted) throw cause;
          const error = new PaymentNetworkError(
            `${plan.info.operationId}: no response from ${baseUrl}: ${(cause as Error)?.message ?? cause}`,
            errorContext(call, cause),
          );
          if (await retryAllowed(call)) continue;
          throw error;
        }
        if (response.ok) {
          const text = response.status === 204 || plan.method === 'HEAD' ? '' : await response.text();
          const body = text ? parseSuccessBody(text, response.status, call) : undefined;
          attachResponse(body, responseMetadata(response, body, call.idempotencyKey, call.attempts));
          return settle(call, body);
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
        if (await retryAllowed(call, response)) continue;
        throw error;
      }
    } catch (error) {
      fail(call, error);
    }
  }

  /** Resolves the caller's promise (first settlement wins: the deadline may have come first). */
  function settle(call: Call, value: unknown): void {
    if (finish(call)) call.resolve(value);
  }
  function fail(call: Call, error: unknown): void {
    if (finish(call)) call.reject(error);
  }
  function finish(call: Call): boolean {
    if (call.settled) return false;
    call.settled = true;
    if (call.deadline !== Infinity) callsWithDeadline.delete(call);
    if (call.forwardAbort) call.callerSignal!.removeEventListener('abort', call.forwardAbort);
    return true;
  }

  function forwardCallerAbort(call: Call): () => void {
    call.forwardAbort = () => call.controller!.abort(call.callerSignal!.reason);
    return call.forwardAbort;
  }

  /** After a failed attempt: true when another is allowed and its back-off has passed. */
  async function retryAllowed(call: Call, response?: Response): Promise<boolean> {
    if (!call.plan.retrySafe || call.attempts >= call.maxAttempts || call.expired) return false;
    if (response && !isRetryableStatus(response.status)) return false;
    const delay =
      parseRetryAfter(response?.headers.get('Retry-After') ?? null) ??
      backoffDelay(call.attempts, settings.retryBaseDelayMs, settings.retryMaxDelayMs);
    // A wait past the deadline could only end in a timeout: the error at hand says more.
    if (performance.now() + delay >= call.deadline) return false;
    await sleep(delay, call.signal);
    return !call.expired;
  }

  // Deadlines: one sweep over the calls in flight every DEADLINE_SWEEP_MS instead of a timer per
  // call; setting and clearing a timer on every call cost 2–4 % of a local call in Node.
  const callsWithDeadline = new Set<Call>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  function watchDeadline(call: Call): void {
    callsWithDeadline.add(call);
    if (sweeper !== undefined) return;
    sweeper = setInterval(sweepDeadlines, DEADLINE_SWEEP_MS);
    // Node: the sweeper alone must not keep a process alive (a request in flight does). Browsers have no unref.
    (sweeper as { unref?: () => void }).unref?.();
  }
  function sweepDeadlines(): void {
    if (callsWithDeadline.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
      return;
    }
    const now = performance.now();
    for (const call of callsWithDeadline) {
      if (now < call.deadline) continue;
      // The caller gets its error now; what is still running stops at its next step (expired).
      call.expired = true;
      fail(call, new PaymentTimeoutError(call.timeoutMs, errorContext(call)));
      call.controller?.abort();
    }
  }

  async function* walkPages(plan: OperationPlan, args: readonly unknown[]): AsyncGenerator<unknown, void, undefined> {
    const { pageParam, itemsField, totalPagesField } = plan.info.pagination!;
    const pathCount = plan.info.pathParams.length;
    const [filter, callOptions] = args.slice(pathCount) as [Record<string, unknown> | undefined, unknown];
    for (let page = 1; ; page++) {
      const result = (await execute(plan, [
        ...args.slice(0, pathCount),
        { ...filter, [pageParam]: page },
        callOptions,
      ])) as Record<string, unknown> | undefined;
      const items = result?.[itemsField];
      if (!Array.isArray(items) || items.length === 0) return;
      yield* items;
      const totalPages = result![totalPagesField];
      // Without a page count, walk on until an empty page.
      if (typeof totalPages === 'number' && page >= totalPages) return;
    }
  }

  // The raw openapi-fetch client: full control, the same credentials, no retries or timeouts.
  const raw = createClient<paths>({ baseUrl, fetch: (request) => fetchImpl(request) });
  const plansByRoute = new Map<string, OperationPlan>();
  const rawAuth: Middleware = {
    async onRequest({ request, schemaPath }) {
      const plan = plansByRoute.get(`${request.method} ${schemaPath}`);
      if (!plan || request.headers.has('Authorization') || request.headers.has(API_KEY_HEADER)) return undefined;
      if (plan.credentialsProblem)
        throw new PaymentCredentialsError(plan.credentialsProblem, { operationId: plan.info.operationId });
      if (plan.headers.Authorization) request.headers.set('Authorization', plan.headers.Authorization);
      if (plan.headers[API_KEY_HEADER]) request.headers.set(API_KEY_HEADER, plan.headers[API_KEY_HEADER]);
      if (plan.bearer) request.headers.set('Authorization', `Bearer ${tokens.current() ?? (await tokens.obtain())}`);
      return request;
    },
  };
  raw.use(rawAuth);

  const client: Record<string, unknown> = { raw, baseUrl };
  for (const info of Object.values(operations) as OperationInfo[]) {
    const [resourceName, methodName] = info.sdkMethod.split('.') as [string, string];
    if (RESERVED.has(resourceName))
      throw new PaymentError(`x-sdk-method ${info.sdkMethod} clashes with client.${resourceName}`);
    const plan = planOf(info);
    plansByRoute.set(`${plan.method} ${info.path}`, plan);
    client[resourceName] ??= {};
    const resource = client[resourceName] as Record<string, unknown>;
    resource[methodName] = (...args: unknown[]) => execute(plan, args);
    if (info.pagination) resource[listAllName(methodName)] = (...args: unknown[]) => walkPages(plan, args);
  }
  return client as unknown as PaymentClient;
}

/** `list` → `listAll`, `listPayments` → `listAllPayments`; the type ListAllName says the same. */
export function listAllName(method: string): string {
  return method.startsWith('list') ? `listAll${method.slice(4)}` : `${method}All`;
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

function authModeOf(options: PaymentClientOptions): AuthMode {
  const { merchantId, apiKey, auth } = options;
  if (typeof apiKey !== 'string' || apiKey === '')
    throw new PaymentCredentialsError('createPaymentClient needs credentials: { merchantId, apiKey } or { apiKey }');
  if (merchantId !== undefined && merchantId !== '') return auth === 'oauth' ? 'oauth' : 'basic';
  if (auth === 'oauth')
    throw new PaymentCredentialsError(
      "auth: 'oauth' needs merchantId and apiKey: the token endpoint authenticates with HTTP Basic",
    );
  return 'apiKey';
}

function credentialsProblem(info: OperationInfo, mode: AuthMode): string {
  const accepted = info.security.map((requirement) => requirement.join(' + ')).join(' or ');
  const have = mode === 'apiKey' ? 'an API key alone (X-API-Key)' : 'merchantId and apiKey';
  const hint = mode === 'apiKey' ? '; create the client with { merchantId, apiKey }' : '';
  return `${info.sdkMethod} (${info.operationId}) accepts ${accepted}; this client has ${have}${hint}. Nothing was sent.`;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
