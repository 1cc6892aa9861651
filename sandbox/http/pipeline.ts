// One request through one operation: authenticate → parse and validate (body, path, query,
// headers, content type) → idempotency → the operation's handler → a response the contract declares.
// A write handler runs in one store transaction, together with the completion of its idempotency
// key: the state change, its operation record and the response kept for replays commit together.
import type { OperationId } from '../../generated/operations.js';
import type { operations } from '../../generated/types.js';
import { domainContextAt } from '../app/context.js';
import type { DestinationContext, DestinationPolicy } from '../app/destinations.js';
import { newId } from '../app/ids.js';
import type { SandboxSecrets } from '../app/secrets.js';
import type { ApiDocument, OperationContract, ResponseInfo } from '../contract/api-document.js';
import type { Contract } from '../contract/contract.js';
import type { DomainContext } from '../domain/context.js';
import type { Environment, Merchant, Scope } from '../domain/types.js';
import { DuplicateKeyError, type Store, type StoredResponse, type StoreTransaction } from '../store/store.js';
import type { Authenticator, AuthResult } from './auth.js';
import type { ExchangeRequest, ExchangeResponse, RequestHead } from './exchange.js';
import { invalidInput, readInput, unstorableParameters } from './input.js';
import { instanceOf, type ProblemInput, problemBody } from './problems.js';

/** How long a claimed Idempotency-Key holds before a retry may take it over (its request crashed). */
export const IDEMPOTENCY_LEASE_MS = 30_000;
/** How long a completed Idempotency-Key replays its response. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;
/** The header that marks a replayed response (declared in the contract). */
export const REPLAY_HEADER = 'idempotent-replayed';

export interface Reply {
  status: number;
  /** JSON-serialized as the body; undefined for an empty body (204). */
  body?: unknown;
  /** A body already serialized as JSON (a stored payment document): sent as it is. */
  json?: string;
  /** Headers the contract declares for this response (lower-case names), kept for replays too. */
  headers?: Record<string, string>;
}

type Content<T> = T extends { content: infer C } ? C[keyof C] : never;

/** An operation of a document's generated types (openapi-typescript's `operations[...]`). */
interface GeneratedOperation {
  parameters: { path?: unknown; query?: unknown };
  requestBody?: unknown;
}

/** The operation's request body as its generated types give it (validated against the same schema); undefined without one. */
export type BodyOf<Op extends GeneratedOperation> = undefined extends Op['requestBody']
  ? Content<NonNullable<Op['requestBody']>> | undefined
  : Content<Op['requestBody']>;

/** The operation's path or query parameters as its generated types give them (validated and coerced). */
export type ParametersOf<Op extends GeneratedOperation, In extends 'path' | 'query'> = [
  NonNullable<Op['parameters'][In]>,
] extends [never]
  ? Record<string, never>
  : NonNullable<Op['parameters'][In]>;

export type RequestBody<Id extends OperationId> = BodyOf<operations[Id]>;

/** A request of the operation `Id`, validated: its parameters and body have the operation's types. */
export interface RequestContext<Id extends OperationId = OperationId> extends DestinationContext {
  readonly operation: OperationContract<Id>;
  readonly environment: Environment;
  /** Path parameters, validated. */
  readonly path: ParametersOf<operations[Id], 'path'>;
  /** Query parameters, validated and coerced (numbers, booleans). */
  readonly query: ParametersOf<operations[Id], 'query'>;
  /** The request body, validated (parsed JSON, or the form as an object). */
  readonly body: RequestBody<Id>;
  /** Where the sandbox is reachable, for links (hosted pages). */
  readonly publicUrl: string;
  /** When the request authenticated with a bearer token: its expiry (seconds since the epoch). */
  readonly tokenExpiresAt: number | undefined;
  /** A problem body of this operation for `status`. */
  problem(status: number, input: ProblemInput): Reply;
}

export type Handler<Id extends OperationId = OperationId> =
  | { kind: 'read'; run(ctx: RequestContext<Id>, store: Store): Promise<Reply> }
  | { kind: 'write'; run(ctx: RequestContext<Id>, tx: StoreTransaction): Promise<Reply> };

/** A handler per operation, typed by it. */
export type Handlers = { readonly [Id in OperationId]: Handler<Id> };

/** A handler that only reads (no transaction; GET's fast path). */
export const read = <Id extends OperationId>(
  run: (ctx: RequestContext<Id>, store: Store) => Promise<Reply>,
): Handler<Id> => ({ kind: 'read', run });
/** A handler whose work, and the completion of its Idempotency-Key, commit in one transaction. */
export const write = <Id extends OperationId>(
  run: (ctx: RequestContext<Id>, tx: StoreTransaction) => Promise<Reply>,
): Handler<Id> => ({ kind: 'write', run });

export interface PipelineDeps {
  contract: Contract;
  store: Store;
  auth: Authenticator;
  handlers: Handlers;
  publicUrl: () => string;
  /** The sandbox's time for a scope: its test clock. */
  now(scope: Scope): Date;
  /** The keys derived from the sandbox secret (card fingerprints, request digests). */
  secrets: SandboxSecrets;
  /** Where webhooks may go: a request's `urls.webhook` is checked against it. */
  destinations: DestinationPolicy;
}

/**
 * A request's context. A class, not an object literal with a `get domain()`: V8 gives every literal
 * that carries its own getter closure a hidden class of its own, in old space, which kept each
 * request's objects alive until a full GC (docs/benchmarks.md, GET, says what the class bought).
 */
class Context implements RequestContext {
  readonly path: RequestContext['path'];
  readonly query: RequestContext['query'];
  readonly publicUrl: string;
  readonly fingerprint: (text: string) => string;
  readonly destinations: DestinationPolicy;
  #domain: DomainContext | undefined;

  constructor(
    private readonly deps: PipelineDeps,
    readonly operation: OperationContract<OperationId>,
    readonly environment: Environment,
    readonly scope: Scope,
    readonly merchant: Merchant,
    readonly tokenExpiresAt: number | undefined,
    parameters: { path: Record<string, unknown>; query: Record<string, unknown> },
    readonly body: RequestBody<OperationId>,
    readonly problem: (status: number, input: ProblemInput) => Reply,
  ) {
    // Validated against the operation's schemas, which generated/types.ts is made from.
    this.path = parameters.path as RequestContext['path'];
    this.query = parameters.query as RequestContext['query'];
    this.publicUrl = deps.publicUrl();
    this.fingerprint = deps.secrets.fingerprint;
    this.destinations = deps.destinations;
  }

  /** Made on first use: a GET of a stored document never needs it. */
  get domain(): DomainContext {
    if (!this.#domain) {
      this.#domain = domainContextAt(this.deps.now(this.scope), this.deps.contract.tables);
    }
    return this.#domain;
  }
}

/** The canonical form of a JSON value (object keys sorted), so that key order does not change a request's hash. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Appends rather than map and join: this runs on every idempotent request.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonical(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++)
    out += `${(i === 0 ? '' : ',') + JSON.stringify(keys[i])}:${canonical((value as Record<string, unknown>)[keys[i]!])}`;
  return `${out}}`;
}

/** Credentials an operation's security accepted. */
export type Authenticated = Extract<AuthResult, { ok: true }>;

/** A problem body of `operation` for `status`, for the request at `url` (with a trace id, which a body may declare). */
export const problemOf =
  (document: Pick<ApiDocument, 'document'>, operation: Pick<OperationContract, 'responses'>, url: string) =>
  (status: number, input: ProblemInput): Reply => ({
    status,
    body: problemBody(document, operation, status, input, {
      traceId: newId('trace'),
      instance: instanceOf(url),
    }),
  });

/**
 * The answer `r`, which `operation` must declare (the contract's operations and the admin API's alike):
 * a 401 with the operation's challenges, the body as JSON in the media type the response declares.
 */
export function replyResponse(
  operation: Pick<OperationContract, 'id' | 'responses' | 'challenge'>,
  r: Reply,
  extra?: Record<string, string>,
): ExchangeResponse {
  const response = declaredResponse(operation, r.status);
  const headers = { ...statusHeaders(operation, r.status), ...r.headers, ...extra };
  if (r.body === undefined) return { status: r.status, headers };
  headers['content-type'] = `${response.mediaType ?? 'application/json'}; charset=utf-8`;
  return { status: r.status, headers, body: JSON.stringify(r.body) };
}

/** The response `operation` declares for `status`; a status it does not declare is the sandbox's bug. */
function declaredResponse(operation: Pick<OperationContract, 'id' | 'responses'>, status: number): ResponseInfo {
  const response = operation.responses.get(status);
  if (!response) throw new Error(`${operation.id} would answer ${status}, which its document does not declare`);
  return response;
}

/**
 * What runs before an operation's body is read: text the store cannot keep in the path, query or
 * header parameters (a 400 before anything is looked up), then the credentials (the operation's
 * 401, without buffering or parsing a body). Answers the refusal, or the credentials the handler takes.
 */
export function authenticateFirst(
  deps: Pick<PipelineDeps, 'contract' | 'auth'>,
  operation: OperationContract<OperationId>,
  environment: Environment,
) {
  return async (request: RequestHead): Promise<{ answer: ExchangeResponse } | { pass: Authenticated }> => {
    const refuse = (status: number, input: ProblemInput) => ({
      answer: replyResponse(operation, problemOf(deps.contract, operation, request.url)(status, input)),
    });
    const unstorableErrors = unstorableParameters(operation, request);
    if (unstorableErrors) return refuse(400, invalidInput(unstorableErrors));
    const auth = await deps.auth.authenticate(operation.security, request.headers, environment);
    if (!auth.ok) return refuse(401, { title: 'Authentication required.', detail: auth.detail });
    return { pass: auth };
  };
}

/** An operation's work once authenticated: input, idempotency, the handler, the answer. */
export function operationHandler(
  deps: PipelineDeps,
  operation: OperationContract<OperationId>,
  environment: Environment,
) {
  const handler = deps.handlers[operation.id] as Handler;
  if (!handler) throw new Error(`no handler for ${operation.id}`);

  return async (request: ExchangeRequest, auth: Authenticated): Promise<ExchangeResponse> => {
    const problem = problemOf(deps.contract, operation, request.url);
    const send = (r: Reply) => replyResponse(operation, r);

    // 1. Credentials: checked by authenticateFirst, before the body was read
    const merchant = auth.merchant;
    const scope: Scope = { merchantId: merchant.merchantId, environment };

    // 2. Input: content type, body, parameters
    const input = readInput(operation, request, problem);
    if ('reply' in input) return send(input.reply);
    const { body, parameters } = input;

    const ctx = new Context(
      deps,
      operation,
      environment,
      scope,
      merchant,
      auth.expiresAt,
      parameters,
      body as RequestBody<OperationId>,
      problem,
    );

    // 3. Idempotency: a replay, a conflict, or a claim that the handler's transaction completes
    const key = parameters.headers['idempotency-key'];
    let claim: { key: string; token: string } | undefined;
    if (operation.idempotent && typeof key === 'string') {
      // Keyed: the request may carry card data, which a digest anyone can compute would let a copied
      // database try numbers against.
      const requestHash = deps.secrets.requestDigest(
        `${operation.id}\n${canonical(parameters.path)}\n${canonical(body ?? null)}`,
      );
      const result = await deps.store.idempotency.claim({
        scope,
        key,
        operationId: operation.id,
        requestHash,
        // The scope's clock: keys expire when the test clock passes their retention.
        now: deps.now(scope).toISOString(),
        leaseMs: IDEMPOTENCY_LEASE_MS,
        retentionMs: IDEMPOTENCY_RETENTION_MS,
      });
      if (result.outcome === 'replay') return storedResponse(result.response, { [REPLAY_HEADER]: 'true' });
      if (result.outcome === 'conflict') {
        return send(
          problem(409, {
            title: 'Idempotency-Key conflict.',
            detail:
              result.reason === 'in_progress'
                ? 'A request with this Idempotency-Key is still in progress: retry later.'
                : 'This Idempotency-Key was used with a different request (operation, path or body).',
          }),
        );
      }
      claim = { key, token: result.token };
    }

    // 4. The operation
    try {
      let answer: { reply: Reply; response: StoredResponse };
      if (handler.kind === 'read') {
        const r = await handler.run(ctx, deps.store);
        answer = { reply: r, response: stored(r) };
      } else {
        answer = await inTransaction(deps.store, async (tx) => {
          const r = await handler.run(ctx, tx);
          const response = stored(r);
          if (claim)
            await tx.idempotency.complete({
              scope,
              key: claim.key,
              token: claim.token,
              response,
              now: deps.now(scope).toISOString(),
            });
          return { reply: r, response };
        });
      }
      declaredResponse(operation, answer.reply.status);
      return storedResponse(answer.response, statusHeaders(operation, answer.reply.status));
    } catch (err) {
      if (claim)
        await deps.store.idempotency.release({ scope, key: claim.key, token: claim.token }).catch(() => undefined);
      throw err;
    }
  };
}

/** A response as it was kept (for replays too), with `extra` headers on top. */
function storedResponse(response: StoredResponse, extra: Record<string, string>): ExchangeResponse {
  const headers = { ...response.headers, ...extra };
  return response.body === ''
    ? { status: response.status, headers }
    : { status: response.status, headers, body: response.body };
}

/** The response as it is sent and kept for replays. */
function stored(r: Reply): StoredResponse {
  const body = r.json ?? (r.body === undefined ? undefined : JSON.stringify(r.body));
  return body === undefined
    ? { status: r.status, headers: { ...r.headers }, body: '' }
    : { status: r.status, headers: { ...r.headers, 'content-type': 'application/json; charset=utf-8' }, body };
}

/** Headers a status of `operation` always carries: a 401's challenges (RFC 9110 §11.6.1). */
function statusHeaders(operation: Pick<OperationContract, 'challenge'>, status: number): Record<string, string> {
  return status === 401 && operation.challenge ? { 'www-authenticate': operation.challenge } : {};
}

/**
 * A write in one transaction. A unique key taken by a concurrent request (a transId, on PostgreSQL
 * where transactions run side by side) rolls the first attempt back; the second sees the winner's
 * row and answers as the domain says (422 duplicate transaction).
 */
async function inTransaction<T>(store: Store, work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
  try {
    return await store.transaction(work);
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    return store.transaction(work);
  }
}
