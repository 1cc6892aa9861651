// Answers to requests that fail outside an operation's handler: an address that cannot be routed (a
// URL that is not valid percent-encoding, an over-long path parameter), a body too large, of no known
// media type or cut short, and on a socket Node's parser errors (malformed headers or content length,
// headers over the limit: 431) and its timeouts (408). Each is answered in the body the addressed operation's contract
// gives for the status (a status it does not declare becomes its 400 naming what was wrong), the
// hosted page's HTML under /hosted/, and otherwise the generic problem shape
// `{ type, title, status, detail }` as application/problem+json. Never a 5xx for a client's fault.
import { newId } from '../app/ids.js';
import type { ApiDocument, OperationContract } from '../contract/api-document.js';
import { pathMatcher, pathOf } from './exchange.js';
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
  readonly #match: ReturnType<
    typeof pathMatcher<{ operation: OperationContract<string>; document: ApiDocument<string> }>
  >;

  constructor(served: readonly Served[]) {
    this.#match = pathMatcher(
      served.flatMap(({ document, prefixes }) =>
        prefixes.flatMap((prefix) =>
          [...document.operations.values()].map((operation) => ({
            method: operation.method,
            path: prefix + operation.path,
            value: { operation, document },
          })),
        ),
      ),
    );
  }

  /** The operation a request addresses, with its path parameters as sent (not decoded), or undefined. */
  match(
    method: string,
    url: string,
  ): { operation: OperationContract<string>; document: ApiDocument<string>; raw: Record<string, string> } | undefined {
    const found = this.#match(method, pathOf(url));
    return found && { ...found.value, raw: found.raw };
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

  /** A URL that cannot be routed: a path parameter not valid percent-encoding, or longer than MAX_PARAM_LENGTH. */
  unroutable(method: string, url: string, why: 'encoding' | 'length'): Failure {
    const found = this.match(method, url);
    let field: FailureInput['field'];
    if (found && why === 'encoding') {
      const name = Object.keys(found.raw).find((n) => !decodes(found.raw[n]!));
      if (name) field = { name, message: 'is not valid percent-encoding (UTF-8)' };
    } else if (found) {
      const name = Object.keys(found.raw).find((n) => found.raw[n]!.length > MAX_PARAM_LENGTH);
      if (name) field = { name, message: `must NOT have more than ${MAX_PARAM_LENGTH} characters` };
    }
    return this.answer(
      method,
      url,
      {
        status: 400,
        title: 'Malformed request.',
        detail:
          why === 'length'
            ? `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`
            : 'The URL is not valid percent-encoding.',
        field: field ?? { name: '(path)', message: 'is not a valid URL path' },
      },
      true,
    );
  }
}

/** The statuses of a request that failed before its handler: its body too large, of a media type not taken, unreadable; a bug. */
export type RequestFailureStatus = 400 | 413 | 415 | 500;

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

/** The longest path parameter routed (fastify-adapter.ts gives it to its router; fetch-adapter.ts checks it). */
export const MAX_PARAM_LENGTH = 2048;

const bare = (field: { name: string; message: string }) => {
  const errors: Record<string, string[]> = Object.create(null);
  errors[field.name] = [field.message.slice(0, 1024)];
  return errors;
};

export function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
