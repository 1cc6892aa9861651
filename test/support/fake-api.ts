// A small stand-in for the Payment Service for the client tests: it records every request and
// answers with whatever the test's handler says. Two transports, one behaviour:
// - fakeApi(): in this process, behind `fetch` (what the SDK calls): for unit tests, no socket;
// - startFakeApi(): node:http on 127.0.0.1, port 0: for a client in another process (the packed SDK).
//
//   const api = await fakeApi((req) => req.path === '/payments' ? reply(201, { payId: 'x' }) : reply(200, {}));
//   const client = createPaymentClient({ merchantId: 'm', apiKey: 'k', baseUrl: api.baseUrl });
//   … api.requests …
//   await api.close();
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client closed the connection before the answer was complete (an aborted request). */
  closedByClient: boolean;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type FakeHandler = (request: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeApi {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Requests to a path (exact match). */
  to(path: string): RecordedRequest[];
  close(): Promise<void>;
}

export const reply = (status: number, body?: unknown, headers?: Record<string, string>): FakeReply => ({
  status,
  body,
  headers,
});

/** The body, its content type and length, as both transports send a reply. */
function encodeReply(r: FakeReply): { text: string; headers: Record<string, string> } {
  const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const type = typeof r.body === 'string' ? 'text/plain' : 'application/json';
  return {
    text,
    headers: {
      ...(text ? { 'Content-Type': type } : {}),
      'Content-Length': String(Buffer.byteLength(text)),
      ...r.headers,
    },
  };
}

const interceptors = new Map<string, (request: Request) => Promise<Response>>();
let realFetch: typeof fetch | undefined;

/** Sends requests to a registered fake's origin to it, and everything else to the real fetch. */
function routeFetch(): void {
  if (realFetch) return;
  realFetch = globalThis.fetch;
  const passThrough = realFetch;
  globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    const intercept = interceptors.get(new URL(request.url).origin);
    return intercept ? intercept(request) : passThrough(request);
  };
}

let fakes = 0;

/**
 * The fake in this process: `globalThis.fetch` sends requests for its `baseUrl` (an origin of its
 * own, `http://fake-api-<n>.test`) to the handler. A request whose signal aborts before its reply
 * rejects with the signal's reason, as fetch does, and is recorded as closed by the client.
 */
export async function fakeApi(handler: FakeHandler): Promise<FakeApi> {
  routeFetch();
  const requests: RecordedRequest[] = [];
  const origin = `http://fake-api-${++fakes}.test`;
  interceptors.set(origin, async (request) => {
    const url = new URL(request.url);
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
      closedByClient: false,
    };
    const index = requests.push(recorded) - 1;
    const aborted = new Promise<never>((_, reject) => {
      const abort = () => {
        recorded.closedByClient = true;
        reject(request.signal.reason);
      };
      if (request.signal.aborted) abort();
      else request.signal.addEventListener('abort', abort, { once: true });
    });
    aborted.catch(() => undefined);
    const answer = async () => {
      let r: FakeReply;
      try {
        r = await handler(recorded, index);
      } catch (err) {
        return new Response(String(err), { status: 599 });
      }
      if (r.delayMs) await new Promise((done) => setTimeout(done, r.delayMs));
      const { text, headers } = encodeReply(r);
      return new Response(text || null, { status: r.status, headers });
    };
    return Promise.race([answer(), aborted]);
  });
  return {
    baseUrl: origin,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    close: async () => {
      interceptors.delete(origin);
    },
  };
}

export async function startFakeApi(handler: FakeHandler): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        closedByClient: false,
      };
      res.on('close', () => {
        if (!res.writableFinished) recorded.closedByClient = true;
      });
      const index = requests.push(recorded) - 1;
      try {
        const r = await handler(recorded, index);
        if (r.delayMs) await new Promise((done) => setTimeout(done, r.delayMs));
        if (res.destroyed) return;
        const { text, headers } = encodeReply(r);
        res.writeHead(r.status, headers);
        res.end(text);
      } catch (err) {
        res.writeHead(599).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The token endpoint's answer: a fresh token per request (`tok-1`, `tok-2`, …). */
export function tokenReply(n: number, expiresIn = 3600): FakeReply {
  return reply(
    200,
    { access_token: `tok-${n}`, token_type: 'Bearer', expires_in: expiresIn },
    { 'Cache-Control': 'no-store' },
  );
}

/** Positional arguments for any operation (the fake API does not validate them): path ids, a body, a query. */
export function placeholderArgs(info: {
  pathParams: readonly string[];
  requestBody: unknown;
  queryParams: readonly string[];
}): unknown[] {
  const args: unknown[] = info.pathParams.map((name) => `${name}-1`);
  if (info.requestBody) args.push({});
  if (info.queryParams.length > 0) args.push({});
  return args;
}

/** `client.payments.capture` for `payments.capture`, untyped: for tests that walk every operation. */
export function methodOf(client: object, sdkMethod: string): (...args: unknown[]) => Promise<unknown> {
  const [resource, method] = sdkMethod.split('.') as [string, string];
  const fn = (client as Record<string, Record<string, unknown>>)[resource]?.[method];
  if (typeof fn !== 'function') throw new Error(`the client has no ${sdkMethod}`);
  return fn as (...args: unknown[]) => Promise<unknown>;
}
