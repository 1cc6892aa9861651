// The method types of the client, derived from the generated operations table (`typeof operations`)
// and openapi-typescript's `paths`. Nothing here names an operation: a new operation in the
// contract becomes a new typed method after `npm run generate`.
import type { operations as operationTable, servers } from '../../generated/operations.js';
import type { paths } from '../../generated/types.js';

type OperationTable = typeof operationTable;

/** An `operationId` of the contract. */
export type OperationId = keyof OperationTable;

/** `test` | `live`: the environments of the contract's servers. */
export type Environment = (typeof servers)[number]['environment'];

type Info<Id extends OperationId> = OperationTable[Id];

/** openapi-typescript's operation object (parameters, requestBody, responses) of an operation. */
export type OperationTypes<Id extends OperationId> = Info<Id>['path'] extends infer P extends keyof paths
  ? Info<Id>['method'] extends infer M extends keyof paths[P]
    ? NonNullable<paths[P][M]>
    : never
  : never;

type ParametersOf<Id extends OperationId> = OperationTypes<Id> extends { parameters: infer P } ? P : never;
type PathParamObject<Id extends OperationId> = ParametersOf<Id> extends { path: infer P } ? P : Record<never, never>;

/** The query parameters object of an operation (never when it has none). */
export type QueryParams<Id extends OperationId> = Info<Id>['queryParams'] extends readonly []
  ? never
  : ParametersOf<Id> extends { query?: infer Q }
    ? NonNullable<Q>
    : never;

/** The request body of an operation, for the media type the contract gives it. */
export type RequestBody<Id extends OperationId> = Info<Id>['requestBody'] extends { readonly mediaType: infer Media }
  ? OperationTypes<Id> extends { requestBody?: infer Body }
    ? NonNullable<Body> extends { content: infer Content }
      ? Media extends keyof Content
        ? Content[Media]
        : never
      : never
    : never
  : never;

type SuccessContent<Id extends OperationId> =
  OperationTypes<Id> extends { responses: infer R }
    ? Info<Id>['successStatus'] extends infer S extends keyof R
      ? R[S] extends { content: infer C }
        ? C
        : undefined
      : undefined
    : undefined;

/** The parsed body of an operation's success response (`undefined` for 204 and other empty ones). */
export type SuccessBody<Id extends OperationId> =
  SuccessContent<Id> extends undefined
    ? undefined
    : SuccessContent<Id> extends { 'application/json': infer Json }
      ? Json
      : SuccessContent<Id>[keyof SuccessContent<Id>];

/**
 * The known values of an open set: `'A' | 'B' | (string & {})` → `'A' | 'B'`. In the `default` of a
 * `switch` over an open set, `const missed: never = value as KnownValue<typeof value>` compiles only
 * when every known value has its `case`.
 */
export type KnownValue<T> = T extends string ? (string extends T ? never : T) : T;

/** Options of a single call. */
export interface CallOptions {
  /** Abort the call (no retry after an abort; the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Deadline of the whole call, retries and back-off included (default: the client's `timeoutMs`; 0 for none). */
  timeoutMs?: number;
  /** Attempts at most, the first included (default: the client's `maxAttempts`). */
  maxAttempts?: number;
  /** Extra request headers; they win over the client's own. */
  headers?: Record<string, string>;
}

/** Call options of an operation that accepts the Idempotency-Key header. */
export interface IdempotentCallOptions extends CallOptions {
  /** Sent on every attempt of this call; one is generated when missing. */
  idempotencyKey?: string;
}

export type CallOptionsFor<Id extends OperationId> = Info<Id>['idempotencyKey'] extends true
  ? IdempotentCallOptions
  : CallOptions;

// Positional arguments: path parameters in the contract's order, the body, the query, options.
type PathArgsFrom<Names extends readonly string[], Values> = {
  -readonly [I in keyof Names]: Values[Names[I] & keyof Values];
};
export type PathArgs<Id extends OperationId> = PathArgsFrom<Info<Id>['pathParams'], PathParamObject<Id>>;

type BodyArgs<Id extends OperationId> = Info<Id>['requestBody'] extends { readonly required: infer Required }
  ? Required extends true
    ? [body: RequestBody<Id>]
    : [body?: RequestBody<Id>]
  : [];

type QueryArgs<Id extends OperationId> = [QueryParams<Id>] extends [never]
  ? []
  : // biome-ignore lint/complexity/noBannedTypes: `{} extends Q` asks whether every member of Q is optional
    {} extends QueryParams<Id>
    ? [query?: QueryParams<Id>]
    : [query: QueryParams<Id>];

export type OperationArgs<Id extends OperationId> = [
  ...PathArgs<Id>,
  ...BodyArgs<Id>,
  ...QueryArgs<Id>,
  options?: CallOptionsFor<Id>,
];

/** A resource method: resolves with the parsed success body, rejects with a PaymentError. */
export type OperationMethod<Id extends OperationId> = (...args: OperationArgs<Id>) => Promise<SuccessBody<Id>>;

// Pagination: the `listAll…` companion of a paged list operation.
type Pagination<Id extends OperationId> = NonNullable<Info<Id>['pagination']>;

/** The item type of a paged list operation. */
export type PageItem<Id extends OperationId> =
  NonNullable<SuccessBody<Id>> extends infer Page
    ? Pagination<Id>['itemsField'] extends infer Field extends keyof Page
      ? NonNullable<Page[Field]> extends readonly (infer Item)[]
        ? Item
        : never
      : never
    : never;

/** The filter of a paged list: its query without the page number, which `listAll` walks. */
export type ListFilter<Id extends OperationId> = Omit<QueryParams<Id>, Pagination<Id>['pageParam']>;

export type ListAllArgs<Id extends OperationId> = [...PathArgs<Id>, filter?: ListFilter<Id>, options?: CallOptions];

/** Walks every page: `for await (const item of client.paymentPlans.listAll(filter))`. */
export type ListAllMethod<Id extends OperationId> = (
  ...args: ListAllArgs<Id>
) => AsyncGenerator<PageItem<Id>, void, undefined>;

/** `list` → `listAll`, `listPayments` → `listAllPayments`, any other `m` → `mAll`. */
export type ListAllName<Method extends string> = Method extends `list${infer Rest}` ? `listAll${Rest}` : `${Method}All`;

// Resources: `sdkMethod` is `resource.method`.
type SdkMethod<Id extends OperationId> = Info<Id>['sdkMethod'];
type ResourceOf<S> = S extends `${infer Resource}.${string}` ? Resource : never;
type MethodOf<S> = S extends `${string}.${infer Method}` ? Method : never;

/** The resource names of the client: `payments`, `paymentPlans`, `customers`, … */
export type ResourceName = ResourceOf<Info<OperationId>['sdkMethod']>;

type OperationsOf<R extends string> = {
  [Id in OperationId]: ResourceOf<SdkMethod<Id>> extends R ? Id : never;
}[OperationId];
type PagedOperationsOf<R extends string> = {
  [Id in OperationsOf<R>]: Info<Id>['pagination'] extends null ? never : Id;
}[OperationsOf<R>];

/** The methods of one resource, with the `listAll…` companions of its paged lists. */
export type Resource<R extends string> = {
  [Id in OperationsOf<R> as MethodOf<SdkMethod<Id>>]: OperationMethod<Id>;
} & {
  [Id in PagedOperationsOf<R> as ListAllName<MethodOf<SdkMethod<Id>>>]: ListAllMethod<Id>;
};

export type Resources = { [R in ResourceName]: Resource<R> };
