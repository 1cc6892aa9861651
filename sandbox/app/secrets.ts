// The sandbox's secret, and every key derived from it. The secret lives outside the database (an
// environment variable, or a key file that every process of a team shares), so that a dump or a
// copied database file gives away no usable key: API keys are kept as keyed digests, webhook secrets
// sealed, tokens signed and card numbers fingerprinted with keys the database never holds.
import {
  type BinaryLike,
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes as drawRandom } from './random.js';

/** The environment variable that gives the secret itself (every process of a team the same). */
export const SECRET_ENV = 'SANDBOX_SECRET';
/** The environment variable that names the key file (default `.sandbox/secret.key`). */
export const SECRET_FILE_ENV = 'SANDBOX_SECRET_FILE';
export const DEFAULT_SECRET_FILE = join('.sandbox', 'secret.key');
/** A secret given as text must carry at least this many characters (a random one: 32 bytes in base64url). */
export const MIN_SECRET_LENGTH = 32;

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
  seal(text: string): string;
  /** The text `seal` encrypted; throws SecretMismatchError when another secret sealed it. */
  unseal(sealed: string): string;
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

const derive = (secret: BinaryLike, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'payment-service-sandbox', purpose, 32));

const hmacHex = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');

/** Every key, derived from `secret` with HKDF: one purpose, one key. */
export function deriveSecrets(secret: BinaryLike): SandboxSecrets {
  const apiKeys = derive(secret, 'api-key-digest');
  const fingerprints = derive(secret, 'card-fingerprint');
  const requests = derive(secret, 'request-digest');
  const sealing = derive(secret, 'sealing');
  const apiKeyDigest = (apiKey: string) => hmacHex(apiKeys, apiKey);
  return {
    apiKeyDigest,
    matchesApiKey(digest, apiKey) {
      const expected = Buffer.from(digest, 'hex');
      const actual = Buffer.from(apiKeyDigest(apiKey), 'hex');
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
    tokenKey: derive(secret, 'access-token'),
    fingerprint: (text) => hmacHex(fingerprints, text),
    requestDigest: (text) => hmacHex(requests, text),
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealing, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    unseal(sealed) {
      const raw = Buffer.from(sealed.startsWith('v1.') ? sealed.slice(3) : '', 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealing, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretMismatchError('a sealed value of the database does not open with this sandbox secret');
      }
    },
    check: hmacHex(derive(secret, 'check'), 'payment-service-sandbox'),
  };
}

export interface SecretSource {
  /** The secret itself (SANDBOX_SECRET). */
  secret?: string | undefined;
  /** A key file (--secret-file or SANDBOX_SECRET_FILE); created with a random secret when missing. */
  file?: string | undefined;
}

/**
 * The secret a process runs with: the one given, else the key file's (created 0600 with 32 random
 * bytes on first use). Throws naming the variable or the file when it is unusable.
 */
export function loadSecret(source: SecretSource): { secret: string; from: string } {
  if (source.secret !== undefined) {
    if (source.secret.trim().length < MIN_SECRET_LENGTH)
      throw new Error(`${SECRET_ENV} must be at least ${MIN_SECRET_LENGTH} characters (a random value)`);
    return { secret: source.secret.trim(), from: SECRET_ENV };
  }
  const file = source.file ?? DEFAULT_SECRET_FILE;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
    writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
    chmodSync(file, 0o600);
  } catch (err) {
    throw new Error(`cannot read the sandbox secret file ${file}: ${(err as Error).message}`);
  }
  if (text.length < MIN_SECRET_LENGTH)
    throw new Error(`the sandbox secret file ${file} must hold at least ${MIN_SECRET_LENGTH} characters`);
  return { secret: text, from: file };
}

/** A random secret, for a sandbox whose data does not outlive it (`:memory:`, tests); with a seed, the seed's (app/random.ts). */
export const ephemeralSecret = () => drawRandom(32).toString('base64url');
