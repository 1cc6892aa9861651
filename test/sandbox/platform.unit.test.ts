// The sandbox's platform (sandbox/app/platform.ts) on Node and in a page: the keys, digests and
// seeded ids made before it existed, with node:crypto called directly, come out the same on both (a
// database's stored digests and sealed values still match, a seed still gives its ids), each opens
// what the other sealed, and each keeps a sandbox's random stream through asynchronous work as its
// runtime allows.
import { afterEach, describe, expect, it } from 'vitest';
import { installPlatform, type Platform } from '../../sandbox/app/platform.js';
import { randomBytes, seededStream, withRandom } from '../../sandbox/app/random.js';
import { deriveSecrets } from '../../sandbox/app/secrets.js';
import { nodePlatform } from '../../sandbox/platform/node.js';
import { webPlatform } from '../../sandbox/platform/web.js';

/** Made by the sandbox before the platform, for the secret 's' × 40 (and, for binaryCheck, a secret of bytes). */
const BEFORE = {
  seed42: Buffer.from(
    '4b2aebbee181b2f39ef8c73ea548346bd5a25ec7c7262055f0b4be82838461ec70b85134dcc998de2d9c31474ee6d6339547f40e76cd94cff72d83636831ddcf631e8879d80474dc183724e25262ff881cc56db43f7c12f9869ee5dbf62f1cb41a2698bf',
    'hex',
  ),
  apiKeyDigest: '10e2ea066ef715e8e3e943d20e48ca8536cab6d3df93a5499f7e124f7e4bcc83',
  fingerprint: 'ec4ea6c24f7381b66750db55cca6535aff06f8ed067f1ac786b485532590adc3',
  requestDigest: 'f8334241ef6dec03fea261c275d25ed36f64292a3641c1c992f5981779277e1f',
  check: '69d3e3a0e40744241df87a33143a9f741a541f545fb1b071011d1fd0fd57b1e6',
  tokenKey: '5c4d7df73e128eabde3204cb45f7bf6c0a52b50ccc63dcd987627da6c44ff8a7',
  sealed: 'v1.AMqjFrwIPic6Krw9lxRUMiPHw5Lxi3HYaI0P-V1zInj9LpkG9EaC',
  binaryCheck: '77e6068fbc43905df37c2bad4946d830d5c2fa81697db31d872aaafef16441e9',
};
const SECRET = 's'.repeat(40);

const PLATFORMS: Array<[string, Platform]> = [
  ['node', nodePlatform],
  ['web', webPlatform],
];

// The setup file installs Node's; a test that installs the page's puts Node's back.
afterEach(() => installPlatform(nodePlatform));

describe.each(PLATFORMS)('on the %s platform', (_name, platform) => {
  it('derives the keys and digests the sandbox made before, from a text or a binary secret', () => {
    installPlatform(platform);
    const keys = deriveSecrets(SECRET);
    expect(keys.apiKeyDigest('sk_test_abc')).toBe(BEFORE.apiKeyDigest);
    expect(keys.fingerprint('CARD:4012888888881881')).toBe(BEFORE.fingerprint);
    expect(keys.requestDigest('POST /payments {"a":1}')).toBe(BEFORE.requestDigest);
    expect(keys.check).toBe(BEFORE.check);
    expect(Buffer.from(keys.tokenKey).toString('hex')).toBe(BEFORE.tokenKey);
    expect(deriveSecrets(Buffer.from('binary-secret-0123456789-0123456789')).check).toBe(BEFORE.binaryCheck);
    expect(keys.matchesApiKey(BEFORE.apiKeyDigest, 'sk_test_abc')).toBe(true);
    expect(keys.matchesApiKey(BEFORE.apiKeyDigest, 'sk_test_abd')).toBe(false);
    expect(keys.matchesApiKey('not hex', 'sk_test_abc')).toBe(false);
  });

  it('draws the ids of a seed that the sandbox drew before', () => {
    installPlatform(platform);
    const stream = seededStream(42);
    // In uneven pieces: the stream's blocks join up the same.
    const drawn = Buffer.concat([7, 1, 40, 52].map((n) => stream.fill(Buffer.alloc(n))));
    expect(drawn).toEqual(BEFORE.seed42);
  });

  it('opens what was sealed before, and what the other platform seals; refuses another secret', async () => {
    installPlatform(platform);
    const keys = deriveSecrets(SECRET);
    expect(await keys.unseal(BEFORE.sealed)).toBe('whsec_hello');
    const other = PLATFORMS.find(([, p]) => p !== platform)![1];
    installPlatform(other);
    const sealedThere = await deriveSecrets(SECRET).seal('tschüss ✓');
    installPlatform(platform);
    expect(await keys.unseal(sealedThere)).toBe('tschüss ✓');
    expect(await keys.unseal(await keys.seal(''))).toBe('');
    for (const broken of [BEFORE.sealed.slice(0, -2), 'v1.', 'v2.abc', await deriveSecrets('t'.repeat(40)).seal('x')])
      await expect(keys.unseal(broken), broken).rejects.toThrow(/does not open with this sandbox secret/);
  });

  it('fills large buffers with random bytes, and compares bytes only of the same length', () => {
    const big = platform.randomFill(new Uint8Array(200_000));
    expect(new Set(big.subarray(150_000)).size).toBeGreaterThan(200); // past getRandomValues' 65,536 bytes a call
    expect(platform.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(platform.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(platform.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});

describe('a sandbox’s random stream through asynchronous work', () => {
  const drawAfterAWait = (seed: number) =>
    withRandom(seededStream(seed), async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return randomBytes(8).toString('hex');
    });

  it('on Node, stays with each of two sandboxes running at once', async () => {
    const [one, two] = await Promise.all([drawAfterAWait(1), drawAfterAWait(2)]);
    expect(one).toBe(seededStream(1).fill(Buffer.alloc(8)).toString('hex'));
    expect(two).toBe(seededStream(2).fill(Buffer.alloc(8)).toString('hex'));
  });

  it('in a page, which runs one sandbox, is the one set last', () => {
    const context = webPlatform.asyncContext<string>();
    expect(context.get()).toBeUndefined();
    expect(context.run('a', () => context.get())).toBe('a');
    expect(context.get()).toBe('a');
    context.run('b', () => undefined);
    expect(context.get()).toBe('b');
  });
});
