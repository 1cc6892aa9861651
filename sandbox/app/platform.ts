// What the sandbox takes from the runtime it runs on: random bytes, SHA-256 and the keys built on it
// (HMAC, HKDF), AES-256-GCM, and a context that follows asynchronous work. Node gives them through
// its built-ins (sandbox/platform/node.ts), a browser page through Web Crypto and a hash library
// (sandbox/platform/web.ts); app/, contract/ and domain/ import neither, so they run on both.
//
// The platform is installed once per process (or page) by its composition root, not passed through
// the use cases: it is a property of the runtime, the same for every sandbox a process holds, and
// every id (app/ids.ts), key and digest needs it; threading it through each call would add a
// parameter to most of app/ for a value that never varies within a run. Roots: sandbox/main.ts,
// packages/sandbox/src/index.ts, the tests' setup (test/support/platform.ts), and a browser page's
// entry with the web platform. Nothing calls platform() while a module loads: a root installs it
// in its body, after its imports have run.

/** A value that follows the work it was set for, into the promises, timers and callbacks that work sets up. */
export interface AsyncContext<T> {
  /** Runs `work` with `value` as the current value. */
  run<R>(value: T, work: () => R): R;
  /** The current value; undefined outside any run. */
  get(): T | undefined;
}

export interface Platform {
  /** Fills `target` from the operating system's (or the browser's) cryptographically strong generator. */
  randomFill<T extends Uint8Array>(target: T): T;
  /** SHA-256 of `data` (a string as UTF-8). */
  sha256(data: string | Uint8Array): Uint8Array;
  /** HMAC-SHA-256 of `data` (a string as UTF-8) under `key`. */
  hmacSha256(key: Uint8Array, data: string | Uint8Array): Uint8Array;
  /** HKDF-SHA-256 (RFC 5869): `length` bytes derived from `secret` with `salt` and `info` (strings as UTF-8). */
  hkdfSha256(secret: string | Uint8Array, salt: string, info: string, length: number): Uint8Array;
  /** Whether `a` and `b` hold the same bytes, in a time that does not depend on where they differ. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** AES-256-GCM: `plaintext` encrypted under `key` with the 12-byte `iv`, its 16-byte tag appended. */
  aesGcmEncrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
  /** The plaintext of `sealed` (ciphertext, then its tag); rejects when the tag does not match. */
  aesGcmDecrypt(key: Uint8Array, iv: Uint8Array, sealed: Uint8Array): Promise<Uint8Array>;
  /** A new context: AsyncLocalStorage on Node; in a page, which runs one sandbox, the value last set. */
  asyncContext<T>(): AsyncContext<T>;
}

let installed: Platform | undefined;

/** Makes `platform` the one the sandbox uses from now on (a composition root, once). */
export function installPlatform(platform: Platform): void {
  installed = platform;
}

/** The installed platform; throws naming the fix when no composition root installed one. */
export function platform(): Platform {
  if (installed === undefined)
    throw new Error(
      'no platform installed: the composition root calls installPlatform(nodePlatform) from sandbox/platform/node.ts (webPlatform in a browser page)',
    );
  return installed;
}
