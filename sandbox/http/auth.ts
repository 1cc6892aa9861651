// Authentication as the contract says, per operation: HTTP Basic (merchant id and API key), bearer
// JWTs issued by the token endpoint (HS256 with a key derived from the sandbox secret, an expiry
// capped at the documented lifetime, bound to the root they were issued on, timed by the scope's test
// clock), and the API key in `X-API-Key` on the operations that accept it. A credential of a scheme
// the operation does not accept is refused like a wrong one.
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { platform } from '../app/platform.js';
import { csprngBytes } from '../app/random.js';
import type { SandboxSecrets } from '../app/secrets.js';
import type { SecurityScheme } from '../contract/api-document.js';
import type { Environment, Merchant, Scope } from '../domain/types.js';
import type { Store } from '../store/store.js';
import { unstorable } from './limits.js';

/** Lifetime of an access token (the contract's expires_in); a longer-lived token is refused. */
export const TOKEN_LIFETIME_SECONDS = 3600;
/**
 * How long a verified credential is taken on trust: a key rotated by another process (or removed
 * from the merchants file) is refused by this one within this time.
 */
export const CREDENTIAL_CACHE_MS = 5_000;
const CACHE_ENTRIES = 10_000;
const CACHE_BYTES = 8 * 1024 * 1024;
const ISSUER = 'payment-service-sandbox';

export type AuthResult =
  | {
      ok: true;
      merchant: Merchant;
      scheme: SecurityScheme;
      /** A bearer token's expiry (seconds since the epoch, on the scope's clock). */
      expiresAt?: number;
    }
  | { ok: false; detail: string };

export interface Authenticator {
  authenticate(
    accepted: readonly SecurityScheme[],
    headers: Record<string, string | string[] | undefined>,
    environment: Environment,
  ): Promise<AuthResult>;
  /**
   * A token for `merchant` on the root of `environment`, valid for the documented lifetime; a token
   * obtained with a bearer token expires no later than that one (`notAfter`), so a token cannot be
   * renewed forever without the merchant's key.
   */
  issueToken(
    merchant: Merchant,
    environment: Environment,
    options?: { scope?: string | undefined; notAfter?: number | undefined },
  ): Promise<{ token: string; expiresIn: number }>;
  /** Forgets the verified credentials of `merchantId` (all without one): its key was rotated here. */
  forget(merchantId?: string): void;
}

/** A strict base64 value (what `Buffer.from(…, 'base64')` would silently cut short is refused). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Text every store keeps as it is (no NUL, no lone surrogate: PostgreSQL refuses them). */
const storable = (text: string) => unstorable(text) === undefined;

/** `Basic base64(id:key)` → [id, key], or undefined when malformed. */
export function parseBasic(value: string): [string, string] | undefined {
  if (!BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const [id, key] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return storable(id) && storable(key) ? [id, key] : undefined;
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

interface Verified {
  merchant: Merchant;
  scheme: SecurityScheme;
  /** A bearer token's expiry (seconds, on the scope's clock). */
  expiresAt?: number;
  /** Wall-clock time until which the credential is taken on trust. */
  trustedUntil: number;
  bytes: number;
}

/**
 * Verified credentials, by the digest of what was presented (never by the presented text itself),
 * bounded in entries and in bytes; the oldest go first.
 */
class CredentialCache {
  private readonly entries = new Map<string, Verified>();
  private bytes = 0;

  get(key: string): Verified | undefined {
    const hit = this.entries.get(key);
    if (hit && hit.trustedUntil <= Date.now()) {
      this.delete(key);
      return undefined;
    }
    return hit;
  }

  set(key: string, entry: Omit<Verified, 'trustedUntil' | 'bytes'>): void {
    this.delete(key);
    const bytes = key.length + JSON.stringify(entry.merchant).length + 64;
    this.entries.set(key, { ...entry, trustedUntil: Date.now() + CREDENTIAL_CACHE_MS, bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= CACHE_ENTRIES && this.bytes <= CACHE_BYTES) break;
      this.delete(oldest);
    }
  }

  /** Drops the entries of `merchantId`, or every entry. */
  forget(merchantId?: string): void {
    for (const [key, entry] of this.entries)
      if (merchantId === undefined || entry.merchant.merchantId === merchantId) this.delete(key);
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}

/** `now`: the time of a scope (its test clock): tokens are issued and expire on it. */
export function createAuthenticator(
  store: Store,
  secrets: SandboxSecrets,
  now: (scope: Scope) => Date = () => new Date(),
): Authenticator {
  return new SandboxAuthenticator(store, secrets, now);
}

/** The credential an Authorization or X-API-Key header presents, or why it is refused before any look-up. */
function presented(
  accepted: readonly SecurityScheme[],
  headers: Record<string, string | string[] | undefined>,
): { scheme: SecurityScheme; credential: string } | { ok: false; detail: string } {
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
  const credential = scheme === 'apiKeyAuth' ? apiKey! : authorization!.slice(scheme === 'basicAuth' ? 6 : 7).trim();
  return { scheme, credential };
}

class SandboxAuthenticator implements Authenticator {
  readonly #key: Uint8Array;
  readonly #verified = new CredentialCache();
  /**
   * An unknown merchant costs the same digest and comparison as a wrong key: the answer's timing
   * does not tell which merchant ids exist.
   */
  readonly #absent: string;

  constructor(
    private readonly store: Store,
    private readonly secrets: SandboxSecrets,
    private readonly now: (scope: Scope) => Date,
  ) {
    this.#key = secrets.tokenKey;
    this.#absent = secrets.apiKeyDigest(csprngBytes(32).toString('hex'));
  }

  forget(merchantId?: string): void {
    this.#verified.forget(merchantId);
  }

  async issueToken(
    merchant: Merchant,
    environment: Environment,
    options: { scope?: string | undefined; notAfter?: number | undefined } = {},
  ): Promise<{ token: string; expiresIn: number }> {
    const issuedAt = Math.floor(this.now({ merchantId: merchant.merchantId, environment }).getTime() / 1000);
    const expiresAt = Math.min(issuedAt + TOKEN_LIFETIME_SECONDS, options.notAfter ?? Number.POSITIVE_INFINITY);
    // An empty scope is none.
    const token = await new SignJWT({ scope: options.scope || undefined })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(environment)
      .setSubject(merchant.merchantId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.#key);
    return { token, expiresIn: Math.max(0, expiresAt - issuedAt) };
  }

  async authenticate(
    accepted: readonly SecurityScheme[],
    headers: Record<string, string | string[] | undefined>,
    environment: Environment,
  ): Promise<AuthResult> {
    const credentials = presented(accepted, headers);
    if ('ok' in credentials) return credentials;
    const { scheme, credential } = credentials;
    const cacheKey = Buffer.from(platform().sha256(`${scheme}\n${environment}\n${credential}`)).toString('hex');
    const hit = this.#verified.get(cacheKey);
    if (
      hit &&
      (hit.expiresAt === undefined ||
        hit.expiresAt * 1000 > this.now({ merchantId: hit.merchant.merchantId, environment }).getTime())
    ) {
      return { ok: true, merchant: hit.merchant, scheme, expiresAt: hit.expiresAt };
    }
    const result = await this.#verify(scheme, credential, environment);
    if (result.ok) this.#verified.set(cacheKey, { merchant: result.merchant, scheme, expiresAt: result.expiresAt });
    return result;
  }

  /** A credential checked against the store (a key's digest) or the token key (a bearer token's signature). */
  async #verify(scheme: SecurityScheme, credential: string, environment: Environment): Promise<AuthResult> {
    if (scheme === 'basicAuth') {
      const pair = parseBasic(credential);
      const merchant = pair ? await this.#verifyKey(pair[0], pair[1]) : undefined;
      return merchant ? { ok: true, merchant, scheme } : { ok: false, detail: 'Unknown merchant id or wrong API key.' };
    }
    if (scheme === 'apiKeyAuth') {
      const merchant = await this.store.merchants.getByApiKeyHash(this.secrets.apiKeyDigest(credential));
      return merchant ? { ok: true, merchant, scheme } : { ok: false, detail: 'Unknown API key.' };
    }
    return this.#verifyToken(credential, environment);
  }

  async #verifyKey(merchantId: string, apiKey: string): Promise<Merchant | undefined> {
    const merchant = await this.store.merchants.get(merchantId);
    // An empty digest: a merchant whose key is no longer usable (an earlier version's unkeyed digest).
    const usable = merchant !== undefined && merchant.apiKeyHash !== '';
    const matches = this.secrets.matchesApiKey(usable ? merchant.apiKeyHash : this.#absent, apiKey);
    return usable && matches ? merchant : undefined;
  }

  async #verifyToken(jwt: string, environment: Environment): Promise<AuthResult> {
    try {
      // The subject's clock decides expiry; the subject is trusted only once the signature is.
      const claimed = decodeJwt(jwt).sub;
      const subject = typeof claimed === 'string' && storable(claimed) ? claimed : undefined;
      const currentDate = subject !== undefined ? this.now({ merchantId: subject, environment }) : new Date();
      const { payload } = await jwtVerify(jwt, this.#key, {
        issuer: ISSUER,
        audience: environment,
        algorithms: ['HS256'],
        currentDate,
      });
      const { iat, exp, sub } = payload;
      if (typeof iat !== 'number' || typeof exp !== 'number' || exp - iat > TOKEN_LIFETIME_SECONDS) {
        return { ok: false, detail: 'Invalid bearer token.' };
      }
      const merchant = typeof sub === 'string' && storable(sub) ? await this.store.merchants.get(sub) : undefined;
      if (!merchant) return { ok: false, detail: 'The token names no known merchant.' };
      return { ok: true, merchant, scheme: 'bearerAuth', expiresAt: exp };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired)
        return { ok: false, detail: 'The token has expired: obtain a new one.' };
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
        return { ok: false, detail: `The token was not issued for the ${environment} root.` };
      }
      return { ok: false, detail: 'Invalid bearer token.' };
    }
  }
}
