// A sandbox for tests, in this process on a free port of 127.0.0.1, with a `fetch` that holds every
// response to the contract: a response whose status, headers or body the contract does not declare
// for its operation fails the test that received it, at once, naming the violation. Tests (and the
// SDK, through `fetch`) call the sandbox only through it, so every response the suite receives is
// checked.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import { type Contract, createContract } from '../../sandbox/contract/contract.js';
import { ROOTS } from '../../sandbox/http/core.js';
import { readBundle } from '../../sandbox/platform/documents.js';
import { type MerchantCredentials, type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/server.js';
import { ISOLATED_ENV } from '../../tooling/process/sandbox-command.js';
import { checkResponse, matchOperation } from './contract-check.js';
import { Receiver } from './receiver.js';
import { registerWebhookSecrets } from './webhook-check.js';

let contract: Contract | undefined;
/** The contract of the committed bundle, loaded once per test file. */
export const sandboxContract = () => (contract ??= createContract(readBundle()));

export class ConformanceError extends Error {
  constructor(readonly violations: string[]) {
    super(`the sandbox sent a response the contract does not declare:\n  ${violations.join('\n  ')}`);
    this.name = 'ConformanceError';
  }
}

/** The operation a request to the sandbox addresses, or undefined (not an operation: a hosted page, a typo). */
export function operationOf(
  url: string,
  method: string,
): { operationId: OperationId; environment: string } | undefined {
  const path = new URL(url).pathname;
  const root = ROOTS.find((r) => path.startsWith(`${r.root}/`));
  if (!root) return undefined;
  const match = matchOperation(sandboxContract(), method, path.slice(root.root.length));
  return match ? { operationId: match.operation.id, environment: root.environment } : undefined;
}

/** Checks one response of an operation; throws ConformanceError on the first one that breaks the contract. */
export async function checkConformance(operationId: OperationId, response: Response): Promise<void> {
  const body = await response.clone().text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const violations = checkResponse(sandboxContract(), operationId, response.status, headers, body);
  if (violations.length > 0) throw new ConformanceError(violations);
}

/** `fetch`, with every response of a contract operation checked against the contract. */
export const conformingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  const operation = operationOf(request.url, request.method);
  if (operation && request.method !== 'OPTIONS') await checkConformance(operation.operationId, response);
  return response;
};

export interface TestSandbox {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The test root: `${url}/api/v2`. */
  baseUrl: string;
  liveBaseUrl: string;
  merchant: MerchantCredentials;
  other: MerchantCredentials;
  sandbox: Sandbox;
  /** Basic credentials of `merchant` (or of `other`). */
  basic(who?: MerchantCredentials): string;
  /** JSON request to the test root (or a full URL) through conformingFetch, as `who` (default `merchant`). */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  stop(): Promise<void>;
}

let sequence = 0;
/** A transId (or another id) no other test uses: `<prefix>-<time>-<n>`. */
export const transId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++sequence}`;

/** A DIRECT card payment with MANUAL capture, 25.00 USD: the body of a create with nothing else to it. */
export const cardPayment = (id: string, extra: Record<string, unknown> = {}) => ({
  transId: id,
  amount: { value: 2500, currency: 'USD' },
  captureMethod: { type: 'MANUAL' },
  paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  ...extra,
});

/** The merchant's return and cancel URLs, and `webhook` where its notifications go: a HOSTED payment's or a session's `urls`. */
export const merchantUrls = (webhook = 'https://shop.example/hook') => ({
  return: 'https://shop.example/return',
  cancel: 'https://shop.example/cancel',
  webhook,
});

/** A checkout session of 15.00 EUR with the merchant's URLs (merchantUrls): the body of a create with nothing else to it. */
export const checkoutSession = (id: string, extra: Record<string, unknown> = {}) => ({
  transId: id,
  amount: { value: 1500, currency: 'EUR' },
  urls: merchantUrls(),
  ...extra,
});

type CallOptions = {
  body?: unknown;
  headers?: Record<string, string>;
  who?: MerchantCredentials;
  root?: 'test' | 'live';
};
type CallResult = { status: number; body: any; headers: Headers };

/**
 * A JSON request to the sandbox at `origin` (its test root, the live root, or a full URL) with the
 * Authorization header given, through conformingFetch: a response the contract does not declare fails.
 */
export async function callSandbox(
  origin: string,
  authorization: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<CallResult> {
  const base = opts.root === 'live' ? `${origin}/live/api/v2` : `${origin}/api/v2`;
  const headers: Record<string, string> = { authorization, ...opts.headers };
  if (opts.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const body = opts.body === undefined || typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const response = await conformingFetch(path.startsWith('http') ? path : `${base}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Posts the hosted page's form at `href` as a browser would (a decision, a method); the answer, not followed. */
export const submitHostedForm = (href: string, form: Record<string, string>): Promise<Response> =>
  fetch(href, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });

/**
 * A HOSTED payment created through `call` and paid by card on its hosted page (the page answers 303):
 * its notification goes to `webhook`. Its payId.
 */
export async function payOnHostedPage(
  call: TestSandbox['call'],
  options: {
    webhook: string;
    transId?: string;
    amount?: { value: number; currency: string };
    who?: MerchantCredentials;
  },
): Promise<string> {
  const created = await call('POST', '/payments', {
    who: options.who,
    body: {
      transId: options.transId ?? transId('HOSTED'),
      amount: options.amount ?? { value: 700, currency: 'USD' },
      urls: merchantUrls(options.webhook),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const paid = await submitHostedForm(created.body._links.redirect.href, { method: 'CARD', decision: 'pay' });
  expect(paid.status).toBe(303);
  return created.body.payId as string;
}

/** A merchant with fresh credentials; its webhook secret is known to the tests' receivers (webhook-check.ts). */
export const newMerchant = (name: string): MerchantCredentials => {
  const merchant = {
    merchantId: `${name}_${randomBytes(3).toString('hex')}`,
    apiKey: `sk_test_${randomBytes(16).toString('hex')}`,
    webhookSecret: `whsec_${randomBytes(16).toString('hex')}`,
  };
  registerWebhookSecrets(merchant);
  return merchant;
};

/** Two merchants (`merchant`, `other`) on a fresh database (`:memory:` unless given). */
export async function startTestSandbox(
  options: {
    database?: string;
    webhooks?: SandboxOptions['webhooks'];
    merchants?: MerchantCredentials[];
    corsOrigins?: string[];
    /** Docs console mode: origins that may call every operation. */
    consoleOrigins?: string[];
    retention?: SandboxOptions['retention'];
    /** The request log (one line per request; none by default). */
    log?: (line: string) => void;
  } = {},
): Promise<TestSandbox> {
  const merchant = newMerchant('shop');
  const other = newMerchant('other');
  for (const m of [merchant, other, ...(options.merchants ?? [])]) registerWebhookSecrets(m);
  const sandbox = await startSandbox({
    port: 0,
    database: options.database ?? ':memory:',
    secret: ISOLATED_ENV.SANDBOX_SECRET,
    merchants: [merchant, other, ...(options.merchants ?? [])],
    contract: sandboxContract(),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.consoleOrigins ? { consoleOrigins: options.consoleOrigins } : {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const basic = (who: MerchantCredentials = merchant) =>
    `Basic ${Buffer.from(`${who.merchantId}:${who.apiKey}`).toString('base64')}`;
  return {
    url: sandbox.url,
    baseUrl: `${sandbox.url}/api/v2`,
    liveBaseUrl: `${sandbox.url}/live/api/v2`,
    merchant,
    other,
    sandbox,
    basic,
    call: (method, path, opts = {}) => callSandbox(sandbox.url, basic(opts.who), method, path, opts),
    stop: () => sandbox.close(),
  };
}

/**
 * For a suite on one store: a sandbox on `database()` starts before the suite's tests and stops
 * after them. Call inside the suite; the returned function gives the running sandbox.
 */
export function sandboxPerSuite(
  database: () => Promise<string>,
  options: Omit<Parameters<typeof startTestSandbox>[0] & object, 'database'> = {},
): () => TestSandbox {
  let sandbox: TestSandbox | undefined;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ ...options, database: await database() });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });
  return () => {
    if (!sandbox) throw new Error('the sandbox of this suite has not started');
    return sandbox;
  };
}

/**
 * For a suite on one store: a merchant's webhook endpoint (Receiver) that starts first, then a
 * sandbox on `database()` as sandboxPerSuite starts it; the endpoint stops after the sandbox.
 */
export function sandboxWithReceiverPerSuite(
  database: () => Promise<string>,
  options: Parameters<typeof sandboxPerSuite>[1] = {},
): { sandbox: () => TestSandbox; receiver: Receiver } {
  const receiver = new Receiver();
  // Registered before the sandbox's: after hooks run in reverse order, so this one runs last.
  afterAll(async () => {
    if (receiver.url) await receiver.stop();
  });
  const sandbox = sandboxPerSuite(async () => {
    await receiver.start();
    return database();
  }, options);
  return { sandbox, receiver };
}

/** Gives a merchant of `t` (its own by default) the contract's examples, through the admin API. */
export async function seedExamples(
  t: Pick<TestSandbox, 'url' | 'sandbox' | 'merchant'>,
  merchantId = t.merchant.merchantId,
): Promise<void> {
  const response = await fetch(`${t.url}/_sandbox/merchants/${encodeURIComponent(merchantId)}/examples`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.sandbox.adminKey}` },
  });
  if (response.status !== 201) throw new Error(`seeding ${merchantId}: ${response.status} ${await response.text()}`);
}

/** An Authorization header value with a bearer token of `t`'s merchant (client credentials, Basic). */
export async function bearerOf(t: Pick<TestSandbox, 'call'>): Promise<string> {
  const token = await t.call('POST', '/authorization/oauth/token', {
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (token.status !== 200) throw new Error(`no bearer token: ${token.status} ${JSON.stringify(token.body)}`);
  return `Bearer ${token.body.access_token}`;
}
