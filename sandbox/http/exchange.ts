// A request and its answer as the sandbox's core sees them, whatever carried them: a socket (the
// fastify adapter, fastify-adapter.ts) or a web Request handed over in process (fetch-adapter.ts).
// Everything between those two shapes (routing, credentials, input, the operation, the answer) is
// written once, against these types, in core.ts and the modules it routes to.

/** Header names lower-case; a header sent more than once joined with `, ` as HTTP allows. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What a route's work needs of a request before its body is read. */
export interface RequestHead {
  method: string;
  /** The path and query as sent (percent-encoded). */
  url: string;
  headers: RequestHeaders;
  /** The route's path parameters, decoded. */
  params: Readonly<Record<string, string>>;
  /** The query string's parameters, decoded (a repeated name as an array). */
  query: Readonly<Record<string, string | string[]>>;
}

/** A request with its body read: text for the JSON and form media types, bytes for multipart. */
export interface ExchangeRequest extends RequestHead {
  body: string | Uint8Array | undefined;
  /** Aborts when the client goes away before the answer (a long poll stops waiting). */
  signal: AbortSignal;
}

/** An answer: the status, its headers (lower-case names) and the body, already serialized. */
export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/** A header's value as one string (a repeated header joined), or undefined. */
export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The path of a request's URL, without its query. */
export const pathOf = (url: string) => {
  const end = url.indexOf('?');
  return end === -1 ? url : url.slice(0, end);
};

/** A URL's query parameters (parseQueryString). */
export function parseQuery(url: string): Record<string, string | string[]> {
  const start = url.indexOf('?');
  return parseQueryString(start === -1 ? '' : url.slice(start + 1));
}

/** The query parameters read of one URL; the rest are left unread (Node's querystring, fastify's default, reads as many). */
export const MAX_QUERY_PARAMETERS = 1000;

/**
 * A query string's parameters, decoded as a server decodes them (`+` a space; a repeated name an
 * array), the first MAX_QUERY_PARAMETERS of them: a URL of thousands is never checked one by one.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null);
  let read = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++read > MAX_QUERY_PARAMETERS) break;
    const present = query[name];
    query[name] = present === undefined ? value : Array.isArray(present) ? [...present, value] : [present, value];
  }
  return query;
}

/** An entry of a pathMatcher: a method, a path template (`{name}` a parameter) and what it stands for. */
export interface PathEntry<T> {
  method: string;
  path: string;
  value: T;
}

/**
 * The entry of a method and a path, with its parameters as they stand in the path (not decoded):
 * static segments before parameters (`/payments/refunds` before `/payments/{id}`), as a router
 * orders them; a parameter is one segment; methods compared whatever their case.
 */
export function pathMatcher<T>(
  entries: readonly PathEntry<T>[],
): (method: string, path: string) => { value: T; raw: Record<string, string> } | undefined {
  const compiled = entries.map(({ method, path, value }) => {
    const names: string[] = [];
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { method: method.toUpperCase(), names, pattern: new RegExp(`^${source}$`), value };
  });
  compiled.sort((a, b) => a.names.length - b.names.length);
  return (method, path) => {
    const wanted = method.toUpperCase();
    for (const { method: own, names, pattern, value } of compiled) {
      if (own !== wanted) continue;
      const groups = pattern.exec(path);
      if (!groups) continue;
      const raw: Record<string, string> = Object.create(null);
      names.forEach((name, i) => (raw[name] = groups[i + 1]!));
      return { value, raw };
    }
    return undefined;
  };
}
