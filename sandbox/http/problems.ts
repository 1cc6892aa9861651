// Error bodies in the contract's shapes. Which shape an operation's status takes is read off the
// response schema (see BodyShape in contract.ts), or off its first alternative when it has several
// (ResponseInfo.builtPointer); only the fields that schema declares are sent.
import { propertiesOf } from '../../tooling/openapi/walker.js';
import type { ApiDocument, FieldErrors, OperationContract } from '../contract/api-document.js';

const PROBLEM_TYPES: Record<number, string> = {
  400: 'validation-error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  408: 'request-timeout',
  409: 'idempotency-conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  431: 'request-header-fields-too-large',
  422: 'unprocessable',
  429: 'too-many-requests',
  500: 'internal-error',
};
const PROBLEM_BASE = 'https://developer.payment-service.example/problems/';

/**
 * A request's path as a problem's `instance`, a URI reference: what a URI may not hold as it is (a
 * `%` without two hex digits, `"`, `{`, a space, a non-ASCII character) percent-encoded, so that a
 * malformed address is named, not copied.
 */
export const instanceOf = (url: string) =>
  url
    .split('?')[0]!
    .replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) =>
      Buffer.from(c).toString('hex').replace(/../g, '%$&').toUpperCase(),
    );

/** The problem type of a status. */
export const problemType = (status: number) => `${PROBLEM_BASE}${PROBLEM_TYPES[status] ?? 'error'}`;

/** OAuth 2.0 error codes (RFC 6749 §5.2) for the token endpoint's statuses. */
const OAUTH_ERRORS: Record<number, string> = { 400: 'invalid_request', 401: 'invalid_client' };

export interface ProblemInput {
  title: string;
  detail?: string;
  errors?: FieldErrors;
  /** OAuth 2.0 error code, for the token endpoint (default by status). */
  oauthError?: string;
  /** The problem type's last segment when the status alone does not say it (default by status). */
  type?: string;
}

export interface RequestInfo {
  traceId: string;
  /** The request path, the plan problems' `instance`. */
  instance: string;
}

/** The body an operation answers `status` with, for a problem; undefined when the contract declares no such status. */
export function problemBody(
  contract: Pick<ApiDocument, 'document'>,
  op: Pick<OperationContract<string>, 'responses'>,
  status: number,
  input: ProblemInput,
  request: RequestInfo,
): unknown {
  const response = op.responses.get(status);
  if (!response) return undefined;
  switch (response.shape) {
    case 'oauthError': {
      // RFC 6749 §5.2: a grant type other than client_credentials is unsupported_grant_type.
      const grantType = input.errors?.grant_type;
      const error =
        input.oauthError ??
        (grantType && !grantType.includes('is required')
          ? 'unsupported_grant_type'
          : (OAUTH_ERRORS[status] ?? 'invalid_request'));
      const description = input.errors
        ? Object.entries(input.errors)
            .map(([field, messages]) => `${field} ${messages.join('; ')}`)
            .join('. ')
        : input.detail;
      return { error, error_description: description ? description.slice(0, 1024) : undefined };
    }
    case 'resultCode':
      return { responseCode: '99999999', responseDescription: input.detail ?? input.title };
    default: {
      const candidate: Record<string, unknown> = {
        type: `${PROBLEM_BASE}${input.type ?? PROBLEM_TYPES[status] ?? 'error'}`,
        title: input.title,
        status: response.shape === 'planProblem' ? String(status) : status,
        detail: input.detail,
        instance: request.instance,
        traceId: request.traceId,
        errors: input.errors && Object.keys(input.errors).length > 0 ? capErrors(input.errors) : undefined,
      };
      const declared = response.builtPointer
        ? propertiesOf(contract.document, { $ref: response.builtPointer })
        : new Map();
      return Object.fromEntries(Object.entries(candidate).filter(([k, v]) => v !== undefined && declared.has(k)));
    }
  }
}

/** The contract bounds the errors map (200 fields, 50 messages each). */
function capErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors)
      .slice(0, 200)
      .map(([k, v]) => [k, v.slice(0, 50)]),
  );
}
