// The admin API: the sandbox's developer control surface under /_sandbox, served from its own
// document (sandbox/admin/openapi.yaml) through the contract's machinery (routes, validation,
// problem bodies and the response check all come from that document). Its own credential: the
// admin key as a bearer token; the listener operations (`npm run sandbox -- listen`) take a
// merchant's own credentials instead (HTTP Basic), per the document's security of each operation.
// The handlers live in admin/, one module per resource. Not part of the merchant contract.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { OperationContract } from '../contract/api-document.js';
import type { Merchant } from '../domain/types.js';
import { clockHandlers } from './admin/clocks.js';
import { deliveryHandlers } from './admin/deliveries.js';
import {
  ADMIN_PREFIX,
  type AdminDocument,
  type AdminOperationId,
  LISTENER_SCHEME,
  loadAdminDocument,
} from './admin/document.js';
import { listenerHandlers } from './admin/listeners.js';
import { merchantHandlers } from './admin/merchants.js';
import { snapshotHandlers } from './admin/snapshots.js';
import type { AdminDeps, AdminHandlers, AdminRequest } from './admin/types.js';
import { failureStatus, requestFailureText } from './failures.js';
import { readInput } from './input.js';
import { problemOf, type Reply, sendReply } from './pipeline.js';
import { instanceOf } from './problems.js';

export {
  ADMIN_DOCUMENT_PATH,
  ADMIN_PREFIX,
  type AdminDocument,
  type AdminOperationId,
  loadAdminDocument,
} from './admin/document.js';
export type { AdminDeps } from './admin/types.js';

type AdminOperation = OperationContract<AdminOperationId>;

/** Registers every operation of the admin document under ADMIN_PREFIX, with its own 404 and error bodies. */
export async function registerAdminApi(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const document = deps.document ?? loadAdminDocument();
  const operations = [...document.operations.values()];
  const handlers: AdminHandlers = {
    ...merchantHandlers(deps),
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

  await app.register(
    async (scope) => {
      scope.setNotFoundHandler((request, reply) =>
        sendReply(
          generic,
          reply,
          problemOf(
            document,
            generic,
            request,
          )(404, {
            title: 'No such operation.',
            detail: `${request.method} ${instanceOf(request.url)} is not an operation of the admin API (sandbox/admin/openapi.yaml).`,
          }),
        ),
      );
      scope.setErrorHandler(failureHandler(document, generic));
      for (const op of operations) {
        // The request is validated against this operation's schemas, which its generated types are made from.
        const handler = handlers[op.id] as (request: AdminRequest) => Promise<Reply>;
        scope.route(adminRoute(document, op, handler, authenticate));
      }
    },
    { prefix: ADMIN_PREFIX },
  );
}

/** Who called: the merchant of a listener operation (undefined for the admin key), or why the credentials are refused. */
type Caller = { merchant: Merchant | undefined } | { refused: string };

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The credentials an admin operation takes, per the document's security: the admin key as a bearer
 * token, or for a listener operation a merchant's HTTP Basic credentials, checked as the merchant
 * roots check them.
 */
function adminAuthentication(
  deps: Pick<AdminDeps, 'key' | 'authenticateMerchant'>,
): (op: AdminOperation, headers: FastifyRequest['headers']) => Promise<Caller> {
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
    return timingSafeEqual(digest(presented), expected) ? { merchant: undefined } : { refused: 'Wrong admin key.' };
  };
}

/** The route of one admin operation: credentials, then input, then its handler; every answer one the operation declares. */
function adminRoute(
  document: AdminDocument,
  op: AdminOperation,
  handler: (request: AdminRequest) => Promise<Reply>,
  authenticate: ReturnType<typeof adminAuthentication>,
): RouteOptions {
  return {
    method: op.method.toUpperCase() as 'GET',
    url: op.path.slice(ADMIN_PREFIX.length).replace(/\{([^}]+)\}/g, ':$1'),
    config: { operationId: op.id },
    handler: async (request, reply) => {
      const problem = problemOf(document, op, request);
      const caller = await authenticate(op, request.headers);
      if ('refused' in caller)
        return sendReply(op, reply, problem(401, { title: 'Authentication required.', detail: caller.refused }));
      const input = readInput(op, request, problem);
      if ('reply' in input) return sendReply(op, reply, input.reply);
      // The client going away (a long poll it gave up): the handler stops waiting.
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const answer = await handler({
        path: input.parameters.path,
        query: input.parameters.query,
        body: input.body,
        problem,
        merchant: caller.merchant,
        signal: gone.signal,
      } as AdminRequest);
      return sendReply(op, reply, answer);
    },
  };
}

/**
 * Errors before or outside a handler (a body too large, of another media type, unreadable; a bug),
 * each as the operation's problem: a client's fault in a status it does not declare is its 400
 * naming the body, and what it cannot answer otherwise its 500.
 */
function failureHandler(document: AdminDocument, generic: AdminOperation) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const op = document.operations.get(request.routeOptions.config.operationId as AdminOperationId) ?? generic;
    const failed = failureStatus(error);
    let status = failed !== 500 && !op.responses.has(failed) ? 400 : failed;
    if (!op.responses.has(status)) status = 500;
    if (status === 500) console.error(`sandbox: ${request.method} ${request.url} failed:`, error);
    const field =
      failed === 413
        ? 'is too large'
        : failed === 415
          ? 'is of a media type the operation does not take'
          : `could not be read: ${error.message}`;
    return sendReply(
      op,
      reply,
      problemOf(
        document,
        op,
        request,
      )(status, {
        ...requestFailureText(status, op.requestMediaType),
        errors: status === 400 ? { '(body)': [field] } : undefined,
      }),
    );
  };
}
