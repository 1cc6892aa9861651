// The front of `npm run mock`: an HTTP server that passes every request to Prism (which runs with
// its own CORS off, on a loopback port of its own) and applies the CORS rule of
// tooling/openapi/cors.ts, the sandbox's, on the way: preflights of the operations a browser may
// call are answered here, their responses get the rule's headers, and nothing else gets any.
// Two headers Prism takes from the contract's examples are put right on the way: a 401's
// `WWW-Authenticate` names the schemes of the operation called (Prism sends the one example of the
// shared header), and `Idempotent-Replayed`, which only a replay carries, is dropped (Prism keeps no
// state, so no answer of the mock is a replay).
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { CORS_ORIGINS_ENV, type CorsRule, mergeVary } from '../tooling/openapi/cors.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1): one connection's, never passed on. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

export interface MockFrontOptions {
  rule: CorsRule;
  /** Where Prism listens: `{ host: '127.0.0.1', port }`. */
  upstream: { host: string; port: number };
  /** A line for each refused preflight and each preflight of a server's operation (the console). */
  log?: (line: string) => void;
  /** The `WWW-Authenticate` of each operation's 401, by operationId (tooling/openapi/challenges.ts). */
  challenges?: ReadonlyMap<string, string>;
  /**
   * Settles once Prism answers (mock/serve.ts): the front listens first, so that its address is
   * known before Prism starts, and holds each request until then; a rejection is answered 502.
   */
  upstreamReady?: Promise<unknown>;
}

/** Response headers of Prism's that the front never passes on: a replay's, which the mock never makes. */
const DROPPED = new Set(['idempotent-replayed']);

/** The front server (not listening yet). */
export function createMockFront(options: MockFrontOptions): Server {
  const { rule, upstream } = options;
  const agent = new Agent({ keepAlive: true });
  return createServer((request, response) => {
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0]!;
    const origin = header(request, 'origin');
    if (method === 'OPTIONS') {
      const requested = header(request, 'access-control-request-method');
      const answer = rule.preflight(path, {
        origin,
        method: requested,
        headers: header(request, 'access-control-request-headers'),
      });
      if (answer.verdict !== 'none') {
        if (answer.verdict === 'refuse')
          options.log?.(`CORS: refused the preflight of ${requested} ${path} from ${origin}: ${answer.reason}`);
        response.writeHead(answer.status, answer.headers).end(answer.verdict === 'refuse' ? answer.body : undefined);
        request.resume();
        return;
      }
      // A preflight the rule leaves to Prism (which refuses it): say why on the console.
      const operationId = requested ? rule.operationAt(requested, path) : undefined;
      if (origin && operationId)
        options.log?.(
          rule.operations.some((op) => op.operationId === operationId)
            ? `CORS: ${origin} asked to call ${operationId} from a browser; CORS is closed: allow the origin with --cors-origin or ${CORS_ORIGINS_ENV}`
            : `CORS: ${origin} asked to call ${operationId} from a browser; it takes merchant credentials, which stay on servers: call it from your back end (docs/mock.md#calling-the-mock-from-a-browser)`,
        );
    }
    const operationId = method === 'OPTIONS' ? undefined : rule.operationAt(method, path);
    const cors = method === 'OPTIONS' ? {} : rule.responseHeaders(operationId, origin);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const cannotReach = (err: Error) => {
      if (!response.headersSent)
        response
          .writeHead(502, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`the mock cannot reach Prism: ${err.message}`);
      else response.destroy(err);
    };
    const forward = () => {
      const onward = httpRequest(
        { host: upstream.host, port: upstream.port, method, path: request.url, headers, agent },
        (answer) => {
          // Prism's headers as it spelled them, less hop-by-hop ones and any Access-Control-* (its CORS is off).
          const challenge = answer.statusCode === 401 && operationId ? options.challenges?.get(operationId) : undefined;
          const raw: string[] = [];
          for (let i = 0; i < answer.rawHeaders.length; i += 2) {
            const name = answer.rawHeaders[i]!;
            const lower = name.toLowerCase();
            if (HOP_BY_HOP.has(lower) || DROPPED.has(lower) || lower.startsWith('access-control-')) continue;
            if ((lower === 'vary' && cors.vary) || (lower === 'www-authenticate' && challenge)) continue;
            raw.push(name, answer.rawHeaders[i + 1]!);
          }
          if (challenge) raw.push('WWW-Authenticate', challenge);
          for (const [name, value] of Object.entries(cors))
            raw.push(name, name === 'vary' ? mergeVary(header(answer, 'vary'), value) : value);
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
          answer.pipe(response);
        },
      );
      onward.on('error', cannotReach);
      request.pipe(onward);
    };
    if (options.upstreamReady) options.upstreamReady.then(forward, cannotReach);
    else forward();
  });
}
