// The one CORS rule of the mock (`npm run mock`, mock/front.ts) and the sandbox
// (`npm run sandbox`, sandbox/http/cors.ts), read off the contract:
//
// - Closed by default: no `Access-Control-Allow-Origin` for anyone, and no preflight answered.
// - The origins named with `--cors-origin` (repeatable) or PAYMENT_API_CORS_ORIGINS (comma-separated)
//   may call the operations a browser may call, and only those: the operations whose security
//   accepts the bearer token alone (every alternative names HTTP bearer schemes only). The others
//   take merchant credentials (Basic, the API key), which belong on servers.
// - Preflights are answered on those operations' exact paths, for their methods and the headers
//   they need (Authorization, Content-Type when they take a body, their header parameters); their
//   responses expose the headers the contract declares for them.
// - Docs console mode, an explicit opt-in for a developer's machine: the origins named with
//   `--docs-console-origin` (the page of the API reference's console) may call every operation,
//   with any of its credentials (Basic, bearer, the API key), the same way. Never implied by
//   `--cors-origin`, never on by default.
//
// Plain TypeScript with no runtime imports (no `node:`), like the walker it reads the contract with.
import { definedMembers } from '../defined.js';
import { deref, isObject, type JsonObject, type OpenAPI3, operations, parametersOf, securityOf } from './walker.js';

/** The environment variable both servers read: origins separated by commas. */
export const CORS_ORIGINS_ENV = 'PAYMENT_API_CORS_ORIGINS';

/** The command-line option both servers take, once per origin. */
export const CORS_ORIGIN_OPTION = 'cors-origin';

/** The option of docs console mode: an origin whose pages may call every operation. */
export const CONSOLE_ORIGIN_OPTION = 'docs-console-origin';

/** How long a browser may cache a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** An origin that is not one, `*`, a list that cannot be read: the message says what is wrong. */
export class CorsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorsConfigError';
  }
}

// ---------------------------------------------------------------------------------------------
// Origins

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** `scheme://host[:port]`: http or https, a DNS name, an IPv4 address or a bracketed IPv6 address. */
const ORIGIN = new RegExp(`^(https?)://(\\[[0-9A-Fa-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`, 'i');
const EXAMPLE = 'e.g. http://localhost:5173';

/**
 * One origin as browsers send it in `Origin`: `http(s)://host[:port]`, lower case, without the
 * scheme's default port. Anything else (a path, even `/`, a query, credentials, another scheme,
 * `*`, `null`) throws CorsConfigError naming the problem.
 */
export function parseOrigin(text: string): string {
  const value = text.trim();
  const fail = (why: string) => new CorsConfigError(`${value} is not an origin: ${why}; ${EXAMPLE}`);
  if (value === '') throw new CorsConfigError(`an empty origin: name one as scheme://host[:port], ${EXAMPLE}`);
  if (value.includes('*'))
    throw new CorsConfigError(
      `${value}: wildcards are not accepted; name each origin that may call from a browser, ${EXAMPLE}`,
    );
  if (value.includes(',')) throw fail(`one origin at a time (commas separate origins in ${CORS_ORIGINS_ENV} only)`);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) throw fail('it has no scheme (http:// or https://)');
  const match = ORIGIN.exec(value);
  if (match) {
    const port = match[3];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
      throw fail(`port ${port} is not between 1 and 65535`);
    try {
      return new URL(value).origin;
    } catch {
      // a host the URL parser refuses (an IPv6 address that is not one): said below
    }
  }
  const scheme = value.slice(0, value.indexOf(':')).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw fail(`only http and https origins can be allowed, not ${scheme}`);
  const rest = value.slice(value.indexOf('://') + 3);
  const cut = rest.search(/[/?#]/);
  const authority = cut === -1 ? rest : rest.slice(0, cut);
  const tail = cut === -1 ? '' : rest.slice(cut);
  if (authority.includes('@')) throw fail('an origin has no user or password');
  if (tail.startsWith('/')) throw fail(`an origin has no path (drop ${tail})`);
  if (tail !== '') throw fail(`an origin has no query or fragment (drop ${tail})`);
  throw fail('it is not scheme://host[:port]');
}

/** Each origin parsed (see parseOrigin), duplicates dropped, in the order given. */
export function parseOrigins(values: readonly string[]): string[] {
  return [...new Set(values.map(parseOrigin))];
}

/**
 * The allowed origins of a server: the `--cors-origin` values when there are any, else
 * PAYMENT_API_CORS_ORIGINS (comma-separated; blanks around and between commas ignored), else none
 * (closed). Throws CorsConfigError naming the option or the variable that holds a bad value.
 */
export function corsOriginsFrom(options: readonly string[] | undefined, env: string | undefined): string[] {
  const [source, values] =
    options && options.length > 0
      ? [`--${CORS_ORIGIN_OPTION}`, options]
      : [CORS_ORIGINS_ENV, (env ?? '').split(',').filter((v) => v.trim() !== '')];
  try {
    return parseOrigins(values);
  } catch (err) {
    if (err instanceof CorsConfigError) throw new CorsConfigError(`${source}: ${err.message}`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// The operations a browser may call

export interface BrowserOperation {
  operationId: string;
  /** Upper case, as in `Access-Control-Request-Method`. */
  method: string;
  /** The contract's path template, `/payment-intents/{id}/confirm`. */
  path: string;
  /** The request headers it needs, as the contract spells them: Authorization, Content-Type, its header parameters. */
  allowedHeaders: string[];
  /** The response headers the contract declares for it (any status), for `Access-Control-Expose-Headers`. */
  exposedHeaders: string[];
}

/** Whether a security scheme is HTTP bearer (the short-lived token an app holds). */
function isBearerScheme(document: JsonObject, name: string): boolean {
  const schemes = isObject(document.components) ? document.components.securitySchemes : undefined;
  const scheme = isObject(schemes) && schemes[name] !== undefined ? deref<JsonObject>(document, schemes[name]) : {};
  return scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
}

/** Header names without case duplicates, in first-seen order. */
function uniqueHeaders(names: Iterable<string>): string[] {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()];
}

/** Headers OpenAPI ignores as parameters and response headers: the transport's own. */
const TRANSPORT_HEADERS = new Set(['accept', 'authorization', 'content-type']);

/** The headers of API key schemes sent in a header (`X-API-Key`). */
function apiKeyHeaders(document: JsonObject): string[] {
  const schemes = isObject(document.components) ? document.components.securitySchemes : undefined;
  if (!isObject(schemes)) return [];
  return Object.values(schemes)
    .map((raw) => deref<JsonObject>(document, raw))
    .filter((scheme) => scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string')
    .map((scheme) => String(scheme.name));
}

/** An operation as CORS sees it, with `credentialHeaders` among the headers it may be sent. */
function corsOperation(
  document: OpenAPI3 | JsonObject,
  entry: ReturnType<typeof operations>[number],
  credentialHeaders: readonly string[],
): BrowserOperation {
  const headerParameters = parametersOf(document, entry)
    .filter((p) => p.in === 'header' && !TRANSPORT_HEADERS.has(p.name.toLowerCase()))
    .map((p) => p.name);
  const responses = isObject(entry.operation.responses) ? Object.values(entry.operation.responses) : [];
  const responseHeaders = responses.flatMap((raw) => {
    const response = deref<JsonObject>(document, raw);
    return isObject(response.headers)
      ? Object.keys(response.headers).filter((h) => !TRANSPORT_HEADERS.has(h.toLowerCase()))
      : [];
  });
  return {
    operationId: String(entry.operation.operationId),
    method: entry.method.toUpperCase(),
    path: entry.key,
    allowedHeaders: uniqueHeaders([
      ...credentialHeaders,
      ...(entry.operation.requestBody ? ['Content-Type'] : []),
      ...headerParameters,
    ]),
    exposedHeaders: uniqueHeaders(responseHeaders),
  };
}

/**
 * The operations of `paths` whose security accepts the bearer token alone: at least one
 * alternative, and every alternative made of HTTP bearer schemes only (an operation that also
 * accepts Basic or an API key is a server's, and so is one that needs no credentials).
 */
export function browserOperations(document: OpenAPI3 | JsonObject): BrowserOperation[] {
  const doc = document as JsonObject;
  return operations(document, ['paths'])
    .filter((entry) => {
      const alternatives = securityOf(document, entry);
      return (
        alternatives.length > 0 &&
        alternatives.every((req) => {
          const names = Object.keys(req);
          return names.length > 0 && names.every((name) => isBearerScheme(doc, name));
        })
      );
    })
    .map((entry) => corsOperation(document, entry, ['Authorization']));
}

/**
 * Every operation of `paths`, as docs console mode opens them: Authorization and the API key
 * header besides each operation's own headers.
 */
export function consoleOperations(document: OpenAPI3 | JsonObject): BrowserOperation[] {
  const credentials = ['Authorization', ...apiKeyHeaders(document as JsonObject)];
  return operations(document, ['paths']).map((entry) => corsOperation(document, entry, credentials));
}

// ---------------------------------------------------------------------------------------------
// The rule

/** A header of the request, as the server read it (undefined when absent). */
export interface PreflightRequest {
  origin: string | undefined;
  /** `Access-Control-Request-Method` */
  method: string | undefined;
  /** `Access-Control-Request-Headers` */
  headers: string | undefined;
}

export type PreflightAnswer =
  /** Not a preflight this rule answers: the server answers as it would without CORS (404, …). */
  | { verdict: 'none' }
  | { verdict: 'allow'; status: 204; headers: Record<string, string> }
  /** A preflight for a browser operation that the rule refuses: 403, no Access-Control-Allow-* header, the reason in a problem body. */
  | { verdict: 'refuse'; status: 403; headers: Record<string, string>; body: string; reason: string };

export interface CorsRule {
  /** The allowed origins, normalised; empty: closed. */
  readonly origins: readonly string[];
  /** The operations a browser may call (whether any origin is allowed or not). */
  readonly operations: readonly BrowserOperation[];
  /** The origins of docs console mode, normalised; empty: off. */
  readonly consoleOrigins: readonly string[];
  /** The operations a docs console origin may call: every one. */
  readonly consoleOperations: readonly BrowserOperation[];
  /** The operationId a request (method, path after the server's root) addresses, or undefined. */
  operationAt(method: string, path: string): string | undefined;
  /** The answer to an `OPTIONS` request to `path` (after the server's root). */
  preflight(path: string, request: PreflightRequest): PreflightAnswer;
  /** The CORS headers of a response of `operationId` to a request from `origin` (none for a server's operation). */
  responseHeaders(operationId: string | undefined, origin: string | undefined): Record<string, string>;
}

export interface CorsRuleOptions {
  /** Request headers a browser may send besides the operations' own (the mock's `Prefer`). */
  allowedHeaders?: readonly string[];
  /** Response headers a browser may read besides the operations' own (the mock's `sl-violations`). */
  exposedHeaders?: readonly string[];
  /**
   * Docs console mode: origins whose pages (the API reference's console, on a developer's machine)
   * may call every operation with merchant credentials. Off unless given.
   */
  consoleOrigins?: readonly string[];
}

interface Matcher {
  operationId: string;
  method: string;
  pattern: RegExp;
  params: number;
}

/**
 * Access-Control-Expose-Headers for the headers an operation's responses declare, absent when they
 * declare none: every member of a header record is sent.
 */
const exposeHeaders = (names: readonly string[]) =>
  definedMembers({ 'access-control-expose-headers': names.length > 0 ? names.join(', ') : undefined });

const VARY_PREFLIGHT = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/**
 * The rule for a contract and the allowed origins (each checked with parseOrigin: a bad one
 * throws CorsConfigError). The servers apply it as it answers: the rule holds every decision.
 */
export function corsRule(
  document: OpenAPI3 | JsonObject,
  origins: readonly string[],
  options: CorsRuleOptions = {},
): CorsRule {
  const allowed = new Set(parseOrigins(origins));
  const browser = browserOperations(document).map((op) => ({
    ...op,
    allowedHeaders: uniqueHeaders([...op.allowedHeaders, ...(options.allowedHeaders ?? [])]),
    exposedHeaders: uniqueHeaders([...op.exposedHeaders, ...(options.exposedHeaders ?? [])]),
  }));
  const byId = new Map(browser.map((op) => [op.operationId, op]));
  const consoleAllowed = new Set(parseOrigins(options.consoleOrigins ?? []));
  const consoleOps = (consoleAllowed.size > 0 ? consoleOperations(document) : []).map((op) => ({
    ...op,
    allowedHeaders: uniqueHeaders([...op.allowedHeaders, ...(options.allowedHeaders ?? [])]),
    exposedHeaders: uniqueHeaders([...op.exposedHeaders, ...(options.exposedHeaders ?? [])]),
  }));
  const consoleById = new Map(consoleOps.map((op) => [op.operationId, op]));

  // Static segments win over parameters (`/payments/refunds` before `/payments/{id}`), as routers do.
  const templatePattern = (path: string) =>
    new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  const matchers: Matcher[] = operations(document, ['paths'])
    .map((entry) => ({
      operationId: String(entry.operation.operationId),
      method: entry.method.toUpperCase(),
      pattern: templatePattern(entry.key),
      params: (entry.key.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  const operationAt = (method: string, path: string) =>
    matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(path))?.operationId;

  const refuse = (reason: string): PreflightAnswer => ({
    verdict: 'refuse',
    status: 403,
    headers: { vary: VARY_PREFLIGHT, 'content-type': 'application/problem+json' },
    body: JSON.stringify({ title: 'CORS preflight refused.', status: 403, detail: reason }),
    reason,
  });

  return {
    origins: [...allowed],
    operations: browser,
    consoleOrigins: [...consoleAllowed],
    consoleOperations: consoleOps,
    operationAt,
    preflight(path, request) {
      if (!request.origin || !request.method) return { verdict: 'none' };
      const fromConsole = consoleAllowed.has(request.origin);
      if (allowed.size === 0 && !fromConsole) return { verdict: 'none' };
      const candidates = fromConsole ? consoleOps : browser;
      const index = fromConsole ? consoleById : byId;
      const here = candidates.filter((op) => templatePattern(op.path).test(path));
      if (here.length === 0) return { verdict: 'none' };
      if (!fromConsole && !allowed.has(request.origin))
        return refuse(
          `the origin ${request.origin} may not call this API from a browser: allow it with --${CORS_ORIGIN_OPTION} or ${CORS_ORIGINS_ENV}`,
        );
      const method = request.method.toUpperCase();
      const op = index.get(operationAt(method, path) ?? '');
      if (!op || !here.includes(op))
        return refuse(
          `${method} ${path} is not an operation a browser may call (${here.map((o) => o.method).join(', ')} is)`,
        );
      const permitted = new Set(op.allowedHeaders.map((h) => h.toLowerCase()));
      const requested = (request.headers ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      const refused = requested.filter((h) => !permitted.has(h));
      if (refused.length > 0)
        return refuse(
          `${op.operationId} does not take the request header${refused.length > 1 ? 's' : ''} ${refused.join(', ')} from a browser (it takes ${op.allowedHeaders.join(', ')})`,
        );
      return {
        verdict: 'allow',
        status: 204,
        headers: {
          'access-control-allow-origin': request.origin,
          'access-control-allow-methods': op.method,
          'access-control-allow-headers': op.allowedHeaders.join(', '),
          'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
          vary: VARY_PREFLIGHT,
        },
      };
    },
    responseHeaders(operationId, origin): Record<string, string> {
      const consoleOp = operationId === undefined ? undefined : consoleById.get(operationId);
      if (consoleOp && origin && consoleAllowed.has(origin))
        return {
          'access-control-allow-origin': origin,
          ...exposeHeaders(consoleOp.exposedHeaders),
          vary: 'Origin',
        };
      const op = operationId === undefined ? undefined : byId.get(operationId);
      if (consoleOp && !op) return { vary: 'Origin' };
      if (allowed.size === 0 || !op) return {};
      if (!origin || !allowed.has(origin)) return { vary: 'Origin' };
      return {
        'access-control-allow-origin': origin,
        ...exposeHeaders(op.exposedHeaders),
        vary: 'Origin',
      };
    },
  };
}

/** `Vary` with `value` added to what it already holds (case-insensitively, no duplicates). */
export function mergeVary(existing: string | undefined, value: string): string {
  const names = [...(existing ?? '').split(','), ...value.split(',')].map((v) => v.trim()).filter(Boolean);
  return uniqueHeaders(names).join(', ');
}
