// The shape of the generated operations module (generated/operations.ts): the generator writes
// it, the client reads it. One definition, imported by both.

/** One operation of the contract, as the client SDK needs it. */
export interface OperationInfo {
  readonly operationId: string;
  /** Lower case, as the contract's path item spells it (`get`, `post`, …). */
  readonly method: string;
  readonly path: string;
  /** `resource.method` of the client SDK (x-sdk-method) */
  readonly sdkMethod: string;
  readonly tag: string;
  readonly summary: string;
  /** Security alternatives; each is one requirement (all of its schemes at once). */
  readonly security: readonly (readonly string[])[];
  /** Accepts the Idempotency-Key header. */
  readonly idempotencyKey: boolean;
  /** Version of the operation's description (x-since), when the interface document gives one. */
  readonly version: string | null;
  readonly provenance: 'documented' | 'inferred';
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** Media type of the request body, or null without a body. */
  readonly requestBody: { readonly mediaType: string; readonly required: boolean } | null;
  /** First 2xx status of the responses. */
  readonly successStatus: number;
  /** Page-numbered list: the query parameter and the field holding the items. */
  readonly pagination: {
    readonly pageParam: string;
    readonly itemsField: string;
    readonly totalPagesField: string;
  } | null;
}

/** A security scheme of the contract (components.securitySchemes), as far as the client uses it. */
export interface SecuritySchemeInfo {
  readonly type: string;
  readonly scheme?: string;
  readonly bearerFormat?: string;
  readonly in?: string;
  readonly name?: string;
}
