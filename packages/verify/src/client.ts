// The verifier's HTTP client: it addresses operations of the contract by id, sends the credentials a
// call names (Basic, a bearer token it obtains and renews, the API key), paces itself (--rate),
// stops at --max-requests, waits out a 429 for as long as Retry-After asks, and hands every
// response to the response checks before the caller sees it.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Contract, OperationSpec } from './contract.js';
import { type Exchange, judgeResponse } from './judge.js';
import type { Results } from './results.js';
import type { CheckName } from './types.js';
import type { SchemaValidator } from './validator.js';

export interface Merchant {
  merchantId: string;
  apiKey: string;
}

export type Auth =
  | { scheme: 'basic' | 'bearer' | 'apiKey'; merchant: Merchant }
  | { scheme: 'none' }
  /** Headers as given (wrong credentials, a token from elsewhere). */
  | { scheme: 'raw'; headers: Record<string, string> };

export interface Call {
  operationId: string;
  /** What this request is, for the report (`capture 10.00 of 25.00`). */
  title: string;
  auth: Auth;
  params?: Record<string, string>;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as it is. */
  body?: unknown;
  /** Default application/json when there is a body. */
  contentType?: string;
  /** Another root than the base URL (the live root). */
  root?: string;
}

export class RequestBudgetError extends Error {
  constructor(max: number) {
    super(`the request budget (--max-requests ${max}) is spent`);
    this.name = 'RequestBudgetError';
  }
}

export class NoAnswerError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const inner = (cause as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } })?.cause;
    const reason =
      inner?.code ?? inner?.errors?.[0]?.code ?? inner?.message ?? (cause as Error)?.message ?? String(cause);
    super(`no answer from ${url}: ${reason}`);
    this.name = 'NoAnswerError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  maxRequests: number;
  rate?: number;
  timeoutSeconds: number;
}

const MASKED = new Set(['authorization', 'x-api-key']);
/** A body this large may be refused before it is sent whole (see #exchange). */
const EARLY_ANSWER_BYTES = 64 * 1024;
/** How long such a request waits for an early answer before it sends its body, the first time and when it tries again. */
const EARLY_ANSWER_WAITS_MS = [250, 3000];

interface RawAnswer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  text: string;
}

async function fetchAnswer(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  return { status: response.status, headers: out, text };
}

/**
 * The answer to a request with a large body, by node:http: the headers first, then a moment for an
 * early answer (a 413 a server gives from the announced length alone), and only then the body. A
 * server that refuses a body without reading it may close as soon as it answered; a client still
 * sending would lose that answer to the reset (what fetch does, now and then).
 */
export function http1Answer(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  waitMs = EARLY_ANSWER_WAITS_MS[0]!,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    let answered = false;
    const payload = Buffer.from(body ?? '');
    const request = send(
      url,
      {
        method,
        headers: { ...headers, 'content-length': String(payload.length), connection: 'close' },
        timeout: timeoutMs,
      },
      (response) => {
        answered = true;
        clearTimeout(bodyTimer);
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('error', reject);
        response.on('end', () => {
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          resolve({ status: response.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
          request.destroy();
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.flushHeaders();
    const bodyTimer = setTimeout(() => request.end(payload), waitMs);
  });
}

const RETRY_AFTER_CAP_S = 30;
const RETRIES_ON_429 = 4;

/** A credential header's value with the secret part masked (`Basic ***`, `***`). */
function masked(name: string, value: string): string {
  if (!MASKED.has(name.toLowerCase())) return value;
  const [scheme, secret] = value.split(' ');
  return secret === undefined ? '***' : `${scheme} ***`;
}

/** `curl` for a request, the credentials masked. */
export function curlOf(method: string, url: string, headers: Record<string, string>, body: string | undefined): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl', '-i', '-X', method, quote(url)];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', quote(`${name}: ${masked(name, value)}`));
  if (body !== undefined) parts.push('--data-raw', quote(body));
  return parts.join(' ');
}

/**
 * A large body's answer: a slow server may answer its refusal after the first wait, while the body
 * is already on its way, and lose it to the reset; once more, then, with a longer wait. Only a
 * connection that broke before any answer is tried again (nothing was answered, so nothing was done).
 */
export async function largeBodyAnswer(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<RawAnswer> {
  try {
    return await http1Answer(url, method, headers, body, timeoutMs, EARLY_ANSWER_WAITS_MS[0]);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'EPIPE' && code !== 'ECONNRESET') throw error;
    return http1Answer(url, method, headers, body, timeoutMs, EARLY_ANSWER_WAITS_MS[1]);
  }
}

export class Client {
  readonly #tokens = new Map<string, { token: string; expires: number }>();

  #nextSlot = 0;

  constructor(
    readonly contract: Contract,
    readonly validator: SchemaValidator,
    readonly results: Results,
    readonly options: ClientOptions,
  ) {}

  operation(id: string): OperationSpec {
    const op = this.contract.operations.get(id);
    if (!op) throw new Error(`${id} is no operation of the contract`);
    return op;
  }

  /** Sends a call and returns its answer, judged by the response checks. */
  async send(call: Call): Promise<Exchange> {
    const op = this.operation(call.operationId);
    const root = call.root ?? this.options.baseUrl;
    const url = this.#url(root, op, call);
    const headers = { ...(await this.#credentials(call.auth, root)), ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
      headers['Content-Type'] ??= call.contentType ?? 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.#exchange(op, call.title, url, headers, body);
      this.results.saw(op.id, exchange.status);
      await judgeResponse(this.contract, this.validator, this.results, exchange);
      if (exchange.status !== 429 || attempt >= RETRIES_ON_429) {
        if (exchange.status === 401 && call.auth.scheme === 'bearer' && attempt === 0) {
          // A token may end before its expires_in said: one renewal, then the answer stands.
          this.#tokens.delete(`${root} ${call.auth.merchant.merchantId}`);
        }
        return exchange;
      }
      const wait = Math.min(Number(exchange.headers['retry-after']) || 1, RETRY_AFTER_CAP_S);
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
  }

  /**
   * Sends a call whose lack of an answer is a verdict of `check` on that case alone (recorded as its
   * failure), not the end of the check: undefined then.
   */
  async sendJudged(check: CheckName, call: Call): Promise<Exchange | undefined> {
    try {
      return await this.send(call);
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      this.results.fail(check, {
        operationId: call.operationId,
        title: call.title,
        expected: 'an answer',
        actual: error.message,
      });
      return undefined;
    }
  }

  /** The Authorization header value of a merchant's Basic credentials. */
  static basic(merchant: Merchant): string {
    return `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
  }

  /** A bearer token of the merchant for `root`, from the token operation (kept until it is about to expire). */
  async token(merchant: Merchant, root = this.options.baseUrl): Promise<string | undefined> {
    const key = `${root} ${merchant.merchantId}`;
    const kept = this.#tokens.get(key);
    if (kept && kept.expires > Date.now()) return kept.token;
    const answer = await this.send({
      operationId: 'createAccessToken',
      title: 'a client-credentials token',
      auth: { scheme: 'basic', merchant },
      body: 'grant_type=client_credentials',
      contentType: 'application/x-www-form-urlencoded',
      root,
    });
    const token = answer.json?.access_token;
    if (answer.status !== 200 || typeof token !== 'string') return undefined;
    const lifetime = Number(answer.json?.expires_in) || 60;
    this.#tokens.set(key, { token, expires: Date.now() + Math.max(lifetime - 30, lifetime / 2) * 1000 });
    return token;
  }

  async #credentials(auth: Auth, root: string): Promise<Record<string, string>> {
    switch (auth.scheme) {
      case 'none':
        return {};
      case 'raw':
        return { ...auth.headers };
      case 'basic':
        return { Authorization: Client.basic(auth.merchant) };
      case 'apiKey':
        return { 'X-API-Key': auth.merchant.apiKey };
      case 'bearer': {
        const token = await this.token(auth.merchant, root);
        return token ? { Authorization: `Bearer ${token}` } : {};
      }
    }
  }

  #url(root: string, op: OperationSpec, call: Call): string {
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const value = call.params?.[name];
      if (value === undefined) throw new Error(`${op.id}: no value for the path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams(Object.entries(call.query ?? {}).map(([k, v]) => [k, String(v)])).toString();
    return `${root.replace(/\/$/, '')}${path}${query ? `?${query}` : ''}`;
  }

  async #pace(): Promise<void> {
    if (this.results.requests >= this.options.maxRequests) throw new RequestBudgetError(this.options.maxRequests);
    if (!this.options.rate) return;
    const now = Date.now();
    const slot = Math.max(now, this.#nextSlot);
    this.#nextSlot = slot + 1000 / this.options.rate;
    if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
  }

  async #exchange(
    op: OperationSpec,
    title: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Exchange> {
    await this.#pace();
    const curl = curlOf(op.method, url, headers, body);
    const timeoutMs = this.options.timeoutSeconds * 1000;
    // A server may answer a body it refuses (a 413) before it has read it, and close: fetch then
    // reports the broken upload, not the answer; Node's own client keeps an answer that came.
    let answer: RawAnswer;
    try {
      answer =
        body !== undefined && body.length >= EARLY_ANSWER_BYTES
          ? await largeBodyAnswer(url, op.method, headers, body, timeoutMs)
          : await fetchAnswer(url, op.method, headers, body, timeoutMs);
    } catch (error) {
      throw new NoAnswerError(url, error);
    }
    const { status, headers: responseHeaders, text } = answer;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      operationId: op.id,
      title,
      method: op.method,
      url,
      status,
      headers: responseHeaders,
      text,
      json,
      curl,
    };
  }
}

/** The check that was running when a request could not be made, for the report. */
export type Attribution = { check: CheckName; operationId: string; title: string };
