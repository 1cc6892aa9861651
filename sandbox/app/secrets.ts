// The sandbox's secret, and every key derived from it. The secret lives outside the database (an
// environment variable, or a key file that every process of a team shares: platform/secret-file.ts),
// so that a dump or a copied database file gives away no usable key: API keys are kept as keyed
// digests, webhook secrets sealed, tokens signed and card numbers fingerprinted with keys the
// database never holds.
import { platform } from './platform.js';
import { csprngBytes, randomBytes } from './random.js';

export interface SandboxSecrets {
  /** The digest the store keeps of an API key (HMAC-SHA-256, hex): the key cannot be read back from it. */
  apiKeyDigest(apiKey: string): string;
  /** Whether `apiKey` is the key of `digest`, in constant time. */
  matchesApiKey(digest: string, apiKey: string): boolean;
  /** The HS256 key of the access tokens. */
  readonly tokenKey: Uint8Array;
  /** Keyed hash of a card number or IBAN: the same card is the same pseudo number, and no number can be tried against it. */
  fingerprint(text: string): string;
  /** Keyed hash of a request for its Idempotency-Key (the request may carry card data). */
  requestDigest(text: string): string;
  /** Encrypts `text` (AES-256-GCM) for the database. */
  seal(text: string): Promise<string>;
  /** The text `seal` encrypted; rejects with SecretMismatchError when another secret sealed it. */
  unseal(sealed: string): Promise<string>;
  /** Stored in the database on its first start: a later start with another secret is refused. */
  readonly check: string;
}

/** The database was set up with another sandbox secret. */
export class SecretMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretMismatchError';
  }
}

/** The bytes of an AES-GCM initialisation vector and of its tag, as a sealed value lays them out. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

const derive = (secret: string | Uint8Array, purpose: string) =>
  platform().hkdfSha256(secret, 'payment-service-sandbox', purpose, 32);

const hmacHex = (key: Uint8Array, text: string) => Buffer.from(platform().hmacSha256(key, text)).toString('hex');

/** Every key, derived from `secret` with HKDF: one purpose, one key. */
export function deriveSecrets(secret: string | Uint8Array): SandboxSecrets {
  const apiKeys = derive(secret, 'api-key-digest');
  const fingerprints = derive(secret, 'card-fingerprint');
  const requests = derive(secret, 'request-digest');
  const sealing = derive(secret, 'sealing');
  const apiKeyDigest = (apiKey: string) => hmacHex(apiKeys, apiKey);
  return {
    apiKeyDigest,
    matchesApiKey: (digest, apiKey) =>
      platform().timingSafeEqual(Buffer.from(digest, 'hex'), Buffer.from(apiKeyDigest(apiKey), 'hex')),
    tokenKey: derive(secret, 'access-token'),
    fingerprint: (text) => hmacHex(fingerprints, text),
    requestDigest: (text) => hmacHex(requests, text),
    async seal(text) {
      const iv = csprngBytes(IV_BYTES);
      const sealed = await platform().aesGcmEncrypt(sealing, iv, new TextEncoder().encode(text));
      const body = sealed.subarray(0, sealed.length - TAG_BYTES);
      const tag = sealed.subarray(sealed.length - TAG_BYTES);
      return `v1.${Buffer.concat([iv, tag, body]).toString('base64url')}`;
    },
    async unseal(sealed) {
      const raw = Buffer.from(sealed.startsWith('v1.') ? sealed.slice(3) : '', 'base64url');
      const tag = raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
      const body = raw.subarray(IV_BYTES + TAG_BYTES);
      try {
        const text = await platform().aesGcmDecrypt(sealing, raw.subarray(0, IV_BYTES), Buffer.concat([body, tag]));
        return new TextDecoder().decode(text);
      } catch {
        throw new SecretMismatchError('a sealed value of the database does not open with this sandbox secret');
      }
    },
    check: hmacHex(derive(secret, 'check'), 'payment-service-sandbox'),
  };
}

/** A random secret, for a sandbox whose data does not outlive it (`:memory:`, tests); with a seed, the seed's (app/random.ts). */
export const ephemeralSecret = () => randomBytes(32).toString('base64url');
