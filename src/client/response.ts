// What a successful answer said besides its body. The body stays the typed value it always was:
// the metadata hangs on it as a non-enumerable `lastResponse` (as in Stripe's SDK), so that
// JSON.stringify, spreading and deep equality see only the body.

/** The status and headers of the answer a resource method resolved with. */
export interface ResponseMetadata {
  readonly status: number;
  readonly headers: Headers;
  /** `Idempotent-Replayed: true`: the service replayed the stored answer of an earlier call with the same key. */
  readonly replayed: boolean;
  /** The body's `traceId`, else an `X-Trace-Id` header, else the trace id of a `traceparent` header. */
  readonly traceId: string | undefined;
  /** An `X-Request-Id` (or `Request-Id`) header, when the service or a proxy sends one. */
  readonly requestId: string | undefined;
  /** The Idempotency-Key the call sent, when the operation takes one. */
  readonly idempotencyKey: string | undefined;
  /** Attempts made, the first included. */
  readonly attempts: number;
}

const LAST_RESPONSE = 'lastResponse';

export function responseMetadata(
  response: Response,
  body: unknown,
  idempotencyKey: string | undefined,
  attempts: number,
): ResponseMetadata {
  const { headers } = response;
  const bodyTrace = typeof body === 'object' && body !== null ? (body as { traceId?: unknown }).traceId : undefined;
  const traceparent = /^[\da-f]{2}-([\da-f]{32})-/.exec(headers.get('traceparent') ?? '');
  return {
    status: response.status,
    headers,
    replayed: headers.get('Idempotent-Replayed')?.toLowerCase() === 'true',
    traceId: (typeof bodyTrace === 'string' ? bodyTrace : undefined) ?? headers.get('X-Trace-Id') ?? traceparent?.[1],
    requestId: headers.get('X-Request-Id') ?? headers.get('Request-Id') ?? undefined,
    idempotencyKey,
    attempts,
  };
}

/** Hangs the metadata on an object or array body, not enumerable; other bodies are left as they are. */
export function attachResponse(body: unknown, metadata: ResponseMetadata): void {
  if (typeof body !== 'object' || body === null || Object.hasOwn(body, LAST_RESPONSE)) return;
  Object.defineProperty(body, LAST_RESPONSE, { value: metadata, enumerable: false, configurable: true });
}

/**
 * The status and headers behind what a resource method resolved with (also `result.lastResponse`,
 * not enumerable): `responseOf(payment)?.replayed`. Undefined for an empty (204) answer and for
 * values that did not come from the client.
 */
export function responseOf(result: unknown): ResponseMetadata | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const metadata = Object.getOwnPropertyDescriptor(result, LAST_RESPONSE)?.value as ResponseMetadata | undefined;
  return metadata && typeof metadata.status === 'number' ? metadata : undefined;
}
