// The sandbox's request pipeline without a framework: every route it answers (the contract's
// operations under both roots, their CORS preflights, the hosted pages, the admin API), each as
// work before the body is read and work with it, and the answers outside a route (404, a URL that
// cannot be routed, a body refused). Two adapters carry requests to it: fastify-adapter.ts from a
// socket, fetch-adapter.ts from a web Request in process (the in-process sandbox, MSW).
import { type DestinationPolicy, destinationPolicy } from '../app/destinations.js';
import type { SandboxSecrets } from '../app/secrets.js';
import type { Contract } from '../contract/contract.js';
import type { Environment, Scope } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { ADMIN_PREFIX, type AdminOperationId } from './admin/document.js';
import { type AdminApi, type AdminDeps, adminApi } from './admin.js';
import { createAuthenticator } from './auth.js';
import { sandboxCors } from './cors.js';
import { type ExchangeRequest, type ExchangeResponse, pathMatcher, pathOf, type RequestHead } from './exchange.js';
import {
  Failures,
  genericFailure,
  hostedFailure,
  type RequestFailureStatus,
  redactedUrl,
  requestFailureText,
} from './failures.js';
import { createHandlers } from './handlers/index.js';
import { HOSTED_ROUTE, hostedPages } from './hosted.js';
import { BODY_LIMIT_BYTES, HOSTED_FORM_LIMIT_BYTES } from './limits.js';
import { authenticateFirst, operationHandler, type PipelineDeps } from './pipeline.js';

/** The roots and the environment each stands for. Test requests never touch live data. */
export const ROOTS: ReadonlyArray<{ root: string; environment: Environment }> = [
  { root: '/api/v2', environment: 'test' },
  { root: '/live/api/v2', environment: 'live' },
];

/** The bodies a route takes: its media types (read as text, or as bytes) and their largest size. */
export interface BodyPolicy {
  name: 'api' | 'form';
  mediaTypes: Readonly<Record<string, 'text' | 'bytes'>>;
  limitBytes: number;
}

/** The contract's operations and the admin API: JSON and the token endpoint's form, as text (the pipeline parses them). */
export const API_BODIES: BodyPolicy = {
  name: 'api',
  mediaTypes: { 'application/json': 'text', 'application/x-www-form-urlencoded': 'text' },
  limitBytes: BODY_LIMIT_BYTES,
};
/** The hosted page: the form encodings a browser sends. */
export const FORM_BODIES: BodyPolicy = {
  name: 'form',
  mediaTypes: { 'application/x-www-form-urlencoded': 'text', 'multipart/form-data': 'bytes' },
  limitBytes: HOSTED_FORM_LIMIT_BYTES,
};

/** What a route's work before the body gives: an answer (the request ends there), or what its handler takes. */
export type BeforeBody = { answer: ExchangeResponse } | { pass: unknown };

export interface Route {
  /** Upper case. */
  method: string;
  /** The path template, `{name}` for a parameter. */
  path: string;
  /** The operation it serves (a CORS preflight: none). */
  operationId?: string;
  body: BodyPolicy;
  /** Runs before the body is read. */
  before(request: RequestHead): Promise<BeforeBody>;
  /** The answer, given the body and what `before` passed on. A throw is answered by `fail` (500). */
  handle(request: ExchangeRequest, pass: unknown): Promise<ExchangeResponse>;
  /** The answer to a request of this route that failed outside its handler: its body refused (413, 415, 400) or a bug (500). */
  fail(request: RequestHead, status: RequestFailureStatus, message: string): ExchangeResponse;
}

export interface SandboxCoreOptions {
  contract: Contract;
  store: Store;
  /** The address links point at (hosted pages), e.g. `http://127.0.0.1:4020` (known once the server listens). */
  publicUrl: () => string;
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
}

export interface SandboxCore {
  readonly routes: readonly Route[];
  /** The routes' matcher: the route of a method and a path (percent-decoded as a router decodes it), with its parameters as they stand in it. */
  match(method: string, path: string): { route: Route; raw: Record<string, string> } | undefined;
  /** A request no route takes. */
  notFound(request: RequestHead): ExchangeResponse;
  /** Answers to failures outside a route (an unroutable URL; on a socket, a malformed request). */
  readonly failures: Failures;
}

export function createSandboxCore(options: SandboxCoreOptions): SandboxCore {
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
  const admin = options.admin
    ? adminApi({
        ...options.admin,
        store,
        onWebhookQueued: () => options.onWebhookQueued?.(),
        forgetCredentials: (merchantId) => auth.forget(merchantId),
        examples: { examples: contract.examples, tables: contract.tables, fingerprint: deps.secrets.fingerprint },
        // The listener operations take a merchant's Basic credentials, checked as the merchant roots check them.
        authenticateMerchant: (headers) => auth.authenticate(['basicAuth'], headers, 'test'),
      })
    : undefined;
  const failures = new Failures([
    { document: contract, prefixes: ROOTS.map((r) => r.root) },
    ...(admin ? [{ document: admin.document, prefixes: [''] }] : []),
  ]);

  const notFound = (request: RequestHead): ExchangeResponse => {
    const path = pathOf(request.url);
    if (admin && (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`))) return admin.notFound(request);
    return genericFailure({
      status: 404,
      title: 'No such operation.',
      detail: `${request.method} ${redactedUrl(path)} is not an operation of the contract under ${ROOTS.map((r) => r.root).join(' or ')}.`,
    });
  };
  const routes: Route[] = [
    ...operationRoutes(deps, failures, notFound, options),
    ...hostedRoutes(deps, () => options.onWebhookQueued?.()),
    ...(admin ? adminRoutes(admin) : []),
  ];
  const matcher = pathMatcher(routes.map((route) => ({ method: route.method, path: route.path, value: route })));
  const match = (method: string, path: string) => {
    const found = matcher(method, path);
    return found && { route: found.value, raw: found.raw };
  };
  return { routes, match, failures, notFound };
}

const passed = (pass: unknown = undefined): Promise<BeforeBody> => Promise.resolve({ pass });
const logFailure = (request: RequestHead, error: unknown) =>
  console.error(`sandbox: ${request.method} ${redactedUrl(request.url)} failed:`, error);

/** Every operation of the contract under each root, and the CORS preflights of those a browser may call. */
function operationRoutes(
  deps: PipelineDeps,
  failures: Failures,
  notFound: (request: RequestHead) => ExchangeResponse,
  options: SandboxCoreOptions,
): Route[] {
  const cors = sandboxCors(deps.contract.document, options.corsOrigins ?? [], options.consoleOrigins ?? []);
  const failure = (request: RequestHead, status: RequestFailureStatus, message: string, mediaType?: string) =>
    failures.answer(request.method, request.url, {
      status,
      ...requestFailureText(status, mediaType),
      field: {
        name: '(body)',
        message:
          status === 413
            ? `must not be larger than ${BODY_LIMIT_BYTES} bytes`
            : status === 415
              ? 'is of a media type the operation does not take'
              : `could not be read: ${message}`,
      },
    });
  const routes: Route[] = [];
  for (const { root, environment } of ROOTS) {
    for (const operation of deps.contract.operations.values()) {
      const before = authenticateFirst(deps, operation, environment);
      const handle = operationHandler(deps, operation, environment);
      const route: Route = {
        method: operation.method.toUpperCase(),
        path: root + operation.path,
        operationId: operation.id,
        body: API_BODIES,
        before,
        handle: (request, pass) => handle(request, pass as Parameters<typeof handle>[1]),
        fail: (request, status, message) => failure(request, status, message, operation.requestMediaType),
      };
      // Only with allowed origins: each answer of the route carries the rule's headers.
      routes.push(
        cors.opens(operation.id)
          ? withCors(route, (request, response) => cors.withHeaders(operation.id, request, response))
          : route,
      );
    }
    for (const path of cors.preflightPaths) {
      routes.push({
        method: 'OPTIONS',
        path: root + path,
        body: API_BODIES,
        before: () => passed(),
        // Not a preflight (no Origin, no requested method): as if there were no route.
        handle: async (request) => cors.preflight(root, request) ?? notFound(request),
        fail: (request, status, message) => failure(request, status, message),
      });
    }
  }
  return routes;
}

function withCors(route: Route, add: (request: RequestHead, response: ExchangeResponse) => ExchangeResponse): Route {
  return {
    ...route,
    before: async (request) => {
      const result = await route.before(request);
      return 'answer' in result ? { answer: add(request, result.answer) } : result;
    },
    handle: async (request, pass) => add(request, await route.handle(request, pass)),
    fail: (request, status, message) => add(request, route.fail(request, status, message)),
  };
}

/** The hosted page's GET and POST; every failure an HTML page of its own. */
function hostedRoutes(deps: PipelineDeps, onDelivery: () => void): Route[] {
  const pages = hostedPages({
    ...deps,
    tables: deps.contract.tables,
    fingerprint: deps.secrets.fingerprint,
    onDelivery,
  });
  const fail = (_request: RequestHead, status: RequestFailureStatus) => hostedFailure(status);
  return [
    {
      method: 'GET',
      path: HOSTED_ROUTE,
      body: FORM_BODIES,
      before: () => passed(),
      handle: (r) => pages.show(r),
      fail,
    },
    {
      method: 'POST',
      path: HOSTED_ROUTE,
      body: FORM_BODIES,
      before: () => passed(),
      handle: (r) => pages.choose(r),
      fail,
    },
  ];
}

/** Every operation of the admin document (its paths start with ADMIN_PREFIX). */
function adminRoutes(admin: AdminApi): Route[] {
  return [...admin.document.operations.values()].map((op) => ({
    method: op.method.toUpperCase(),
    path: op.path,
    operationId: op.id,
    body: API_BODIES,
    before: () => passed(),
    handle: (request) => admin.handle(op, request),
    fail: (request, status, message) =>
      admin.failure(admin.document.operations.get(op.id as AdminOperationId), request, status, message),
  }));
}

/**
 * The answer of `route` to `request`, a throw answered as the route's 500 (and logged): what both
 * adapters call once the body is read.
 */
export async function answer(route: Route, request: ExchangeRequest, pass: unknown): Promise<ExchangeResponse> {
  try {
    return await route.handle(request, pass);
  } catch (error) {
    logFailure(request, error);
    return route.fail(request, 500, (error as Error).message ?? String(error));
  }
}
