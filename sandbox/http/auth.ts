// Authentication as the contract says, per operation: HTTP Basic (merchant id and API key), bearer
// JWTs issued by the token endpoint (HS256 with jose, with an expiry, bound to the root they were
// issued on, timed by the scope's test clock), and the API key in `X-API-Key` on the operations that
// accept it. A credential of a scheme the operation does not accept is refused like a wrong one.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { SecurityScheme } from '../contract/api-document.js';
import type { Environment, Merchant, Scope } from '../domain/types.js';
import type { Store } from '../store/store.js';

/** Lifetime of an access token (the contract's expires_in). */
export const TOKEN_LIFETIME_SECONDS = 3600;
const ISSUER = 'payment-service-sandbox';
const CACHE_LIMIT = 10_000;

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

export type AuthResult = { ok: true; merchant: Merchant; scheme: SecurityScheme } | { ok: false; detail: string };

export interface Authenticator {
  authenticate(
    accepted: readonly SecurityScheme[],
    headers: Record<string, string | string[] | undefined>,
    environment: Environment,
  ): Promise<AuthResult>;
  issueToken(
    merchant: Merchant,
    environment: Environment,
    scope?: string,
  ): Promise<{ token: string; expiresIn: number }>;
  /** Checks a merchant id and API key (the token endpoint's Basic credentials). */
  verifyKey(merchantId: string, apiKey: string): Promise<Merchant | undefined>;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `Basic base64(id:key)` → [id, key], or undefined when malformed. */
export function parseBasic(value: string): [string, string] | undefined {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? [decoded.slice(0, colon), decoded.slice(colon + 1)] : undefined;
}

const describe = (schemes: readonly SecurityScheme[]) =>
  schemes
    .map(
      (s) =>
        ({
          basicAuth: 'HTTP Basic (merchant id and API key)',
          bearerAuth: 'a bearer token',
          apiKeyAuth: 'the X-API-Key header',
        })[s],
    )
    .join(' or ');

/** `now`: the time of a scope (its test clock): tokens are issued and expire on it. */
export async function createAuthenticator(
  store: Store,
  now: (scope: Scope) => Date = () => new Date(),
): Promise<Authenticator> {
  // Shared by every sandbox process on the database, so that a token of one is valid on all.
  const key = Buffer.from(
    await store.setting('jwt-signing-key', () => randomBytes(32).toString('base64url')),
    'base64url',
  );
  // Verified credentials by header value: a request with the same header skips the hash and the
  // lookup. Bounded; a token's entry expires with the token.
  const verified = new Map<string, { merchant: Merchant; scheme: SecurityScheme; until: number }>();
  const remember = (header: string, merchant: Merchant, scheme: SecurityScheme, until = Infinity) => {
    if (verified.size >= CACHE_LIMIT) verified.clear();
    verified.set(header, { merchant, scheme, until });
  };

  const verifyKey = async (merchantId: string, apiKey: string) => {
    const merchant = await store.merchants.get(merchantId);
    return merchant && sameHash(merchant.apiKeyHash, sha256Hex(apiKey)) ? merchant : undefined;
  };

  return {
    verifyKey,
    async issueToken(merchant, environment, scope) {
      const issuedAt = Math.floor(now({ merchantId: merchant.merchantId, environment }).getTime() / 1000);
      const token = await new SignJWT({ ...(scope ? { scope } : {}) })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(environment)
        .setSubject(merchant.merchantId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
        .sign(key);
      return { token, expiresIn: TOKEN_LIFETIME_SECONDS };
    },
    async authenticate(accepted, headers, environment) {
      const authorization = typeof headers.authorization === 'string' ? headers.authorization : undefined;
      const apiKey = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
      const scheme: SecurityScheme | undefined = authorization
        ? /^basic /i.test(authorization)
          ? 'basicAuth'
          : /^bearer /i.test(authorization)
            ? 'bearerAuth'
            : undefined
        : apiKey !== undefined
          ? 'apiKeyAuth'
          : undefined;
      if (!scheme) {
        return {
          ok: false,
          detail: authorization ? 'Unsupported Authorization scheme.' : `Send ${describe(accepted)}.`,
        };
      }
      if (!accepted.includes(scheme))
        return { ok: false, detail: `This operation accepts ${describe(accepted)}, not ${describe([scheme])}.` };

      const header = scheme === 'apiKeyAuth' ? `key ${apiKey}` : `${environment} ${authorization}`;
      const hit = verified.get(header);
      if (
        hit &&
        hit.scheme === scheme &&
        hit.until > now({ merchantId: hit.merchant.merchantId, environment }).getTime()
      )
        return { ok: true, merchant: hit.merchant, scheme };

      if (scheme === 'basicAuth') {
        const pair = parseBasic(authorization!.slice(6).trim());
        const merchant = pair ? await verifyKey(pair[0], pair[1]) : undefined;
        if (!merchant) return { ok: false, detail: 'Unknown merchant id or wrong API key.' };
        remember(header, merchant, scheme);
        return { ok: true, merchant, scheme };
      }
      if (scheme === 'apiKeyAuth') {
        const merchant = await store.merchants.getByApiKeyHash(sha256Hex(apiKey!));
        if (!merchant) return { ok: false, detail: 'Unknown API key.' };
        remember(header, merchant, scheme);
        return { ok: true, merchant, scheme };
      }
      try {
        const jwt = authorization!.slice(7).trim();
        // The subject's clock decides expiry; the subject is trusted only once the signature is.
        const subject = decodeJwt(jwt).sub;
        const currentDate = typeof subject === 'string' ? now({ merchantId: subject, environment }) : new Date();
        const { payload } = await jwtVerify(jwt, key, {
          issuer: ISSUER,
          audience: environment,
          algorithms: ['HS256'],
          currentDate,
        });
        const merchant = typeof payload.sub === 'string' ? await store.merchants.get(payload.sub) : undefined;
        if (!merchant) return { ok: false, detail: 'The token names no known merchant.' };
        remember(header, merchant, scheme, (payload.exp ?? 0) * 1000);
        return { ok: true, merchant, scheme };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired)
          return { ok: false, detail: 'The token has expired: obtain a new one.' };
        if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud')
          return { ok: false, detail: `The token was not issued for the ${environment} root.` };
        return { ok: false, detail: 'Invalid bearer token.' };
      }
    },
  };
}
