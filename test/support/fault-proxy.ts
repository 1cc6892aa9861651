// A proxy in front of a sandbox that plants one bug at a time, so that a test can show the contract
// verifier (`payment-verify`) catches it. Without a fault it forwards every request and answer as
// they are. It also relays webhooks: a request body's `urls.webhook` is pointed at the proxy's
// `/__relay/<original, URI-encoded>`, which forwards the sandbox's notifications to the original URL,
// so that the webhook faults can change a notification on its way.
//
//   const proxy = await startFaultProxy({ upstream: sandbox.url, webhookSecrets, merchants });
//   proxy.setFault('wrong-status');   // createPayment now answers 200
//   … verify against `${proxy.url}/api/v2` …
//   await proxy.stop();
//
// Bodies are buffered whole: the proxy is for tests, whose requests and answers are small.
import { randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { HOP_BY_HOP } from '../../mock/front.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhooks/index.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';

export type FaultName =
  | 'drop-required-field'
  | 'wrong-status'
  | 'missing-required-header'
  | 'wrong-content-type'
  | 'server-error-on-bad-input'
  | 'idempotency-key-ignored'
  | 'replay-without-marker'
  | 'cross-merchant-read'
  | 'capture-above-authorized'
  | 'read-changed'
  | 'webhook-signed-over-other-bytes'
  | 'webhook-outside-schema'
  | '401-without-challenge'
  | 'token-cacheable'
  | 'test-token-on-live'
  | 'refund-above-captured'
  | 'not-found-as-400'
  | 'credentials-not-required'
  | 'webhook-unsigned';

/** Each fault: what a client sees, and the checks of `payment-verify` that must catch it. */
export const FAULTS: Record<FaultName, { description: string; caughtBy: string[] }> = {
  'drop-required-field': {
    description:
      'The required `xId` is removed from the 2xx JSON bodies of createPayment, getPaymentByPayId and ' +
      'getPaymentByTransId (`payId` stays, so that the flows that follow still find the payment).',
    caughtBy: ['response-schema'],
  },
  'wrong-status': {
    description: "createPayment's 201 is answered as 200, which the operation does not declare.",
    caughtBy: ['status-declared'],
  },
  'missing-required-header': {
    description:
      "`Pragma` (required, `no-cache`) is removed from createAccessToken's 200; `Cache-Control: no-store` stays.",
    caughtBy: ['required-headers', 'auth'],
  },
  'wrong-content-type': {
    description: 'Every JSON answer of the API (`application/json`, `…+json`) is sent as `text/plain; charset=utf-8`.',
    caughtBy: ['content-type'],
  },
  'server-error-on-bad-input': {
    description:
      "Every 400 of the API becomes a 500 with the operation's declared 500 body (`ResultCode`, or the plan " +
      "endpoints' `PlanProblem`): a server that crashes on bad input.",
    caughtBy: ['not-a-server-error', 'negative-rejection'],
  },
  'idempotency-key-ignored': {
    description:
      'The `Idempotency-Key` request header is removed before forwarding: a repeated request runs again ' +
      '(a repeated createPayment is a 422 for its transId) and a reused key with another body is accepted.',
    caughtBy: ['idempotency'],
  },
  'replay-without-marker': {
    description: '`Idempotent-Replayed` is removed from every answer: a replay looks like a first answer.',
    caughtBy: ['idempotency'],
  },
  'cross-merchant-read': {
    description:
      "A GET with the second merchant's Basic credentials is forwarded with the first merchant's: the " +
      "second merchant reads the first one's objects.",
    caughtBy: ['isolation'],
  },
  'capture-above-authorized': {
    description:
      'A capture of more than the payment can still capture (authorized − captured − reversed, read first ' +
      "with the request's own credentials) is forwarded with the amount lowered to that, and its 200 passed " +
      'back; when nothing is left to capture, a 200 success body is made up.',
    caughtBy: ['lifecycle'],
  },
  'read-changed': {
    description:
      "getPaymentByPayId's and getPaymentByTransId's 200 report `capturedAmount.value` one more than the " +
      'server holds and `state` as another valid state (AUTHORIZED → PARTIALLY_CAPTURED → CAPTURED → ' +
      'PARTIALLY_REFUNDED → REFUNDED; any other → AUTHORIZED).',
    caughtBy: ['lifecycle'],
  },
  'webhook-signed-over-other-bytes': {
    description:
      "The relay re-serializes a notification's JSON body (two-space indentation) and keeps the original " +
      '`X-Webhook-Signature`, which no longer matches the bytes sent.',
    caughtBy: ['webhooks'],
  },
  'webhook-outside-schema': {
    description:
      'The relay removes a required member of a notification (`state` of the enhanced one, else `payId`) ' +
      "and signs the new body with the merchant's secret (same `t`): only the schema is broken.",
    caughtBy: ['webhooks'],
  },
  '401-without-challenge': {
    description: '`WWW-Authenticate` is removed from every 401.',
    caughtBy: ['auth', 'required-headers'],
  },
  'token-cacheable': {
    description: "`Cache-Control` and `Pragma` are removed from createAccessToken's 200.",
    caughtBy: ['auth', 'required-headers'],
  },
  'test-token-on-live': {
    description:
      'Requests to the live root `/live/api/v2/…` are forwarded to the test root `/api/v2/…`: a test token ' +
      '(and test credentials) work on the live root.',
    caughtBy: ['auth'],
  },
  'refund-above-captured': {
    description:
      'A refund of more than the payment can still refund (captured − refunded, read first) is forwarded ' +
      'with the amount lowered to that, and its 200 passed back; when nothing is left, a 200 success body is made up.',
    caughtBy: ['lifecycle'],
  },
  'not-found-as-400': {
    description: 'Every 404 of the API is answered as 400 with the same headers and body (a problem without `errors`).',
    caughtBy: ['response-schema', 'isolation'],
  },
  'credentials-not-required': {
    description:
      "An API request without an `Authorization` header is forwarded with the first merchant's Basic " +
      'credentials: a request without credentials succeeds.',
    caughtBy: ['auth'],
  },
  'webhook-unsigned': {
    description: 'The relay removes `X-Webhook-Signature` from the notifications it forwards.',
    caughtBy: ['webhooks'],
  },
};

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: the API under `/api/v2` and `/live/api/v2`, the hosted pages under `/hosted/…`. */
  url: string;
  /** The one fault planted from now on; undefined: none (the proxy is transparent). */
  setFault(fault: FaultName | undefined): void;
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  /** The sandbox's origin, `http://127.0.0.1:<port>`. */
  upstream: string;
  /** Each merchant's webhook secret (a list while it rotates): what `webhook-outside-schema` signs with. */
  webhookSecrets: Record<string, string | readonly string[]>;
  /** The first is whose credentials `cross-merchant-read` and `credentials-not-required` use; the second is the reader. */
  merchants: Array<{ merchantId: string; apiKey: string }>;
}

/** A request or an answer as the proxy holds it: headers lower-cased, the body whole. */
interface Message {
  headers: IncomingHttpHeaders;
  body: Buffer;
}
interface Answer extends Message {
  status: number;
}

const RELAY = '/__relay/';
/** The API roots; the live one first, since the test root is a suffix of it. */
const ROOTS = ['/live/api/v2', '/api/v2'] as const;
/**
 * The hop-by-hop headers the mock's front drops too (RFC 9110 section 7.6.1), and those the proxy
 * sets again for what it sends: the host of the other side, the length of a body it may have changed.
 */
const CONNECTION_HEADERS = new Set([...HOP_BY_HOP, 'host', 'content-length']);

/** The next state of `read-changed`: valid, and never the one the server holds. */
const CHANGED_STATE: Record<string, string> = {
  AUTHORIZED: 'PARTIALLY_CAPTURED',
  PARTIALLY_CAPTURED: 'CAPTURED',
  CAPTURED: 'PARTIALLY_REFUNDED',
  PARTIALLY_REFUNDED: 'REFUNDED',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const isJson = (headers: IncomingHttpHeaders) =>
  /^application\/(?:[\w.-]+\+)?json\b/i.test(headers['content-type'] ?? '');
/** JSON of a body that is not compressed, or undefined. */
function jsonOf(message: Message): Json | undefined {
  const encoding = message.headers['content-encoding'];
  if (!isJson(message.headers) || (encoding && encoding !== 'identity') || message.body.length === 0) return undefined;
  try {
    return JSON.parse(message.body.toString('utf8')) as Json;
  } catch {
    return undefined;
  }
}

/** The root and the operation path of an API request (`/payments/x`), or undefined (a hosted page, the relay). */
function apiPath(path: string): { root: (typeof ROOTS)[number]; path: string } | undefined {
  const pathname = path.split('?')[0]!;
  const root = ROOTS.find((r) => pathname.startsWith(`${r}/`));
  return root ? { root, path: pathname.slice(root.length) } : undefined;
}

const basicOf = (m: { merchantId: string; apiKey: string }) =>
  `Basic ${Buffer.from(`${m.merchantId}:${m.apiKey}`).toString('base64')}`;

/** The merchant id of Basic credentials, or undefined. */
function basicMerchant(authorization: string | undefined): string | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(0, colon);
}

const withoutHeaders = (headers: IncomingHttpHeaders, names: string[]): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));

const jsonBody = (value: Json) => Buffer.from(JSON.stringify(value));

/** Sends a message to `url` and reads its whole answer. */
function send(url: URL, method: string, message: Message, agents: { http: Agent; https: HttpsAgent }): Promise<Answer> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(message.headers))
    if (value !== undefined && !CONNECTION_HEADERS.has(name)) headers[name] = value;
  if (message.body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method))
    headers['content-length'] = String(message.body.length);
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? httpsRequest : httpRequest)(
      url,
      { method, headers, agent: secure ? agents.https : agents.http },
      (response) => {
        readBody(response).then(
          (body) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body }),
          reject,
        );
      },
    );
    request.on('error', reject);
    request.end(message.body);
  });
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Points every `urls.webhook` of a JSON value at the relay; whether it changed any. */
function pointWebhooksAtRelay(value: Json, relay: (original: string) => string): boolean {
  if (Array.isArray(value)) return value.map((v) => pointWebhooksAtRelay(v, relay)).some(Boolean);
  if (!isObject(value)) return false;
  let changed = false;
  const urls = value.urls;
  if (isObject(urls) && typeof urls.webhook === 'string' && !urls.webhook.includes(RELAY)) {
    urls.webhook = relay(urls.webhook);
    changed = true;
  }
  for (const member of Object.values(value)) changed = pointWebhooksAtRelay(member, relay) || changed;
  return changed;
}

/** The body of a payment operation that succeeded, as the sandbox answers one. */
const madeUpSuccess = (payId: string, request: JsonObject, merchantId: string | undefined): JsonObject => ({
  payId,
  ...(merchantId ? { merchantId } : {}),
  transId: typeof request.transId === 'string' ? request.transId : 'unknown',
  xId: randomBytes(16).toString('hex'),
  status: 'OK',
  responseCode: '00000000',
  responseDescription: 'Request successfully processed',
});

/** A 500 body the operation declares: `PlanProblem` on the plan endpoints, `ResultCode` elsewhere. */
function serverErrorBody(path: string, fullPath: string): JsonObject {
  if (/^\/payment-plans\b|^\/customers\/[^/]+\/payment-plans\b/.test(path))
    return {
      type: 'https://developer.payment-service.example/problems/internal-error',
      title: 'An unexpected error occurred.',
      status: '500',
      detail: 'The request could not be processed; retry later.',
      instance: fullPath.split('?')[0]!,
    };
  return { responseCode: '99999999', responseDescription: 'Internal server error' };
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const agents = { http: new Agent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const [first, second] = options.merchants;
  let fault: FaultName | undefined;
  let url = '';
  const relayOf = (original: string) => `${url}${RELAY}${encodeURIComponent(original)}`;
  // Joined as text: a path such as `//host/x` must stay a path of the upstream, not name another host.
  const upstreamUrl = (path: string) => new URL(`${upstream.origin}${path}`);

  /** The request as it goes upstream: the webhook URLs pointed at the relay, and the request faults. */
  async function requestUpstream(method: string, path: string, request: Message): Promise<Answer> {
    let headers = request.headers;
    let body = request.body;
    const json = jsonOf(request);
    if (json !== undefined && pointWebhooksAtRelay(json, relayOf)) body = jsonBody(json);
    const api = apiPath(path);
    if (!api) return send(upstreamUrl(path), method, { headers, body }, agents);

    if (fault === 'idempotency-key-ignored') headers = withoutHeaders(headers, ['idempotency-key']);
    if (fault === 'credentials-not-required' && !headers.authorization && first)
      headers = { ...headers, authorization: basicOf(first) };
    if (fault === 'cross-merchant-read' && method === 'GET' && first && second) {
      if (basicMerchant(headers.authorization) === second.merchantId)
        headers = { ...headers, authorization: basicOf(first) };
    }
    const operation = /^\/payments\/([^/]+)\/(captures|refunds)$/.exec(api.path);
    const lowered =
      operation && method === 'POST'
        ? (fault === 'capture-above-authorized' && operation[2] === 'captures') ||
          (fault === 'refund-above-captured' && operation[2] === 'refunds')
        : false;
    if (lowered && operation && isObject(json) && isObject(json.amount) && typeof json.amount.value === 'number') {
      const payId = decodeURIComponent(operation[1]!);
      const read = await send(
        upstreamUrl(`${api.root}/payments/getByPayId/${encodeURIComponent(payId)}`),
        'GET',
        { headers: { authorization: headers.authorization, accept: 'application/json' }, body: Buffer.alloc(0) },
        agents,
      );
      const payment = read.status === 200 ? jsonOf(read) : undefined;
      if (isObject(payment)) {
        const value = (name: string) => {
          const amount = payment[name];
          return isObject(amount) && typeof amount.value === 'number' ? amount.value : 0;
        };
        const available =
          operation[2] === 'captures'
            ? value('authorizedAmount') - value('capturedAmount') - value('reversedAmount')
            : value('capturedAmount') - value('refundedAmount');
        if (json.amount.value > available) {
          if (available <= 0) {
            const merchantId = typeof payment.merchantId === 'string' ? payment.merchantId : undefined;
            return {
              status: 200,
              headers: { 'content-type': 'application/json; charset=utf-8' },
              body: jsonBody(madeUpSuccess(payId, json, merchantId)),
            };
          }
          json.amount.value = available;
          body = jsonBody(json);
        }
      }
    }
    if (fault === 'test-token-on-live' && api.root === '/live/api/v2') path = path.slice('/live'.length);
    return send(upstreamUrl(path), method, { headers, body }, agents);
  }

  /** The answer faults, on an answer of the API. */
  function changeAnswer(method: string, path: string, answer: Answer): Answer {
    const api = apiPath(path);
    if (!api || fault === undefined) return answer;
    const { status } = answer;
    const is = (m: string, pattern: RegExp) => method === m && pattern.test(api.path);
    const isToken = is('POST', /^\/authorization\/oauth\/token$/);
    const isRead = is('GET', /^\/payments\/getBy(?:PayId|TransId)\/[^/]+$/);
    const isCreate = is('POST', /^\/payments$/);
    const edit = (change: (body: JsonObject) => void): Answer => {
      const json = jsonOf(answer);
      if (!isObject(json)) return answer;
      change(json);
      return { ...answer, body: jsonBody(json) };
    };
    switch (fault) {
      case 'drop-required-field':
        return status >= 200 && status < 300 && (isCreate || isRead)
          ? edit((b) => {
              delete b.xId;
            })
          : answer;
      case 'wrong-status':
        return isCreate && status === 201 ? { ...answer, status: 200 } : answer;
      case 'missing-required-header':
        return isToken && status === 200 ? { ...answer, headers: withoutHeaders(answer.headers, ['pragma']) } : answer;
      case 'token-cacheable':
        return isToken && status === 200
          ? { ...answer, headers: withoutHeaders(answer.headers, ['pragma', 'cache-control']) }
          : answer;
      case 'wrong-content-type':
        return isJson(answer.headers)
          ? { ...answer, headers: { ...answer.headers, 'content-type': 'text/plain; charset=utf-8' } }
          : answer;
      case 'server-error-on-bad-input':
        return status === 400
          ? {
              status: 500,
              headers: { 'content-type': 'application/json; charset=utf-8' },
              body: jsonBody(serverErrorBody(api.path, path)),
            }
          : answer;
      case 'replay-without-marker':
        return { ...answer, headers: withoutHeaders(answer.headers, ['idempotent-replayed']) };
      case '401-without-challenge':
        return status === 401 ? { ...answer, headers: withoutHeaders(answer.headers, ['www-authenticate']) } : answer;
      case 'not-found-as-400':
        return status === 404 ? { ...answer, status: 400 } : answer;
      case 'read-changed':
        return isRead && status === 200
          ? edit((b) => {
              if (isObject(b.capturedAmount) && typeof b.capturedAmount.value === 'number') b.capturedAmount.value += 1;
              if (typeof b.state === 'string') b.state = CHANGED_STATE[b.state] ?? 'AUTHORIZED';
            })
          : answer;
      default:
        return answer;
    }
  }

  /** A notification on its way to the merchant's URL, with the webhook faults. */
  async function relay(original: string, method: string, delivery: Message): Promise<Answer> {
    let { headers, body } = delivery;
    const signatureName = WEBHOOK_SIGNATURE_HEADER.toLowerCase();
    const signature = headers[signatureName];
    const json = jsonOf(delivery);
    if (fault === 'webhook-signed-over-other-bytes' && json !== undefined)
      body = Buffer.from(JSON.stringify(json, null, 2));
    if (fault === 'webhook-unsigned') headers = withoutHeaders(headers, [signatureName]);
    if (fault === 'webhook-outside-schema' && isObject(json)) {
      delete json['state' in json ? 'state' : 'payId'];
      body = jsonBody(json);
      if (typeof signature === 'string') {
        const merchantId = typeof json.merchantId === 'string' ? json.merchantId : '';
        const secret = options.webhookSecrets[merchantId];
        if (!secret)
          throw new Error(`no webhook secret of merchant ${merchantId || '(none in the body)'} to sign with`);
        const t = /(?:^|,)\s*t=(\d+)/.exec(signature)?.[1];
        headers = {
          ...headers,
          [signatureName]: await signWebhook(body, secret, t ? { timestamp: Number(t) } : {}),
        };
      }
    }
    return send(new URL(original), method, { headers, body }, agents);
  }

  const server = createServer((req, res) => {
    // The upstream's Date travels with its answer; the proxy adds none of its own.
    res.sendDate = false;
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const respond = (answer: Answer) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && (!CONNECTION_HEADERS.has(name) || name === 'content-length')) headers[name] = value;
      // A HEAD answer keeps the length its GET would have; any other gets its body's own length.
      const bodyless = method === 'HEAD' || answer.status === 204 || answer.status === 304;
      if (!bodyless) headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, headers);
      res.end(bodyless ? undefined : answer.body);
    };
    const fail = (error: unknown) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`fault proxy: ${(error as Error).message}`);
    };
    readBody(req)
      .then(async (body) => {
        const message = { headers: req.headers, body };
        if (path.startsWith(RELAY)) {
          const original = decodeURIComponent(path.slice(RELAY.length));
          return respond(await relay(original, method, message));
        }
        respond(changeAnswer(method, path, await requestUpstream(method, path, message)));
      })
      .catch(fail);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    setFault: (next) => {
      fault = next;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          agents.http.destroy();
          agents.https.destroy();
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * For a suite: a sandbox in this process (its two merchants) behind a fault proxy that knows their
 * webhook secrets; both start before the suite's tests and stop after them (the sandbox first: its
 * deliveries go through the proxy), and each test ends without a fault.
 */
export function sandboxBehindFaultProxy(): () => { t: TestSandbox; proxy: FaultProxy } {
  let t: TestSandbox | undefined;
  let proxy: FaultProxy | undefined;
  beforeAll(async () => {
    t = await startTestSandbox();
    proxy = await startFaultProxy({
      upstream: t.url,
      webhookSecrets: Object.fromEntries([t.merchant, t.other].map((m) => [m.merchantId, m.webhookSecret as string])),
      merchants: [t.merchant, t.other],
    });
  });
  afterAll(async () => {
    await t?.stop();
    await proxy?.stop();
  });
  afterEach(() => proxy?.setFault(undefined));
  return () => {
    if (!t || !proxy) throw new Error('the sandbox and fault proxy of this suite have not started');
    return { t, proxy };
  };
}
