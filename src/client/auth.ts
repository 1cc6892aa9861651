// Credentials → the security scheme each operation gets, and the OAuth access token cache.
//
// Which scheme is which comes from the contract (components.securitySchemes, generated into
// operations.ts): HTTP Basic (merchant id : API key), HTTP bearer (a JWT from the token endpoint)
// and an API key in a header (X-API-Key).
import { securitySchemes } from '../../generated/operations.js';
import type { OperationInfo, SecuritySchemeInfo as Scheme } from './operation-info.js';

function schemeNamed(match: (s: Scheme) => boolean, what: string): [string, Scheme] {
  const found = Object.entries(securitySchemes as Record<string, Scheme>).find(([, s]) => match(s));
  if (!found) throw new Error(`the contract defines no ${what} security scheme`);
  return found;
}

export const BASIC = schemeNamed((s) => s.type === 'http' && s.scheme === 'basic', 'HTTP Basic')[0];
export const BEARER = schemeNamed((s) => s.type === 'http' && s.scheme === 'bearer', 'HTTP bearer')[0];
const [apiKeyScheme, apiKeyDefinition] = schemeNamed((s) => s.type === 'apiKey' && s.in === 'header', 'API-key header');
export const API_KEY = apiKeyScheme;
export const API_KEY_HEADER = apiKeyDefinition.name!;

export type AuthMode = 'basic' | 'oauth' | 'apiKey';

/** The schemes a client can produce, best first: the mode decides what comes first. */
const PREFERENCE: Record<AuthMode, readonly string[]> = {
  basic: [BASIC, BEARER, API_KEY],
  oauth: [BEARER, BASIC, API_KEY],
  apiKey: [API_KEY],
};

/**
 * The security requirement (schemes sent together) to use for an operation, or undefined when
 * none can be satisfied. `security: []` needs nothing; an empty requirement makes auth optional.
 */
export function chooseRequirement(
  security: OperationInfo['security'],
  mode: AuthMode,
  tokenEndpoint: boolean,
): readonly string[] | undefined {
  if (security.length === 0) return [];
  // Credentials are exchanged for a token with Basic; a token cannot be needed to obtain one.
  const preference = tokenEndpoint ? PREFERENCE[mode].filter((s) => s !== BEARER) : PREFERENCE[mode];
  let best: readonly string[] | undefined;
  let bestRank = Infinity;
  for (const requirement of security) {
    const ranks = requirement.map((scheme) => preference.indexOf(scheme));
    // Basic and bearer both live in the Authorization header: they cannot be sent together.
    if (ranks.includes(-1) || (requirement.includes(BASIC) && requirement.includes(BEARER))) continue;
    const rank = requirement.length === 0 ? preference.length : Math.max(...ranks);
    if (rank < bestRank) [best, bestRank] = [requirement, rank];
  }
  return best;
}

/** HTTP Basic credentials, UTF-8 safe (btoa alone only takes Latin-1). */
export function basicAuthorization(user: string, password: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(`${user}:${password}`)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

export interface TokenGrant {
  access_token: string;
  expires_in: number;
}

export interface AccessTokens {
  /** The cached token while it is fresh (no promise: the common case stays synchronous). */
  current(): string | undefined;
  /** A new token; concurrent callers share one token request (single flight). */
  obtain(): Promise<string>;
  /** Forgets `token` if it is still the cached one (after the API rejected it with 401). */
  invalidate(token: string): void;
}

export function createAccessTokens(requestToken: () => Promise<TokenGrant>, refreshSkewMs: number): AccessTokens {
  let token: string | undefined;
  let refreshAt = 0;
  let pending: Promise<string> | undefined;
  return {
    current: () => (token !== undefined && Date.now() < refreshAt ? token : undefined),
    obtain: () =>
      (pending ??= requestToken()
        .then((grant) => {
          token = grant.access_token;
          // Refresh a little before expiry, so that a token never expires in flight.
          refreshAt = Date.now() + grant.expires_in * 1000 - refreshSkewMs;
          return token;
        })
        .finally(() => {
          pending = undefined;
        })),
    invalidate: (rejected) => {
      if (token === rejected) token = undefined;
    },
  };
}
