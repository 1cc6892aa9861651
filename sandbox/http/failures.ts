// Answers to requests that fail outside an operation's handler: fastify's own errors (a URL that is
// not valid percent-encoding, an over-long path parameter, a body too large, of no known media type,
// cut short), Node's parser errors (malformed headers or content length, headers over the limit:
// 431) and its timeouts (408). Each is answered in the body the addressed operation's contract
// gives for the status (a status it does not declare becomes its 400 naming what was wrong), the
// hosted page's HTML under /hosted/, and otherwise the generic problem shape
// `{ type, title, status, detail }` as application/problem+json. Never a 5xx for a client's fault.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '../app/ids.js';
import type { ApiDocument, OperationContract } from '../contract/api-document.js';
import { renderHostedMessage } from './hosted-page.js';
import { BODY_LIMIT_BYTES } from './limits.js';
import { instanceOf, type ProblemInput, problemBody, problemType } from './problems.js';

export interface Failure {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What went wrong: a status, a title and detail, and the field to name in a 400's `errors`. */
export interface FailureInput {
  status: number;
  title: string;
  detail: string;
  /** The field a 400 names (a path parameter, `(body)`, `(request)`), and its message. */
  field?: { name: string; message: string };
}

/** An API document served under prefixes (the contract under its roots, the admin API under /). */
export interface Served {
  document: ApiDocument<string>;
  prefixes: readonly string[];
}

interface Matcher {
  method: string;
  pattern: RegExp;
  names: string[];
  operation: OperationContract<string>;
  document: ApiDocument<string>;
}

/** The hosted page's address: /hosted/{kind}/{environment}/{merchantId}/{id}. */
export const HOSTED_PREFIX = '/hosted/';

/** The path of a URL with the hosted page's id (a bearer capability) left out, for logs. */
export const redactedUrl = (url: string) =>
  url.replace(/^(\/hosted\/[^/?#]*\/[^/?#]*\/[^/?#]*\/)[^/?#]+/, '$1[redacted]');

export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

/** The generic problem body of a status, outside any operation. */
export function genericFailure(input: Omit<FailureInput, 'field'>): Failure {
  return {
    status: input.status,
    headers: { 'content-type': PROBLEM_JSON },
    body: JSON.stringify({
      type: problemType(input.status),
      title: input.title,
      status: input.status,
      detail: input.detail,
    }),
  };
}

const HOSTED_PAGES: Record<number, { title: string; message: string }> = {
  404: {
    title: 'Payment page not found',
    message: 'This payment page does not exist. Check the link the merchant gave you.',
  },
  408: { title: 'Request timed out', message: 'The request took too long to arrive. Go back and try again.' },
  413: { title: 'Form too large', message: 'The form sent was too large. Go back and choose again.' },
  415: {
    title: 'Form not understood',
    message: 'The page could not read the form in that encoding. Go back and choose again.',
  },
  431: { title: 'Request too large', message: 'The request headers were too large. Go back and try again.' },
  400: { title: 'Request not understood', message: 'The request could not be read. Go back and try again.' },
  500: { title: 'Something went wrong', message: 'The page failed to process the request. Try again shortly.' },
};

/** The hosted page's HTML answer to a failure; `unknownAddress`: a malformed address, which names no page (404). */
export function hostedFailure(status: number, unknownAddress = false): Failure {
  const shown = unknownAddress ? 404 : HOSTED_PAGES[status] ? status : 400;
  const page = renderHostedMessage(HOSTED_PAGES[shown]!);
  return { status: shown, headers: page.headers, body: page.html };
}

/** How failures are answered for the documents served. */
export class Failures {
  readonly #matchers: Matcher[];

  /** `maxHeaderBytes`: the limit a 431 names. */
  constructor(
    served: readonly Served[],
    private readonly maxHeaderBytes: number,
  ) {
    this.#matchers = served.flatMap(({ document, prefixes }) =>
      prefixes.flatMap((prefix) =>
        [...document.operations.values()].map((operation) => {
          const names: string[] = [];
          const source = (prefix + operation.path)
            .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
            .replace(/\{([^}]+)\}/g, (_m, name: string) => {
              names.push(name);
              return '([^/]+)';
            });
          return { method: operation.method, pattern: new RegExp(`^${source}$`), names, operation, document };
        }),
      ),
    );
    // Static segments first (`/payments/refunds` before `/payments/{id}`), as the router does.
    this.#matchers.sort((a, b) => a.names.length - b.names.length);
  }

  /** The operation a request addresses, with its path parameters as sent (not decoded), or undefined. */
  match(
    method: string,
    url: string,
  ): { operation: OperationContract<string>; document: ApiDocument<string>; raw: Record<string, string> } | undefined {
    const path = url.split('?')[0]!;
    const lower = method.toLowerCase();
    for (const m of this.#matchers) {
      if (m.method !== lower) continue;
      const groups = m.pattern.exec(path);
      if (!groups) continue;
      const raw: Record<string, string> = Object.create(null);
      m.names.forEach((name, i) => (raw[name] = groups[i + 1]!));
      return { operation: m.operation, document: m.document, raw };
    }
    return undefined;
  }

  /** The answer to a request `method url` that failed with `input` (`unknownAddress`: its URL could not be routed). */
  answer(method: string, url: string, input: FailureInput, unknownAddress = false): Failure {
    if (url.startsWith(HOSTED_PREFIX)) return hostedFailure(input.status, unknownAddress);
    const found = this.match(method, url);
    if (!found) return genericFailure(input);
    const { operation, document } = found;
    const declared = operation.responses.has(input.status);
    // 408, 431 and 5xx are no operation's (nor a field's): the generic shape.
    if (!declared && (input.status === 408 || input.status === 431 || input.status >= 500))
      return genericFailure(input);
    // Another status the operation does not declare (a 413 or 415 of one without a body, a 414): its 400.
    const status = declared ? input.status : 400;
    const field = input.field ?? { name: '(request)', message: input.detail };
    const problem: ProblemInput =
      status === 400
        ? {
            title: input.status === 400 ? input.title : 'One or more validation errors occurred.',
            detail: input.detail,
            errors: bare(field),
          }
        : { title: input.title, detail: input.detail };
    const body = problemBody(document, operation, status, problem, {
      traceId: newId('trace'),
      instance: instanceOf(url),
    });
    const mediaType = operation.responses.get(status)?.mediaType ?? 'application/json';
    return { status, headers: { 'content-type': `${mediaType}; charset=utf-8` }, body: JSON.stringify(body) };
  }

  /** fastify's `frameworkErrors`: a URL it cannot route (bad percent-encoding, an over-long parameter). */
  frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    const found = this.match(request.method, request.url);
    let field: FailureInput['field'];
    if (found && error.code === 'FST_ERR_BAD_URL') {
      const name = Object.keys(found.raw).find((n) => !decodes(found.raw[n]!));
      if (name) field = { name, message: 'is not valid percent-encoding (UTF-8)' };
    } else if (found && error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      const name = Object.keys(found.raw).find((n) => found.raw[n]!.length > MAX_PARAM_LENGTH);
      if (name) field = { name, message: `must NOT have more than ${MAX_PARAM_LENGTH} characters` };
    }
    const failure = this.answer(
      request.method,
      request.url,
      {
        status: 400,
        title: 'Malformed request.',
        detail:
          error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`
            : 'The URL is not valid percent-encoding.',
        field: field ?? { name: '(path)', message: 'is not a valid URL path' },
      },
      true,
    );
    send(reply, failure);
  }

  /**
   * Node's `clientError`: the request could not be parsed (400), its headers are over the limit
   * (431), or it took too long to arrive (408). Written on the socket, which is then closed, unless
   * a response has already started on it.
   */
  clientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
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
              detail: `The request line and headers exceed ${this.maxHeaderBytes} bytes.`,
            }
          : status === 408
            ? { status, title: 'Request timeout.', detail: 'The request did not arrive in time.' }
            : {
                status,
                title: 'Malformed request.',
                detail: `The request could not be parsed (${error.code ?? 'malformed'}).`,
                field: { name: '(request)', message: `could not be parsed: ${error.code ?? 'malformed'}` },
              };
      const failure = line ? this.answer(line.method, line.url, input) : genericFailure(input);
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
}

/** The statuses of a request that failed in fastify before its handler (failureStatus). */
export type RequestFailureStatus = 400 | 413 | 415 | 500;

/** The status a fastify error stands for: 413, 415, 400 for the client's other faults, else 500. */
export function failureStatus(error: FastifyError): RequestFailureStatus {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) return 413;
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) return 415;
  const clientError = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
  return clientError ? 400 : 500;
}

/** The title and detail of a request failure's problem (the contract's operations and the admin API's). */
export function requestFailureText(
  status: RequestFailureStatus,
  requestMediaType: string | undefined,
): { title: string; detail: string } {
  switch (status) {
    case 413:
      return { title: 'Payload too large.', detail: `The body exceeds ${BODY_LIMIT_BYTES} bytes.` };
    case 415:
      return {
        title: 'Unsupported media type.',
        detail: `Send the body as ${requestMediaType ?? 'application/json'}.`,
      };
    case 400:
      return { title: 'Malformed request.', detail: 'The request body could not be read.' };
    case 500:
      return { title: 'Internal server error.', detail: 'The sandbox failed to process the request.' };
  }
}

/** find-my-way's limit on a path parameter (routerOptions.maxParamLength in app.ts). */
export const MAX_PARAM_LENGTH = 2048;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
};

const bare = (field: { name: string; message: string }) => {
  const errors: Record<string, string[]> = Object.create(null);
  errors[field.name] = [field.message.slice(0, 1024)];
  return errors;
};

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** `GET /path HTTP/1.1` at the start of what the parser was given, or undefined. */
function requestLine(raw: unknown): { method: string; url: string } | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const match = /^([A-Z]{1,16}) (\/[^ \r\n]{0,8192}) HTTP\/1\.[01]\r?\n/.exec(raw.subarray(0, 8300).toString('latin1'));
  return match ? { method: match[1]!, url: match[2]! } : undefined;
}

export function send(reply: FastifyReply, failure: Failure): FastifyReply {
  return reply.code(failure.status).headers(failure.headers).send(failure.body);
}
