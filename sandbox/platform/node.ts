// The platform on Node (sandbox/app/platform.ts): its crypto built-ins, AsyncLocalStorage, and the
// addresses of the machine's interfaces (the webhook destination policy's own addresses, given to
// app/destinations.ts by the server once it listens).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomFillSync,
  timingSafeEqual,
} from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { AsyncContext, Platform } from '../app/platform.js';

const TAG_BYTES = 16;

export const nodePlatform: Platform = {
  randomFill: (target) => randomFillSync(target),
  sha256: (data) => createHash('sha256').update(data).digest(),
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
  hkdfSha256: (secret, salt, info, length) => new Uint8Array(hkdfSync('sha256', secret, salt, info, length)),
  timingSafeEqual: (a, b) => a.length === b.length && timingSafeEqual(a, b),
  async aesGcmEncrypt(key, iv, plaintext) {
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  },
  async aesGcmDecrypt(key, iv, sealed) {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  },
  asyncContext<T>(): AsyncContext<T> {
    const storage = new AsyncLocalStorage<T>();
    return { run: (value, work) => storage.run(value, work), get: () => storage.getStore() };
  },
};

/** The addresses of this machine's network interfaces (a server listening on every interface is reachable at each). */
export const localAddresses = (): string[] =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
