// The sandbox on a socket: fastify carries each request to the core (core.ts), which answers it.
// What only a socket has stays here: limits on connections, headers and bodies (limits.ts), Node's
// parser errors and timeouts, a body not waited for, the request log. fastify's router serves the
// core's routes, with the core's parameter limit; its body parsers are the core's body policies.

import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { answer, type BodyPolicy, type Route, type SandboxCore } from './core.js';
import { type ExchangeRequest, type ExchangeResponse, parseQueryString, type RequestHead } from './exchange.js';
import {
  type Failure,
  type FailureInput,
  genericFailure,
  MAX_PARAM_LENGTH,
  type RequestFailureStatus,
  redactedUrl,
} from './failures.js';
import { applyServerLimits, BODY_LIMIT_BYTES, DEFAULT_SERVER_LIMITS, type ServerLimits } from './limits.js';
import { REPLAY_HEADER } from './pipeline.js';

export { ROOTS } from './core.js';
export { BODY_LIMIT_BYTES } from './limits.js';

export interface SandboxAppOptions {
  /** One line per request on stdout (the CLI's default; off for tests and benchmarks). */
  log?: (line: string) => void;
  /** Timeouts and caps on connections (default DEFAULT_SERVER_LIMITS, in sandbox/http/limits.ts). */
  limits?: Partial<ServerLimits>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The core's route a fastify route serves. */
    sandboxRoute?: Route;
  }
  interface FastifyRequest {
    /** What the route's work before the body passed on to its handler. */
    sandboxPass: unknown;
  }
}

/** The core on a fastify server (not yet listening). */
export async function createSandboxApp(core: SandboxCore, options: SandboxAppOptions = {}): Promise<FastifyInstance> {
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  // A refused connection is a warning the operator sees with or without the request log.
  const app = createServer(core, limits, options.log ?? ((line) => console.warn(line)));
  app.setNotFoundHandler((request, reply) => send(reply, core.notFound(headOf(request))));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const route = request.routeOptions.config.sandboxRoute;
    const status = failureStatus(error);
    if (status === 500) console.error(`sandbox: ${request.method} ${redactedUrl(request.url)} failed:`, error);
    const head = headOf(request);
    return send(
      reply,
      route
        ? route.fail(head, status, error.message)
        : genericFailure({ status, title: 'Request failed.', detail: error.message }),
    );
  });
  if (options.log) logRequests(app, options.log);
  // Routes last: a route takes the error handler and hooks of its context when it is registered.
  for (const policy of new Set(core.routes.map((route) => route.body))) {
    await app.register(async (scope) => {
      takeBodies(scope, policy);
      for (const route of core.routes) if (route.body === policy) serve(scope, route);
    });
  }
  return app;
}

/**
 * The fastify server with the sandbox's limits on connections, headers and bodies (refusals go to
 * `warn`), the core's parameter limit, and the query parsed as the core parses it.
 */
function createServer(core: SandboxCore, limits: ServerLimits, warn: (line: string) => void): FastifyInstance {
  // maxParamLength: a long path parameter reaches validation (a 400 naming it); a longer one is
  // answered by frameworkErrors (the operation's 400 naming it too).
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    routerOptions: {
      caseSensitive: true,
      maxParamLength: MAX_PARAM_LENGTH,
      querystringParser: parseQueryString,
    },
    return503OnClosing: true,
    // Slow clients: headers, then the whole request, must arrive in time; an idle connection closes.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      maxHeaderSize: limits.maxHeaderBytes,
      // How often Node looks for requests past their headers or request timeout.
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    frameworkErrors: (error, request, reply) => {
      const why = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'length' : 'encoding';
      send(reply, core.failures.unroutable(request.method, request.url, why));
    },
    clientErrorHandler: (error, socket) => clientError(core, limits.maxHeaderBytes, error, socket),
  });
  applyServerLimits(app, limits, BODY_LIMIT_BYTES, warn);
  app.decorateRequest('sandboxPass', undefined);
  return app;
}

/** Bodies of the policy's media types arrive as text or bytes (the core parses them); any other is refused with 415. */
function takeBodies(scope: FastifyInstance, policy: BodyPolicy): void {
  scope.removeAllContentTypeParsers();
  for (const [mediaType, as] of Object.entries(policy.mediaTypes)) {
    scope.addContentTypeParser(
      mediaType,
      { parseAs: as === 'text' ? 'string' : 'buffer', bodyLimit: policy.limitBytes },
      // A Buffer is a Uint8Array: bytes as the core takes them.
      (_request, body, done) => done(null, body),
    );
  }
}

/** One route of the core: its work before the body in onRequest (no body is read for a refusal), then its answer. */
function serve(scope: FastifyInstance, route: Route): void {
  scope.route({
    method: route.method as 'GET',
    url: route.path.replace(/\{([^}]+)\}/g, ':$1'),
    config: { sandboxRoute: route },
    // An async hook that answers returns the reply: fastify then runs nothing further (no body parsed).
    onRequest: async (request, reply) => {
      const before = await route.before(headOf(request));
      if ('answer' in before) return answerUnread(request, reply, () => send(reply, before.answer));
      request.sandboxPass = before.pass;
      return undefined;
    },
    handler: async (request, reply) =>
      send(reply, await answer(route, new FastifyExchange(request, reply), request.sandboxPass)),
  });
}

/**
 * A fastify request as the core takes it. A class, not a spread of the head with the body: V8 gave
 * each such literal new hidden classes, and an AbortController per request made more
 * (test/sandbox/hidden-classes.test.ts); the signal is made when a handler asks for it (a long poll).
 */
class FastifyExchange implements ExchangeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: RequestHead['headers'];
  readonly params: RequestHead['params'];
  readonly query: RequestHead['query'];
  readonly body: ExchangeRequest['body'];
  readonly #reply: FastifyReply;
  #gone: AbortController | undefined;

  constructor(request: FastifyRequest, reply: FastifyReply) {
    this.method = request.method;
    this.url = request.url;
    this.headers = request.headers;
    this.params = (request.params ?? {}) as RequestHead['params'];
    this.query = (request.query ?? {}) as RequestHead['query'];
    this.body = request.body as ExchangeRequest['body'];
    this.#reply = reply;
  }

  /** Aborts when the client goes away before the answer: the handler stops waiting. */
  get signal(): AbortSignal {
    if (!this.#gone) {
      const gone = new AbortController();
      const raw = this.#reply.raw;
      if (raw.destroyed) gone.abort();
      else raw.once('close', () => gone.abort());
      this.#gone = gone;
    }
    return this.#gone.signal;
  }
}

const headOf = (request: FastifyRequest): RequestHead => ({
  method: request.method,
  url: request.url,
  headers: request.headers,
  params: (request.params ?? {}) as Record<string, string>,
  query: (request.query ?? {}) as Record<string, string | string[]>,
});

function send(reply: FastifyReply, response: ExchangeResponse | Failure): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body);
}

/** The status a fastify error stands for: 413, 415, 400 for the client's other faults, else 500. */
function failureStatus(error: FastifyError): RequestFailureStatus {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) return 413;
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) return 415;
  const clientError = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
  return clientError ? 400 : 500;
}

/** One line per answered request. */
function logRequests(app: FastifyInstance, log: (line: string) => void): void {
  app.addHook('onResponse', async (request, reply) => {
    // A hosted page's id is a bearer capability: the log leaves it out.
    log(
      `${new Date().toISOString()} ${request.method} ${redactedUrl(request.url)} → ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms${reply.getHeader(REPLAY_HEADER) ? ' (replayed)' : ''}`,
    );
  });
}

/** A body up to this size is let in (discarded unread) before a refusal is sent; a larger one is not waited for. */
export const UNREAD_BODY_WAIT_BYTES = 64 * 1024;

/**
 * Answers a request whose body will never be parsed. A small announced body (up to
 * UNREAD_BODY_WAIT_BYTES) is discarded as it arrives and the answer follows its end: an HTTP/1.1
 * client reads the answer after sending its body, and one that cut its body short and went away has
 * had the parser's 400 and gets nothing on top of it. A larger or chunked body is not waited for:
 * the answer goes at once, and Node discards the rest (within the request timeout).
 */
async function answerUnread(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: () => FastifyReply,
): Promise<FastifyReply> {
  const raw = request.raw;
  const length = Number(request.headers['content-length'] ?? '0');
  const small = request.headers['transfer-encoding'] === undefined && length > 0 && length <= UNREAD_BODY_WAIT_BYTES;
  if (small && !raw.readableEnded) {
    const ended = await new Promise<boolean>((resolve) => {
      raw.once('end', () => resolve(true));
      raw.once('close', () => resolve(raw.readableEnded));
      raw.once('error', () => resolve(false));
      raw.resume();
    });
    if (!ended) return reply.hijack();
  }
  return answer();
}

/**
 * Node's `clientError`: the request could not be parsed (400), its headers are over the limit
 * (431), or it took too long to arrive (408). Written on the socket, which is then closed, unless
 * a response has already started on it.
 */
function clientError(
  core: SandboxCore,
  maxHeaderBytes: number,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (
    socket as Socket & { _httpMessage?: { headersSent: boolean; req?: { method?: string; url?: string } } }
  )._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    // The request line, when it was read: the addressed operation gives the body's shape.
    const line = inFlight?.req?.url
      ? { method: inFlight.req.method ?? 'GET', url: inFlight.req.url }
      : requestLine(error.rawPacket);
    const input: FailureInput =
      status === 431
        ? {
            status,
            title: 'Request header fields too large.',
            detail: `The request line and headers exceed ${maxHeaderBytes} bytes.`,
          }
        : status === 408
          ? { status, title: 'Request timeout.', detail: 'The request did not arrive in time.' }
          : {
              status,
              title: 'Malformed request.',
              detail: `The request could not be parsed (${error.code ?? 'malformed'}).`,
              field: { name: '(request)', message: `could not be parsed: ${error.code ?? 'malformed'}` },
            };
    const failure = line ? core.failures.answer(line.method, line.url, input) : genericFailure(input);
    const body = Buffer.from(failure.body);
    const head = [
      `HTTP/1.1 ${failure.status} ${STATUS_TEXT[failure.status] ?? 'Error'}`,
      ...Object.entries(failure.headers).map(([name, value]) => `${name}: ${value}`),
      `content-length: ${body.length}`,
      'connection: close',
    ].join('\r\n');
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]));
  }
  socket.destroy(error);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
};

/** `GET /path HTTP/1.1` at the start of what the parser was given, or undefined. */
function requestLine(raw: unknown): { method: string; url: string } | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const match = /^([A-Z]{1,16}) (\/[^ \r\n]{0,8192}) HTTP\/1\.[01]\r?\n/.exec(raw.subarray(0, 8300).toString('latin1'));
  return match ? { method: match[1]!, url: match[2]! } : undefined;
}
