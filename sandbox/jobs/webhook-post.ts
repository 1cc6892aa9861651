// One webhook POST on the wire, under the destination policy (app/destinations.ts): the URL's text
// checked, its host resolved before connecting and every address checked, and the request sent to a
// checked address (the URL's host in the Host header, and as the TLS server name), so that a name
// that resolves elsewhere a moment later (DNS rebinding) changes nothing. Redirects are not
// followed; the answer's body is not read. Names are resolved with c-ares (asynchronous: a merchant
// whose DNS never answers holds no thread that other merchants' lookups need); a name DNS does not
// know (/etc/hosts, search domains) falls back to the system resolver, two lookups at a time.
import { lookup, Resolver } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { DestinationPolicy } from '../app/destinations.js';
import { hostOf, isLocalhostName, portOf } from '../domain/destinations.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (the deliverer's default: resolveHost; tests give their own). */
export type Resolve = (host: string, signal: AbortSignal) => Promise<ResolvedAddress[]>;

/** What a POST came to: the receiver's status, or why there was none (`refused`: the policy's, final). */
export type PostResult = { statusCode: number } | { error: string; refused?: true };

/** Connection errors after which the next address of the host is tried. */
const NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);
/** Answers of DNS that mean "not in DNS": the system resolver may still know the name. */
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'EBADNAME']);

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** The system resolver (getaddrinfo, which runs on libuv's thread pool), two lookups at a time. */
function systemLookups(): (host: string, signal: AbortSignal) => Promise<ResolvedAddress[]> {
  let running = 0;
  let waiting: Array<() => void> = [];
  return async (host, signal) => {
    // Every waiter looks again when a lookup ends (one that gave up meanwhile takes no turn).
    while (running >= 2) await Promise.race([new Promise<void>((r) => waiting.push(r)), aborted(signal)]);
    running++;
    try {
      const found = await Promise.race([lookup(host, { all: true }), aborted(signal)]);
      return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } finally {
      running--;
      const woken = waiting;
      waiting = [];
      for (const wake of woken) wake();
    }
  };
}

/** The deliverer's resolver: literal addresses as they are, `localhost` as loopback, names by DNS (see the top). */
export function hostResolver(): Resolve {
  const dns = new Resolver({ timeout: 2_000, tries: 2 });
  const system = systemLookups();
  return async (host, signal) => {
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
    if (isLocalhostName(host))
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    const [v4, v6] = await Promise.race([
      Promise.allSettled([dns.resolve4(host), dns.resolve6(host)]),
      aborted(signal),
    ]);
    const found: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (found.length > 0) return found;
    const failures = [v4, v6].map((r) => (r.status === 'rejected' ? (r.reason as NodeJS.ErrnoException) : undefined));
    if (failures.every((e) => e === undefined || NOT_IN_DNS.has(e.code ?? ''))) return system(host, signal);
    throw failures.find((e) => e && !NOT_IN_DNS.has(e.code ?? ''));
  };
}

/** POSTs `body` to `address` (a checked address of the URL's host): resolves with the status. */
function postTo(
  url: URL,
  to: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<number> {
  const secure = url.protocol === 'https:';
  const host = hostOf(url);
  const options: RequestOptions & { servername?: string } = {
    host: to.address,
    family: to.family,
    port: portOf(url),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
    agent: false,
    signal,
    // TLS: the certificate is checked against the URL's host, not the address connected to.
    servername: secure && isIP(host) === 0 ? host : undefined,
  };
  return new Promise((resolve, reject) => {
    const request: ClientRequest = (secure ? httpsRequest : httpRequest)(options, (response) => {
      resolve(response.statusCode ?? 0);
      response.destroy();
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The poster: one attempt's POST of a delivery, within `timeoutMs`, under `policy`. */
/** Sends one attempt: the URL, the headers (the signature made when the attempt starts) and the body. */
export type WebhookPost = (
  url: string,
  headers: () => Promise<Record<string, string>>,
  body: string,
) => Promise<PostResult>;

export function webhookPoster(options: {
  policy: DestinationPolicy;
  timeoutMs: number;
  resolve?: Resolve;
}): WebhookPost {
  const { policy, timeoutMs } = options;
  const resolve = options.resolve ?? hostResolver();
  const refused = (why: string): PostResult => ({ error: `destination refused: ${why}`, refused: true });
  return async (text, headersOf, body) => {
    const whyNot = policy.refusalOfUrl(text);
    if (whyNot !== undefined) return refused(`${text} ${whyNot}`);
    const url = new URL(text);
    const host = hostOf(url);
    const port = portOf(url);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const addresses = await resolve(host, signal);
      if (addresses.length === 0) return { error: `${host} resolves to no address` };
      for (const a of addresses) {
        const why = policy.refusalOfAddress(a.address, port, host);
        if (why !== undefined) return refused(why);
      }
      const headers = await headersOf();
      for (const [i, address] of addresses.entries()) {
        try {
          return { statusCode: await postTo(url, address, headers, body, signal) };
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? '';
          if (signal.aborted || !NEXT_ADDRESS.has(code) || i === addresses.length - 1) throw err;
        }
      }
      return { error: 'no address answered' };
    } catch (err) {
      if (signal.aborted) return { error: `no answer within ${timeoutMs} ms` };
      const e = err as NodeJS.ErrnoException;
      return { error: e.code ?? e.message };
    }
  };
}
