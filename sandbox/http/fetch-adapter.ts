// The sandbox without a socket: a web Request carried to the core (core.ts) and its answer as a web
// Response, for the in-process sandbox (packages/sandbox: createSandbox, Mock Service Worker). What a
// server's router and body parsers do before the core sees a request is done here as fastify does it
// (fastify-adapter.ts): the path decoded as find-my-way decodes it, a parameter's length and
// encoding checked, a body of a media type the route does not take refused (415), a larger one than
// it takes refused (413). No Node API: it runs in a browser page as well.
import { answer, type Route, type SandboxCore } from './core.js';
import { type ExchangeResponse, parseQuery, pathOf, type RequestHead } from './exchange.js';
import { decodes, MAX_PARAM_LENGTH } from './failures.js';

/** `fetch` answered by the core: the same routes, rules and answers as the sandbox on a socket. */
export function fetchHandler(core: SandboxCore): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const target = `${url.pathname}${url.search}`;
    const method = request.method.toUpperCase();
    const response = await exchange(core, request, method, target);
    // A HEAD is answered as its GET, without the body.
    const empty =
      method === 'HEAD' || response.status === 204 || response.status === 304 || response.body === undefined;
    return new Response(empty ? null : response.body, { status: response.status, headers: response.headers });
  };
}

async function exchange(
  core: SandboxCore,
  request: Request,
  method: string,
  target: string,
): Promise<ExchangeResponse> {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of request.headers) headers[name] = value;
  const head = (params: Record<string, string>): RequestHead => ({
    method,
    url: target,
    headers,
    params,
    query: parseQuery(target),
  });
  const routed = route(core, method === 'HEAD' ? 'GET' : method, target);
  if ('unroutable' in routed) return core.failures.unroutable(method, target, routed.unroutable);
  if (!routed.route) return core.notFound(head({}));
  const { route: found, params } = routed;
  const requestHead = head(params);
  const before = await found.before(requestHead);
  if ('answer' in before) return before.answer;
  const body = await bodyOf(found, request, method);
  if (typeof body === 'number') return found.fail(requestHead, body, '');
  return answer(found, { ...requestHead, body, signal: request.signal }, before.pass);
}

/**
 * The route of `method` at `target` and its parameters decoded, as find-my-way finds them: the path
 * decoded but for the characters that delimit (`%2F` stays in its segment), each parameter then
 * decoded whole; a parameter longer than MAX_PARAM_LENGTH or not valid percent-encoding is no route.
 */
function route(
  core: SandboxCore,
  method: string,
  target: string,
): { route?: Route; params: Record<string, string> } | { unroutable: 'encoding' | 'length' } {
  let path: string;
  try {
    path = decodeURI(pathOf(target));
  } catch {
    return { unroutable: 'encoding' };
  }
  const found = core.match(method, path);
  if (!found) return { params: {} };
  const params: Record<string, string> = Object.create(null);
  for (const [name, raw] of Object.entries(found.raw)) {
    if (raw.length > MAX_PARAM_LENGTH) return { unroutable: 'length' };
    if (!decodes(raw)) return { unroutable: 'encoding' };
    params[name] = decodeURIComponent(raw);
  }
  return { route: found.route, params };
}

/** The request's body as the route takes it (text or bytes), undefined without one, or the status refusing it (413, 415). */
async function bodyOf(
  found: Route,
  request: Request,
  method: string,
): Promise<string | Uint8Array | undefined | 413 | 415> {
  // A server reads no body of a GET or HEAD.
  if (method === 'GET' || method === 'HEAD' || request.body === null) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength === 0) return undefined;
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  const as =
    mediaType !== undefined && Object.hasOwn(found.body.mediaTypes, mediaType)
      ? found.body.mediaTypes[mediaType]
      : undefined;
  if (as === undefined) return 415;
  if (bytes.byteLength > found.body.limitBytes) return 413;
  return as === 'text' ? new TextDecoder().decode(bytes) : bytes;
}
