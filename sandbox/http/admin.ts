// The admin API: the sandbox's developer control surface under /_sandbox, served from its own
// document (sandbox/admin/openapi.yaml) through the contract's machinery (routes, validation,
// problem bodies and the response check all come from that document). Its own credential: the
// admin key as a bearer token; the listener operations (`npm run sandbox -- listen`) take a
// merchant's own credentials instead (HTTP Basic), per the document's security of each operation.
// Not part of the merchant contract.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { components, operations } from '../../generated/admin/types.js';
import { findDelivery, listDeliveries, listMerchants, merchantScope, resetData } from '../app/admin.js';
import { ClockError, type TestClocks } from '../app/clock.js';
import { LISTENER_LIMITS, type Listeners } from '../app/listeners.js';
import { rotateApiKey } from '../app/merchants.js';
import { isRejection, type Rejection } from '../app/outcomes.js';
import type { SandboxSecrets } from '../app/secrets.js';
import { type ExampleDeps, giveExamples } from '../app/seed.js';
import { resendDeliveryById } from '../app/webhooks.js';
import { type ApiDocument, loadApiDocument, type OperationContract } from '../contract/api-document.js';
import type { Merchant, WebhookDelivery } from '../domain/types.js';
import type { DataFilter, Store } from '../store/store.js';
import type { AuthResult } from './auth.js';
import { readInput } from './input.js';
import { BODY_LIMIT_BYTES } from './limits.js';
import type { BodyOf, ParametersOf, Reply } from './pipeline.js';
import { instanceOf, type ProblemInput, problemBody } from './problems.js';

export const ADMIN_DOCUMENT_PATH = new URL('../admin/openapi.yaml', import.meta.url);
/** Every path of the admin document starts with it; the merchant roots never do. */
export const ADMIN_PREFIX = '/_sandbox';
const REALM = 'Bearer realm="sandbox-admin"';
/** The operations that take a merchant's credentials (the document's `listenerAuth`), and their realm. */
const LISTENER_SCHEME = 'listenerAuth';
const LISTENER_REALM = 'Basic realm="sandbox-listen"';

export type AdminOperationId = keyof operations;
export type AdminDocument = ApiDocument<AdminOperationId>;
type Schemas = components['schemas'];

let cached: AdminDocument | undefined;
/** The admin document, read and prepared once per process. */
export const loadAdminDocument = (): AdminDocument =>
  (cached ??= loadApiDocument<AdminOperationId>(ADMIN_DOCUMENT_PATH));

export interface AdminDeps {
  /** The admin key: `Authorization: Bearer <key>`. */
  key: string;
  store: Store;
  clocks: TestClocks;
  /** The keys derived from the sandbox secret (a rotated API key's digest). */
  secrets: SandboxSecrets;
  /** After a resend: the deliverer looks at the outbox at once. */
  onWebhookQueued(): void;
  /** After a reset (the demo merchant's credentials live as long as its data). */
  afterReset?(filter: DataFilter): Promise<void>;
  /** Forgets this process's verified credentials of a merchant (all without one) after they changed. */
  forgetCredentials(merchantId?: string): void;
  /** What the contract's examples are made from (seedExamples, and a reset of scopes that had them). */
  examples: ExampleDeps;
  /** The merchants' listeners (`npm run sandbox -- listen`). */
  listeners: Listeners;
  /** A merchant's HTTP Basic credentials checked as the merchant roots check them (the listener operations'). */
  authenticateMerchant(headers: FastifyRequest['headers']): Promise<AuthResult>;
  document?: AdminDocument;
}

/** A request of the admin operation `Id`, validated: its parameters and body have the operation's types. */
interface AdminRequest<Id extends AdminOperationId = AdminOperationId> {
  path: ParametersOf<operations[Id], 'path'>;
  query: ParametersOf<operations[Id], 'query'>;
  body: BodyOf<operations[Id]>;
  problem(status: number, input: ProblemInput): Reply;
  /** The merchant whose credentials a listener operation was called with (undefined for the others). */
  merchant: Merchant | undefined;
  /** Aborts when the client goes away before the answer (a long poll stops waiting). */
  signal: AbortSignal;
}

type AdminHandlers = { [Id in AdminOperationId]: (request: AdminRequest<Id>) => Promise<Reply> };

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The delivery as the admin document shows it. */
function deliveryBody(d: WebhookDelivery): Schemas['WebhookDelivery'] {
  return {
    id: d.id,
    scope: { merchantId: d.scope.merchantId, environment: d.scope.environment },
    payId: d.payId,
    kind: d.kind,
    url: d.url,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      at: a.at,
      ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
      ...(a.error !== undefined ? { error: a.error.slice(0, 1024) } : {}),
      durationMs: a.durationMs,
      ...(a.listenerId !== undefined ? { listenerId: a.listenerId } : {}),
    })),
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    ...(d.deliveredAt !== undefined ? { deliveredAt: d.deliveredAt } : {}),
    ...(d.resentAfterAttempts !== undefined ? { resentAfterAttempts: d.resentAfterAttempts } : {}),
    body: d.body,
  };
}

/** A rejection as the admin document answers it: 404 naming what is missing. */
const rejectionReply = (r: Pick<AdminRequest, 'problem'>, rejection: Rejection): Reply =>
  r.problem(404, {
    title: 'Not found.',
    detail: rejection.rejected === 'notFound' ? `No ${rejection.what.toLowerCase()} ${rejection.id}.` : 'Not found.',
  });

/** The merchant of a listener operation (authenticated before the handler runs). */
const merchantOf = (r: Pick<AdminRequest, 'merchant'>): Merchant => {
  if (!r.merchant) throw new Error('a listener operation ran without merchant credentials');
  return r.merchant;
};

const noListener = (r: Pick<AdminRequest, 'problem'>, id: string) =>
  r.problem(404, {
    title: 'Not found.',
    detail: `No listener ${id} of this merchant: it was removed, or expired (it did not poll for a while). Register again.`,
  });

function handlers(deps: AdminDeps): AdminHandlers {
  const { store, clocks, listeners } = deps;

  return {
    async listMerchants() {
      const merchants = await listMerchants(store);
      const body: Schemas['MerchantList'] = {
        data: merchants.map((m) => ({
          merchantId: m.merchantId,
          webhookKind: m.webhookKind ?? 'enhanced',
          createdAt: m.createdAt,
        })),
      };
      return { status: 200, body };
    },

    async rotateMerchantApiKey(r) {
      const rotated = await rotateApiKey(store, deps.secrets, r.path.merchantId);
      if (isRejection(rotated)) return rejectionReply(r, rotated);
      deps.forgetCredentials(r.path.merchantId);
      const body: Schemas['RotatedApiKey'] = { merchantId: r.path.merchantId, apiKey: rotated.apiKey };
      return { status: 200, body };
    },

    async seedExamples(r) {
      const scope = { merchantId: r.path.merchantId, environment: r.body?.environment ?? 'test' };
      const made = await giveExamples(store, deps.examples, scope.merchantId, scope.environment, clocks.now(scope));
      if ('conflict' in made)
        return r.problem(409, {
          title: "The scope holds data the contract's examples collide with.",
          detail: made.conflict,
          type: 'sandbox/examples-conflict',
        });
      if (isRejection(made)) return rejectionReply(r, made);
      const body: Schemas['ExampleObjects'] = { ...scope, objects: made.objects };
      return { status: 201, body };
    },

    async resetData(r) {
      const filter = r.body ?? {};
      const reset = await resetData(store, clocks, filter, deps.examples);
      if (isRejection(reset)) return rejectionReply(r, reset);
      await deps.afterReset?.(filter);
      deps.forgetCredentials(filter.merchantId);
      const body: Schemas['ResetResult'] = { ...filter, ...reset };
      return { status: 200, body };
    },

    async getClock(r) {
      const scope = await merchantScope(store, r.path.merchantId, r.path.environment);
      if (isRejection(scope)) return rejectionReply(r, scope);
      const state = await clocks.get(scope);
      const body: Schemas['ClockState'] = { scope, now: state.now.toISOString(), offsetMs: state.offsetMs };
      return { status: 200, body };
    },

    async advanceClock(r) {
      const scope = await merchantScope(store, r.path.merchantId, r.path.environment);
      if (isRejection(scope)) return rejectionReply(r, scope);
      const request = r.body;
      const to = 'seconds' in request ? { byMs: request.seconds * 1000 } : new Date(request.to);
      try {
        const result = await clocks.advance(scope, to);
        const body: Schemas['ClockAdvance'] = {
          clock: { scope, now: result.clock.now.toISOString(), offsetMs: result.clock.offsetMs },
          from: result.from.toISOString(),
          captured: result.captured,
          billed: result.billed,
          webhooksDue: result.webhooksDue,
        };
        return { status: 200, body };
      } catch (err) {
        if (err instanceof ClockError)
          return r.problem(409, {
            title: 'The clock cannot do that.',
            detail: err.message,
            type: 'sandbox/clock-conflict',
          });
        throw err;
      }
    },

    async listWebhookDeliveries(r) {
      const q = r.query;
      const deliveries = await listDeliveries(store, {
        ...(q.merchantId !== undefined ? { merchantId: q.merchantId } : {}),
        ...(q.environment !== undefined ? { environment: q.environment } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.payId !== undefined ? { payId: q.payId } : {}),
        limit: q.limit ?? 100,
      });
      const body: Schemas['WebhookDeliveryList'] = { data: deliveries.map(deliveryBody) };
      return { status: 200, body };
    },

    async getWebhookDelivery(r) {
      const found = await findDelivery(store, r.path.deliveryId);
      return isRejection(found) ? rejectionReply(r, found) : { status: 200, body: deliveryBody(found.delivery) };
    },

    async resendWebhookDelivery(r) {
      const id = r.path.deliveryId;
      const outcome = await resendDeliveryById(store, id, new Date());
      if (outcome === 'missing') return rejectionReply(r, { rejected: 'notFound', what: 'Webhook delivery', id });
      if (outcome === 'pending') {
        return r.problem(409, {
          title: 'The delivery is still pending.',
          detail: 'It is being sent or waits for its next attempt; resend it once it is DELIVERED or DEAD.',
          type: 'sandbox/delivery-pending',
        });
      }
      deps.onWebhookQueued();
      return { status: 202, body: deliveryBody(outcome) };
    },

    async createListener(r) {
      const merchant = merchantOf(r);
      const scope = { merchantId: merchant.merchantId, environment: r.body?.environment ?? 'test' };
      const listener = await listeners.register(scope);
      if (listener === 'full')
        return r.problem(409, {
          title: 'Too many listeners.',
          detail: `Merchant ${merchant.merchantId} has ${LISTENER_LIMITS.perMerchant} listeners already: stop one, or wait until it expires.`,
          type: 'sandbox/too-many-listeners',
        });
      const body: Schemas['Listener'] = {
        id: listener.id,
        scope: listener.scope,
        expiresAt: listener.expiresAt.toISOString(),
        maxWaitSeconds: LISTENER_LIMITS.maxWaitSeconds,
        maxHeld: LISTENER_LIMITS.held,
      };
      return { status: 201, body };
    },

    async pollListener(r) {
      const merchant = merchantOf(r);
      const handed = await listeners.poll(merchant.merchantId, r.path.listenerId, {
        waitMs: (r.query.waitSeconds ?? LISTENER_LIMITS.maxWaitSeconds) * 1000,
        max: r.query.max ?? LISTENER_LIMITS.held,
        signal: r.signal,
      });
      if (handed === 'missing') return noListener(r, r.path.listenerId);
      if (handed === 'busy')
        return r.problem(409, {
          title: 'A poll is open already.',
          detail: 'This listener is waiting in another request: poll again once it has answered.',
          type: 'sandbox/poll-open',
        });
      const body: Schemas['ListenedDeliveryList'] = {
        data: handed.map(({ delivery, claim, headers, timeoutMs }) => ({
          id: delivery.id,
          payId: delivery.payId,
          url: delivery.url,
          attempt: delivery.attempts.length + 1,
          claim,
          timeoutMs,
          headers,
          body: delivery.body,
        })),
      };
      return { status: 200, body };
    },

    async answerListenedDelivery(r) {
      const merchant = merchantOf(r);
      const { claim, durationMs } = r.body;
      const answer =
        'statusCode' in r.body ? { statusCode: r.body.statusCode, durationMs } : { error: r.body.error, durationMs };
      const outcome = await listeners.answer(merchant.merchantId, r.path.listenerId, r.path.deliveryId, claim, answer);
      if (outcome === 'missing')
        return rejectionReply(r, { rejected: 'notFound', what: 'Webhook delivery', id: r.path.deliveryId });
      if (outcome === 'stale')
        return r.problem(409, {
          title: 'The claim no longer holds the delivery.',
          detail: 'Its hold ran out and it was handed over again (or released): its answer is not recorded.',
          type: 'sandbox/claim-lost',
        });
      if (outcome.status === 'PENDING') deps.onWebhookQueued();
      return { status: 200, body: deliveryBody(outcome) };
    },

    async deleteListener(r) {
      const merchant = merchantOf(r);
      return (await listeners.remove(merchant.merchantId, r.path.listenerId))
        ? { status: 204 }
        : noListener(r, r.path.listenerId);
    },
  };
}

/** Registers every operation of the admin document under ADMIN_PREFIX, with its own 404 and error bodies. */
export async function registerAdminApi(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const document = deps.document ?? loadAdminDocument();
  const byId = handlers(deps);
  const operations = [...document.operations.values()];
  const missing = operations.filter((op) => !byId[op.id]).map((op) => op.id);
  if (missing.length > 0) throw new Error(`the admin document has operations without a handler: ${missing.join(', ')}`);
  const outside = operations.filter((op) => !op.path.startsWith(`${ADMIN_PREFIX}/`)).map((op) => op.path);
  if (outside.length > 0) throw new Error(`admin paths must start with ${ADMIN_PREFIX}/: ${outside.join(', ')}`);
  const expected = digest(deps.key);

  const instance = (request: FastifyRequest) => instanceOf(request.url);
  const problemFor =
    (op: Pick<OperationContract<string>, 'responses'>, request: FastifyRequest) =>
    (status: number, input: ProblemInput): Reply => ({
      status,
      body: problemBody(document, op, status, input, { traceId: '', instance: instance(request) }),
    });
  const byMerchant = (op: Pick<OperationContract<string>, 'security'>) =>
    (op.security as string[]).includes(LISTENER_SCHEME);
  const send = (
    op: Pick<OperationContract<string>, 'id' | 'responses' | 'security'>,
    reply: FastifyReply,
    r: Reply,
  ) => {
    const response = op.responses.get(r.status);
    if (!response) throw new Error(`${op.id} would answer ${r.status}, which the admin document does not declare`);
    reply.code(r.status);
    if (r.status === 401) reply.header('www-authenticate', byMerchant(op) ? LISTENER_REALM : REALM);
    if (r.body === undefined) return reply.send();
    return reply
      .header('content-type', `${response.mediaType ?? 'application/json'}; charset=utf-8`)
      .send(JSON.stringify(r.body));
  };
  /** An operation whose 404 and 500 give the not-found and error bodies outside any operation. */
  const generic = operations.find((op) => op.responses.has(404) && op.responses.has(500));
  if (!generic) throw new Error('the admin document declares no operation with a 404 and a 500 problem');

  await app.register(
    async (scope) => {
      scope.setNotFoundHandler((request, reply) =>
        send(
          generic,
          reply.code(404),
          problemFor(generic, request)(404, {
            title: 'No such operation.',
            detail: `${request.method} ${instance(request)} is not an operation of the admin API (sandbox/admin/openapi.yaml).`,
          }),
        ),
      );
      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const op = document.operations.get(request.routeOptions.config.operationId as AdminOperationId) ?? generic;
        const clientError = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
        let status =
          error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 413
            : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
              ? 415
              : clientError
                ? 400
                : 500;
        // The client's fault in a status the operation does not declare: its 400, naming the body.
        const field =
          status === 413
            ? 'is too large'
            : status === 415
              ? 'is of a media type the operation does not take'
              : `could not be read: ${error.message}`;
        if (status !== 500 && !op.responses.has(status)) status = 400;
        if (!op.responses.has(status)) status = 500;
        if (status === 500) console.error(`sandbox: ${request.method} ${request.url} failed:`, error);
        const title =
          status === 413
            ? 'Payload too large.'
            : status === 415
              ? 'Unsupported media type.'
              : status === 400
                ? 'Malformed request.'
                : 'Internal server error.';
        const detail =
          status === 413
            ? `The body exceeds ${BODY_LIMIT_BYTES} bytes.`
            : status === 415
              ? `Send the body as ${op.requestMediaType ?? 'application/json'}.`
              : status === 400
                ? 'The request body could not be read.'
                : 'The sandbox failed to process the request.';
        return send(
          op,
          reply,
          problemFor(op, request)(status, {
            title,
            detail,
            ...(status === 400 ? { errors: { '(body)': [field] } } : {}),
          }),
        );
      });
      for (const op of operations) {
        // The request is validated against this operation's schemas, which its generated types are made from.
        const handler = byId[op.id] as (request: AdminRequest) => Promise<Reply>;
        scope.route({
          method: op.method.toUpperCase() as 'GET',
          url: op.path.slice(ADMIN_PREFIX.length).replace(/\{([^}]+)\}/g, ':$1'),
          config: { operationId: op.id },
          handler: async (request, reply) => {
            const problem = problemFor(op, request);
            const authorization = request.headers.authorization;
            let merchant: Merchant | undefined;
            if (byMerchant(op)) {
              const auth = await deps.authenticateMerchant(request.headers);
              if (!auth.ok)
                return send(op, reply, problem(401, { title: 'Authentication required.', detail: auth.detail }));
              merchant = auth.merchant;
            } else {
              const presented =
                typeof authorization === 'string' && /^bearer /i.test(authorization)
                  ? authorization.slice(7).trim()
                  : undefined;
              if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
                return send(
                  op,
                  reply,
                  problem(401, {
                    title: 'Authentication required.',
                    detail:
                      presented === undefined
                        ? 'Send the admin key as Authorization: Bearer <admin key>.'
                        : 'Wrong admin key.',
                  }),
                );
              }
            }
            const input = readInput(op, request, problem);
            if ('reply' in input) return send(op, reply, input.reply);
            // The client going away (a long poll it gave up): the handler stops waiting.
            const gone = new AbortController();
            reply.raw.once('close', () => gone.abort());
            return send(
              op,
              reply,
              await handler({
                path: input.parameters.path,
                query: input.parameters.query,
                body: input.body,
                problem,
                merchant,
                signal: gone.signal,
              } as AdminRequest),
            );
          },
        });
      }
    },
    { prefix: ADMIN_PREFIX },
  );
}
