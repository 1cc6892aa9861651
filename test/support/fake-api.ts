// A small local stand-in for the Payment Service (node:http on 127.0.0.1, port 0) for the client
// tests: it records every request and answers with whatever the test's handler says.
//
//   const api = await startFakeApi((req) => req.path === '/payments' ? reply(201, { payId: 'x' }) : reply(200, {}));
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
        const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
        const type = typeof r.body === 'string' ? 'text/plain' : 'application/json';
        res.writeHead(r.status, {
          ...(text ? { 'Content-Type': type } : {}),
          'Content-Length': Buffer.byteLength(text),
          ...r.headers,
        });
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
