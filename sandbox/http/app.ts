// The sandbox's HTTP server (fastify): every operation of the contract under both roots, the test
// root `/api/v2` and the live-form root `/live/api/v2`, wired by operationId from the bundle.
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { type DestinationPolicy, destinationPolicy } from '../app/destinations.js';
import type { SandboxSecrets } from '../app/secrets.js';
import type { Contract } from '../contract/contract.js';
import type { Environment, Scope } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { type AdminDeps, loadAdminDocument, registerAdminApi } from './admin.js';
import { createAuthenticator } from './auth.js';
import { sandboxCors } from './cors.js';
import {
  Failures,
  failureStatus,
  genericFailure,
  MAX_PARAM_LENGTH,
  redactedUrl,
  requestFailureText,
  send,
} from './failures.js';
import { createHandlers } from './handlers/index.js';
import { registerHostedPages } from './hosted.js';
import { applyServerLimits, BODY_LIMIT_BYTES, DEFAULT_SERVER_LIMITS, type ServerLimits } from './limits.js';
import { authenticateFirst, operationHandler, type PipelineDeps, REPLAY_HEADER } from './pipeline.js';

/** The roots and the environment each stands for. Test requests never touch live data. */
export const ROOTS: ReadonlyArray<{ root: string; environment: Environment }> = [
  { root: '/api/v2', environment: 'test' },
  { root: '/live/api/v2', environment: 'live' },
];

export { BODY_LIMIT_BYTES } from './limits.js';

export interface SandboxAppOptions {
  contract: Contract;
  store: Store;
  /** The address links point at (hosted pages), e.g. `http://127.0.0.1:4020` (known once the server listens). */
  publicUrl: () => string;
  /** One line per request on stdout (the CLI's default; off for tests and benchmarks). */
  log?: (line: string) => void;
  /** The time of a scope: its test clock (default: the wall clock). */
  now?: (scope: Scope) => Date;
  /** The keys derived from the sandbox secret. */
  secrets: SandboxSecrets;
  /** Called after a commit that queued a webhook delivery (the deliverer looks at once). */
  onWebhookQueued?: () => void;
  /** Where webhooks may go (default: the policy's defaults, without the sandbox's own address). */
  destinations?: DestinationPolicy;
  /** The admin API under /_sandbox (sandbox/admin/openapi.yaml); absent: not served. */
  admin?: Omit<AdminDeps, 'store' | 'onWebhookQueued' | 'forgetCredentials' | 'examples' | 'authenticateMerchant'>;
  /** Origins that may call the operations a browser may call (sandbox/http/cors.ts); none: CORS closed. */
  corsOrigins?: readonly string[];
  /** Docs console mode: origins that may call every operation (sandbox/http/cors.ts); none: off. */
  consoleOrigins?: readonly string[];
  /** Timeouts and caps on connections (default DEFAULT_SERVER_LIMITS, in sandbox/http/limits.ts). */
  limits?: Partial<ServerLimits>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: string;
  }
}

export async function createSandboxApp(options: SandboxAppOptions): Promise<FastifyInstance> {
  const { contract, store } = options;
  const now = options.now ?? (() => new Date());
  const auth = createAuthenticator(store, options.secrets, now);
  const handlers = createHandlers(auth);
  const missing = [...contract.operations.keys()].filter((id) => !handlers[id]);
  if (missing.length > 0) throw new Error(`the contract has operations without a handler: ${missing.join(', ')}`);
  const deps: PipelineDeps = {
    contract,
    store,
    auth,
    handlers,
    publicUrl: () => options.publicUrl().replace(/\/+$/, ''),
    now,
    secrets: options.secrets,
    destinations: options.destinations ?? destinationPolicy({}),
  };

  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const failures = new Failures(
    [
      { document: contract, prefixes: ROOTS.map((r) => r.root) },
      ...(options.admin ? [{ document: options.admin.document ?? loadAdminDocument(), prefixes: [''] }] : []),
    ],
    limits.maxHeaderBytes,
  );
  // A refused connection is a warning the operator sees with or without the request log.
  const app = createServer(limits, failures, options.log ?? ((line) => console.warn(line)));
  answerFailures(app, contract, failures);
  if (options.log) logRequests(app, options.log);
  // Routes last: a route takes the error handler and hooks of its context when it is registered.
  await registerHostedPages(app, {
    ...deps,
    tables: contract.tables,
    fingerprint: options.secrets.fingerprint,
    onDelivery: () => options.onWebhookQueued?.(),
  });
  if (options.admin)
    await registerAdminApi(app, {
      ...options.admin,
      store,
      onWebhookQueued: () => options.onWebhookQueued?.(),
      forgetCredentials: (merchantId) => auth.forget(merchantId),
      examples: { examples: contract.examples, tables: contract.tables, fingerprint: deps.secrets.fingerprint },
      // The listener operations take a merchant's Basic credentials, checked as the merchant roots check them.
      authenticateMerchant: (headers) => auth.authenticate(['basicAuth'], headers, 'test'),
    });
  registerOperations(
    app,
    deps,
    sandboxCors(contract.document, options.corsOrigins ?? [], options.consoleOrigins ?? []),
  );
  return app;
}

/**
 * The fastify server with the sandbox's limits on connections, headers and bodies (refusals go to
 * `warn`), and the parsers of the bodies it takes (as text: the pipeline parses them).
 */
function createServer(limits: ServerLimits, failures: Failures, warn: (line: string) => void): FastifyInstance {
  // maxParamLength: a long path parameter reaches validation (a 400 naming it); a longer one is
  // answered by frameworkErrors (the operation's 400 naming it too).
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    routerOptions: { caseSensitive: true, maxParamLength: MAX_PARAM_LENGTH },
    return503OnClosing: true,
    // Slow clients: headers, then the whole request, must arrive in time; an idle connection closes.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      maxHeaderSize: limits.maxHeaderBytes,
      // How often Node looks for requests past their headers or request timeout.
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    frameworkErrors: (error, request, reply) => failures.frameworkError(error, request, reply),
    clientErrorHandler: (error, socket) => failures.clientError(error, socket),
  });
  applyServerLimits(app, limits, BODY_LIMIT_BYTES, warn);
  app.decorateRequest('sandboxAuth', null);

  // Bodies arrive as text: JSON is parsed by the pipeline (its errors become the contract's 400),
  // the token endpoint's form likewise; any other media type is refused with 415.
  app.removeAllContentTypeParsers();
  for (const mediaType of ['application/json', 'application/x-www-form-urlencoded']) {
    app.addContentTypeParser(mediaType, { parseAs: 'string' }, (_request, body, done) => done(null, body));
  }
  return app;
}

/**
 * A URL no operation has: the generic 404. Errors before or outside the handler: a too large body
 * (413), a media type without a parser (415), a body the client cut short or mis-announced (400:
 * fastify marks those 4xx), anything else (500), each in the body the operation's contract gives for
 * that status (its 400 for a status it does not declare).
 */
function answerFailures(app: FastifyInstance, contract: Contract, failures: Failures): void {
  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      genericFailure({
        status: 404,
        title: 'No such operation.',
        detail: `${request.method} ${redactedUrl(request.url.split('?')[0]!)} is not an operation of the contract under ${ROOTS.map((r) => r.root).join(' or ')}.`,
      }),
    ),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = failureStatus(error);
    if (status === 500) console.error(`sandbox: ${request.method} ${redactedUrl(request.url)} failed:`, error);
    const operation = contract.operations.get(request.routeOptions.config.operationId as never);
    const failure = failures.answer(request.method, request.url, {
      status,
      ...requestFailureText(status, operation?.requestMediaType),
      field: {
        name: '(body)',
        message:
          status === 413
            ? `must not be larger than ${BODY_LIMIT_BYTES} bytes`
            : status === 415
              ? 'is of a media type the operation does not take'
              : `could not be read: ${error.message}`,
      },
    });
    return send(reply, failure);
  });
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

/** Every operation of the contract under each root; CORS only on the operations a browser may call. */
function registerOperations(app: FastifyInstance, deps: PipelineDeps, cors: ReturnType<typeof sandboxCors>): void {
  for (const { root, environment } of ROOTS) {
    for (const operation of deps.contract.operations.values()) {
      app.route({
        method: operation.method.toUpperCase() as 'GET',
        url: root + operation.path.replace(/\{([^}]+)\}/g, ':$1'),
        config: { operationId: operation.id },
        // Credentials before the body is read: an unauthenticated client never makes the sandbox wait for one.
        onRequest: authenticateFirst(deps, operation, environment),
        handler: operationHandler(deps, operation, environment),
        // Only with allowed origins (cors.ts).
        ...cors.routeOptions(operation.id),
      });
    }
  }
  cors.registerPreflights(
    app,
    ROOTS.map((r) => r.root),
  );
}
