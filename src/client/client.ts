// createPaymentClient: an openapi-fetch client typed by `paths` (`client.raw`), plus resource
// methods built at run time from the generated operations table (`client.payments.capture(…)`).
// Each operation gets a plan (plan.ts) once per client; calls run through calls.ts.
import type { Client } from 'openapi-fetch';
import { type OperationInfo, operations, servers } from '../../generated/operations.js';
import type { Resources } from '../../generated/resources.js';
import type { paths, TokenResponse } from '../../generated/types.js';
import { type AuthMode, basicAuthorization, createAccessTokens } from './auth.js';
import { CallRunner } from './calls.js';
import { PaymentCredentialsError, PaymentError } from './errors.js';
import { walkPages } from './pages.js';
import { type OperationPlan, type PlanCredentials, planOf } from './plan.js';
import { rawClient } from './raw.js';
import type { Environment } from './types.js';

export interface PaymentClientSettings {
  /** Which of the contract's servers to call (default `test`). */
  environment?: Environment;
  /** Overrides the environment's URL: a mock, a local sandbox, a proxy. */
  baseUrl?: string;
  /**
   * Default: `globalThis.fetch` as it is at each call (so a mock installed after the client was made,
   * such as MSW's, is used). Resource methods call `fetch(url, init)`, `raw` calls `fetch(request)`.
   */
  fetch?: typeof globalThis.fetch;
  /** Deadline of a call, retries and back-off included (default 30 000 ms; 0 for none). Checked every 25 ms. */
  timeoutMs?: number;
  /**
   * Abort the HTTP request when the deadline passes, freeing its connection (default true). With
   * false the call still rejects with PaymentTimeoutError at the deadline, but the request is left
   * to finish and its answer discarded: that saves the AbortSignal per call (noticeable only
   * against a local server). A `signal` passed to a call always aborts.
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
const RESERVED = new Set(['raw', 'baseUrl']);

export function createPaymentClient(options: PaymentClientOptions): PaymentClient {
  const settings = { ...DEFAULTS, ...withoutUndefined(options) };
  // Without a `fetch` of its own, the client looks `globalThis.fetch` up at each call: what a test
  // installs after the client was made (MSW, a stub) is what the next call goes through.
  const fetchImpl: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const baseUrl = baseUrlOf(options);
  if (!(settings.maxAttempts >= 1)) throw new PaymentError('maxAttempts must be at least 1');
  const mode = authModeOf(options);
  const credentials: PlanCredentials = {
    mode,
    basic: mode === 'apiKey' ? undefined : basicAuthorization(options.merchantId!, options.apiKey),
    apiKey: options.apiKey,
  };

  const tokenPlan = planOf(TOKEN_OPERATION, true, baseUrl, credentials);
  const tokens = createAccessTokens(async () => {
    const grant = (await calls.execute(tokenPlan, [{ grant_type: 'client_credentials' }])) as TokenResponse | undefined;
    if (typeof grant?.access_token !== 'string')
      throw new PaymentError('the token endpoint answered without an access_token', {
        operationId: TOKEN_OPERATION.operationId,
        attempts: 1,
      });
    return grant;
  }, settings.tokenRefreshSkewMs);
  const calls = new CallRunner(settings, fetchImpl, baseUrl, tokens);
  const execute = (plan: OperationPlan, args: readonly unknown[]) => calls.execute(plan, args);

  const plansByRoute = new Map<string, OperationPlan>();
  // The raw openapi-fetch client: full control, the same credentials, no retries or timeouts.
  const client: Record<string, unknown> = { raw: rawClient(baseUrl, fetchImpl, plansByRoute, tokens), baseUrl };
  for (const info of Object.values(operations) as OperationInfo[]) {
    const [resourceName, methodName] = info.sdkMethod.split('.') as [string, string];
    if (RESERVED.has(resourceName))
      throw new PaymentError(`x-sdk-method ${info.sdkMethod} clashes with client.${resourceName}`);
    const plan = planOf(info, info === TOKEN_OPERATION, baseUrl, credentials);
    plansByRoute.set(`${plan.method} ${info.path}`, plan);
    client[resourceName] ??= {};
    const resource = client[resourceName] as Record<string, unknown>;
    resource[methodName] = (...args: unknown[]) => execute(plan, args);
    if (info.pagination) resource[listAllName(methodName)] = (...args: unknown[]) => walkPages(execute, plan, args);
  }
  return client as unknown as PaymentClient;
}

/** `list` → `listAll`, `listPayments` → `listAllPayments`; the type ListAllName says the same. */
export function listAllName(method: string): string {
  return method.startsWith('list') ? `listAll${method.slice(4)}` : `${method}All`;
}

/** The `baseUrl` given, else the URL of the contract's server for `environment` (default test). */
function baseUrlOf(options: Pick<PaymentClientOptions, 'environment' | 'baseUrl'>): string {
  const environment = options.environment ?? 'test';
  const server = servers.find((s) => s.environment === environment);
  if (!server && options.baseUrl === undefined)
    throw new PaymentError(
      `unknown environment ${JSON.stringify(environment)}; the contract has ${servers.map((s) => s.environment).join(', ')}`,
    );
  return (options.baseUrl ?? server!.url).replace(/\/+$/, '');
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

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
