// Where the sandbox's visible random values come from: every id, API key, webhook secret, admin key
// and in-memory sandbox secret. By default the operating system's CSPRNG. With a seed (`--seed`), a
// stream that is a function of the seed alone (SHA-256 of the seed and a block counter), so that the
// same requests, in the same order, get the same ids and keys: screenshots and snapshot tests stay
// stable. Seeded values are guessable, which is why only an in-memory sandbox on loopback takes a seed
// (sandbox/main.ts). One stream per process: the sandbox is one process.
import { createHash, randomFillSync } from 'node:crypto';

let stream: { seed: number; block: number; bytes: Buffer; used: number } | undefined;

/** From now on, draws from the stream of `seed` (a safe non-negative integer), from its start. */
export function seedRandom(seed: number): void {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`a seed is a non-negative integer, got ${seed}`);
  stream = { seed, block: 0, bytes: Buffer.alloc(0), used: 0 };
}

/** Whether values are drawn from a seed (and so are guessable). */
export const isSeeded = (): boolean => stream !== undefined;

/** Fills `target` from the seed's stream, or from the CSPRNG. */
export function fillRandom(target: Buffer): Buffer {
  if (!stream) return randomFillSync(target);
  for (let at = 0; at < target.length; ) {
    if (stream.used === stream.bytes.length) {
      stream.bytes = createHash('sha256')
        .update(`payment-sandbox:${stream.seed}:${stream.block++}`)
        .digest();
      stream.used = 0;
    }
    const n = Math.min(target.length - at, stream.bytes.length - stream.used);
    stream.bytes.copy(target, at, stream.used, stream.used + n);
    stream.used += n;
    at += n;
  }
  return target;
}

/** `count` random bytes. */
export const randomBytes = (count: number): Buffer => fillRandom(Buffer.alloc(count));
