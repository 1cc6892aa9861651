// The platform in a browser page (sandbox/app/platform.ts): Web Crypto for randomness and AES-GCM,
// and @noble/hashes for SHA-256, HMAC and HKDF, which the sandbox needs synchronously (a card's
// fingerprint, a request's digest) where Web Crypto's digests are asynchronous only. Web standards
// only, no Node built-in: it runs on Node too, which is how its results are held equal to Node's.
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { AsyncContext, Platform } from '../app/platform.js';

const utf8 = new TextEncoder();
const bytesOf = (data: string | Uint8Array) => (typeof data === 'string' ? utf8.encode(data) : data);
/** getRandomValues fills at most this many bytes a call. */
const RANDOM_QUOTA = 65_536;
const TAG_BITS = 128;

const aesKey = (key: Uint8Array, usage: 'encrypt' | 'decrypt') =>
  globalThis.crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, 'AES-GCM', false, [usage]);

export const webPlatform: Platform = {
  randomFill(target) {
    for (let at = 0; at < target.length; at += RANDOM_QUOTA)
      globalThis.crypto.getRandomValues(target.subarray(at, at + RANDOM_QUOTA));
    return target;
  },
  sha256: (data) => sha256(bytesOf(data)),
  hmacSha256: (key, data) => hmac(sha256, key, bytesOf(data)),
  hkdfSha256: (secret, salt, info, length) =>
    hkdf(sha256, bytesOf(secret), utf8.encode(salt), utf8.encode(info), length),
  timingSafeEqual(a, b) {
    if (a.length !== b.length) return false;
    let differ = 0;
    for (let i = 0; i < a.length; i++) differ |= a[i]! ^ b[i]!;
    return differ === 0;
  },
  async aesGcmEncrypt(key, iv, plaintext) {
    const params = { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, tagLength: TAG_BITS };
    return new Uint8Array(
      await globalThis.crypto.subtle.encrypt(
        params,
        await aesKey(key, 'encrypt'),
        plaintext as Uint8Array<ArrayBuffer>,
      ),
    );
  },
  async aesGcmDecrypt(key, iv, sealed) {
    const params = { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, tagLength: TAG_BITS };
    return new Uint8Array(
      await globalThis.crypto.subtle.decrypt(params, await aesKey(key, 'decrypt'), sealed as Uint8Array<ArrayBuffer>),
    );
  },
  // A page holds one sandbox: the value set last is the current one. It is not restored when `work`
  // returns, since the asynchronous work it started goes on after that and must still see it.
  asyncContext<T>(): AsyncContext<T> {
    let current: T | undefined;
    return {
      run(value, work) {
        current = value;
        return work();
      },
      get: () => current,
    };
  },
};
