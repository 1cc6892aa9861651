// The admin API: the sandbox's developer control surface under /_sandbox, served from its own
// document (sandbox/admin/openapi.yaml) through the contract's machinery (routes, validation,
// problem bodies and the response check all come from that document). Its own credential: the
// admin key as a bearer token; the listener operations (`npm run sandbox -- listen`) take a
// merchant's own credentials instead (HTTP Basic), per the document's security of each operation.
// The handlers live in admin/, one module per resource. Not part of the merchant contract.
import { platform } from '../app/platform.js';
import type { OperationContract } from '../contract/api-document.js';
import type { Merchant } from '../domain/types.js';
import { clockHandlers } from './admin/clocks.js';
import { deliveryHandlers } from './admin/deliveries.js';
import { ADMIN_PREFIX, type AdminDocument, type AdminOperationId, LISTENER_SCHEME } from './admin/document.js';
import { listenerHandlers } from './admin/listeners.js';
import { merchantHandlers, scopeDataHandlers } from './admin/merchants.js';
import { snapshotHandlers } from './admin/snapshots.js';
import type { AdminDeps, AdminHandlers, AdminRequest } from './admin/types.js';
import type { ExchangeRequest, ExchangeResponse, RequestHead, RequestHeaders } from './exchange.js';
import { type RequestFailureStatus, requestFailureText } from './failures.js';
import { readInput } from './input.js';
import { problemOf, type Reply, replyResponse } from './pipeline.js';
import { instanceOf } from './problems.js';

export { ADMIN_PREFIX, type AdminDocument, type AdminOperationId, adminDocumentOf } from './admin/document.js';
export type { AdminDeps } from './admin/types.js';

type AdminOperation = OperationContract<AdminOperationId>;

/** The admin API: its document, an answer per operation, and its answers outside an operation. */
export interface AdminApi {
  document: AdminDocument;
  /** The work of one operation: credentials, then input, then its handler; every answer one the operation declares. */
  handle(op: AdminOperation, request: ExchangeRequest): Promise<ExchangeResponse>;
  /** A URL under ADMIN_PREFIX that is no operation of the document. */
  notFound(request: RequestHead): ExchangeResponse;
  /**
   * A request that failed before or outside a handler (a body too large, of another media type,
   * unreadable; a bug), as the operation's problem: a client's fault in a status it does not
   * declare is its 400 naming the body, and what it cannot answer otherwise its 500.
   */
  failure(
    op: AdminOperation | undefined,
    request: RequestHead,
    failed: RequestFailureStatus,
    message: string,
  ): ExchangeResponse;
}

/** The admin API over `deps`: every operation of its document (each must have a handler, under ADMIN_PREFIX). */
export function adminApi(deps: AdminDeps): AdminApi {
  const { document } = deps;
  const operations = [...document.operations.values()];
  const handlers: AdminHandlers = {
    ...merchantHandlers(deps),
    ...scopeDataHandlers(deps),
    ...snapshotHandlers(deps),
    ...clockHandlers(deps),
    ...deliveryHandlers(deps),
    ...listenerHandlers(deps),
  };
  const missing = operations.filter((op) => !handlers[op.id]).map((op) => op.id);
  if (missing.length > 0) throw new Error(`the admin document has operations without a handler: ${missing.join(', ')}`);
  const outside = operations.filter((op) => !op.path.startsWith(`${ADMIN_PREFIX}/`)).map((op) => op.path);
  if (outside.length > 0) throw new Error(`admin paths must start with ${ADMIN_PREFIX}/: ${outside.join(', ')}`);
  /** An operation whose 404 and 500 give the not-found and error bodies outside any operation. */
  const generic = operations.find((op) => op.responses.has(404) && op.responses.has(500));
  if (!generic) throw new Error('the admin document declares no operation with a 404 and a 500 problem');
  const authenticate = adminAuthentication(deps);

  return {
    document,
    async handle(op, request) {
      const problem = problemOf(document, op, request.url);
      const caller = await authenticate(op, request.headers);
      if ('refused' in caller)
        return replyResponse(op, problem(401, { title: 'Authentication required.', detail: caller.refused }));
      const input = readInput(op, request, problem);
      if ('reply' in input) return replyResponse(op, input.reply);
      // The request is validated against this operation's schemas, which its generated types are made from.
      const handler = handlers[op.id] as (request: AdminRequest) => Promise<Reply>;
      const answer = await handler({
        path: input.parameters.path,
        query: input.parameters.query,
        body: input.body,
        problem,
        merchant: caller.merchant,
        signal: request.signal,
      } as AdminRequest);
      return replyResponse(op, answer);
    },
    notFound: (request) =>
      replyResponse(
        generic,
        problemOf(
          document,
          generic,
          request.url,
        )(404, {
          title: 'No such operation.',
          detail: `${request.method} ${instanceOf(request.url)} is not an operation of the admin API (sandbox/admin/openapi.yaml).`,
        }),
      ),
    failure(found, request, failed, message) {
      const op = found ?? generic;
      let status = failed !== 500 && !op.responses.has(failed) ? 400 : failed;
      if (!op.responses.has(status)) status = 500;
      const field =
        failed === 413
          ? 'is too large'
          : failed === 415
            ? 'is of a media type the operation does not take'
            : `could not be read: ${message}`;
      return replyResponse(
        op,
        problemOf(
          document,
          op,
          request.url,
        )(status, {
          ...requestFailureText(status as RequestFailureStatus, op.requestMediaType),
          errors: status === 400 ? { '(body)': [field] } : undefined,
        }),
      );
    },
  };
}

/** Who called: the merchant of a listener operation (undefined for the admin key), or why the credentials are refused. */
type Caller = { merchant: Merchant | undefined } | { refused: string };

const digest = (text: string) => platform().sha256(text);

/**
 * The credentials an admin operation takes, per the document's security: the admin key as a bearer
 * token, or for a listener operation a merchant's HTTP Basic credentials, checked as the merchant
 * roots check them.
 */
function adminAuthentication(
  deps: Pick<AdminDeps, 'key' | 'authenticateMerchant'>,
): (op: AdminOperation, headers: RequestHeaders) => Promise<Caller> {
  const expected = digest(deps.key);
  return async (op, headers) => {
    if ((op.security as string[]).includes(LISTENER_SCHEME)) {
      const auth = await deps.authenticateMerchant(headers);
      return auth.ok ? { merchant: auth.merchant } : { refused: auth.detail };
    }
    const authorization = headers.authorization;
    const presented =
      typeof authorization === 'string' && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
    if (presented === undefined) return { refused: 'Send the admin key as Authorization: Bearer <admin key>.' };
    return platform().timingSafeEqual(digest(presented), expected)
      ? { merchant: undefined }
      : { refused: 'Wrong admin key.' };
  };
}
