// What every call of one operation shares, worked out once per client from the generated operations
// table: its URL template, how its body is encoded, whether it may be sent again, its credentials.
import type { OperationInfo } from '../../generated/operations.js';
import { API_KEY, API_KEY_HEADER, type AuthMode, BASIC, BEARER, chooseRequirement } from './auth.js';

export interface OperationPlan {
  readonly info: OperationInfo;
  readonly method: string;
  /** The URL template split at its path parameters: literal, param, literal, … */
  readonly urlLiterals: readonly string[];
  /** For each placeholder of the template, the index of its positional argument. */
  readonly urlArgIndexes: readonly number[];
  readonly hasBody: boolean;
  readonly formBody: boolean;
  readonly hasQuery: boolean;
  /** GETs and calls with an Idempotency-Key may be sent again; other writes never. */
  readonly retrySafe: boolean;
  /** Content-Type and the Basic or X-API-Key credentials: the same on every call, shared. */
  readonly headers: Record<string, string>;
  readonly bearer: boolean;
  /** Why the credentials cannot call this operation, when they cannot. */
  readonly credentialsProblem: string | undefined;
}

/** The client's credentials as the plans use them. */
export interface PlanCredentials {
  readonly mode: AuthMode;
  /** The Basic Authorization header (undefined with an API key alone). */
  readonly basic: string | undefined;
  readonly apiKey: string;
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** The plan of `info` for a client at `baseUrl`; `tokenEndpoint`: the operation that obtains bearer tokens. */
export function planOf(
  info: OperationInfo,
  tokenEndpoint: boolean,
  baseUrl: string,
  credentials: PlanCredentials,
): OperationPlan {
  const requirement = chooseRequirement(info.security, credentials.mode, tokenEndpoint);
  const headers: Record<string, string> = {};
  if (info.requestBody) headers['Content-Type'] = info.requestBody.mediaType;
  if (requirement?.includes(BASIC)) headers.Authorization = credentials.basic!;
  if (requirement?.includes(API_KEY)) headers[API_KEY_HEADER] = credentials.apiKey;
  // '/customers/{customerId}/paymentMethods/{paymentMethodId}' → literals and placeholders, alternating.
  const parts = info.path.split(/\{([^}]+)\}/);
  return {
    info,
    method: info.method.toUpperCase(),
    urlLiterals: parts.filter((_, i) => i % 2 === 0).map((literal, i) => (i === 0 ? baseUrl + literal : literal)),
    urlArgIndexes: parts.filter((_, i) => i % 2 === 1).map((name) => info.pathParams.indexOf(name)),
    hasBody: info.requestBody !== null,
    formBody: info.requestBody?.mediaType === FORM_MEDIA_TYPE,
    hasQuery: info.queryParams.length > 0,
    retrySafe: info.method === 'get' || info.method === 'head' || info.idempotencyKey || tokenEndpoint,
    headers: Object.freeze(headers),
    bearer: requirement?.includes(BEARER) ?? false,
    credentialsProblem: requirement ? undefined : credentialsProblem(info, credentials.mode),
  };
}

function credentialsProblem(info: OperationInfo, mode: AuthMode): string {
  const accepted = info.security.map((requirement) => requirement.join(' + ')).join(' or ');
  const have = mode === 'apiKey' ? 'an API key alone (X-API-Key)' : 'merchantId and apiKey';
  const hint = mode === 'apiKey' ? '; create the client with { merchantId, apiKey }' : '';
  return `${info.sdkMethod} (${info.operationId}) accepts ${accepted}; this client has ${have}${hint}. Nothing was sent.`;
}
