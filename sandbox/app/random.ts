// Where the sandbox's visible random values come from: every id, API key, webhook secret, admin key
// and in-memory sandbox secret. By default the operating system's CSPRNG, drawn from a pool filled
// 4 kB at a time (one call into it per ~200 ids, not one per id). With a seed (`--seed`), a stream
// that is a function of the seed alone (SHA-256 of the seed and a block counter), so that the same
// requests, in the same order, get the same ids and keys: screenshots and snapshot tests stay stable.
// Seeded values are guessable, which is why only an in-memory sandbox on loopback takes a seed
// (sandbox/main.ts).
//
// A process holds one stream (`seedRandom`), or, for sandboxes made in one process side by side
// (the package's createSandbox), each its own: `withRandom` runs a sandbox's start and each of its
// requests with its stream, which the timers and callbacks they set up keep (async context).
import { type AsyncContext, platform } from './platform.js';

export interface RandomStream {
  /** Fills `target` with the stream's next bytes. */
  fill(target: Buffer): Buffer;
}

/** The operating system's CSPRNG, through a pool. */
function csprngStream(): RandomStream {
  const pool = Buffer.alloc(4096);
  let used = pool.length;
  return {
    fill(target) {
      if (target.length > pool.length) return platform().randomFill(target);
      if (used + target.length > pool.length) {
        platform().randomFill(pool);
        used = 0;
      }
      pool.copy(target, 0, used, used + target.length);
      used += target.length;
      return target;
    },
  };
}

/** The stream of `seed` (a safe non-negative integer), from its start. */
export function seededStream(seed: number): RandomStream {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`a seed is a non-negative integer, got ${seed}`);
  let block = 0;
  let bytes = Buffer.alloc(0);
  let used = 0;
  return {
    fill(target) {
      for (let at = 0; at < target.length; ) {
        if (used === bytes.length) {
          bytes = Buffer.from(platform().sha256(`payment-sandbox:${seed}:${block++}`));
          used = 0;
        }
        const n = Math.min(target.length - at, bytes.length - used);
        bytes.copy(target, at, used, used + n);
        used += n;
        at += n;
      }
      return target;
    },
  };
}

let processStream: RandomStream = csprngStream();
let scopedStream: AsyncContext<RandomStream> | undefined;
/** The context of withRandom's streams, made on first use (the platform is installed by then). */
const scoped = () => (scopedStream ??= platform().asyncContext<RandomStream>());

/** From now on, this process draws from the stream of `seed`, from its start. */
export function seedRandom(seed: number): void {
  processStream = seededStream(seed);
}

/** Runs `work` (and what it sets up to run later) drawing from `stream`; a new CSPRNG stream when none is given. */
export const withRandom = <T>(stream: RandomStream | undefined, work: () => T): T =>
  scoped().run(stream ?? csprngStream(), work);

/** `count` random bytes from the current stream. */
export const randomBytes = (count: number): Buffer => (scoped().get() ?? processStream).fill(Buffer.alloc(count));

/**
 * `count` bytes from the CSPRNG whatever the current stream: for values never shown (a claim's
 * token, an IV), drawn at times no request fixes, which would shift a seeded stream.
 */
export const csprngBytes = (count: number): Buffer => platform().randomFill(Buffer.alloc(count));
