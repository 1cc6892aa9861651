// What tests take from the npm registry rather than from the project's install:
// - a published release as the registry holds it: the version's integrity as the registry
//   publishes it, its tarball checked against that integrity, and a file read out of the tarball
//   (the vendored Scalar bundle is held to its release so); the verified tarball is kept in a
//   cache folder, so later runs need the registry only for the version's document.
// (A pinned set of packages installed into a cache folder: tooling/pinned-install.ts.)
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The registry npm uses (npm sets npm_config_registry for the scripts and `npx` it runs). */
export const REGISTRY = (process.env.npm_config_registry ?? 'https://registry.npmjs.org/').replace(/\/?$/, '/');

export interface PublishedRelease {
  tarball: string;
  integrity: string;
}

/** The registry's `dist` of one version: where its tarball is and the integrity it publishes. */
export async function publishedRelease(name: string, version: string): Promise<PublishedRelease> {
  const url = `${REGISTRY}${name.replace('/', '%2f')}/${version}`;
  const document = (await fetchFromRegistry(url, `${name} ${version}`).then((r) => r.json())) as {
    dist?: Partial<PublishedRelease>;
  };
  const { tarball, integrity } = document.dist ?? {};
  if (typeof tarball !== 'string' || typeof integrity !== 'string')
    throw new Error(`${url}: the registry's document of ${name} ${version} has no dist.tarball and dist.integrity`);
  return { tarball, integrity };
}

/**
 * The release's tarball, from `cacheDir` when a copy there matches `integrity`, else downloaded,
 * checked against `integrity` (an SRI string, `sha512-…`) and kept there. Throws on a mismatch.
 */
export async function verifiedTarball(release: PublishedRelease, cacheDir: string): Promise<Buffer> {
  const cached = join(cacheDir, `${createHash('sha256').update(release.integrity).digest('hex')}.tgz`);
  const kept = await readFile(cached).catch(() => undefined);
  if (kept && matchesIntegrity(kept, release.integrity)) return kept;
  const bytes = Buffer.from(await (await fetchFromRegistry(release.tarball, release.tarball)).arrayBuffer());
  if (!matchesIntegrity(bytes, release.integrity))
    throw new Error(`${release.tarball}: the tarball does not match the integrity the registry publishes`);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(`${cached}.tmp`, bytes);
  await rename(`${cached}.tmp`, cached);
  return bytes;
}

/** Whether `bytes` have the digest of the SRI string `integrity` (any of its `algorithm-base64` entries). */
export function matchesIntegrity(bytes: Buffer, integrity: string): boolean {
  return integrity
    .trim()
    .split(/\s+/)
    .some((entry) => {
      const match = /^(sha256|sha384|sha512)-([A-Za-z0-9+/=]+)$/.exec(entry);
      return match !== null && createHash(match[1]).update(bytes).digest('base64') === match[2];
    });
}

/** One regular file of a gzipped tar (npm's tarballs: ustar, with pax headers for long names), by its path. */
export function tarEntry(tgz: Buffer, path: string): Buffer {
  const tar = gunzipSync(tgz);
  let paxPath: string | undefined;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
      continue;
    }
    const prefix = field(345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    paxPath = undefined;
    if ((type === '0' || type === '') && name === path) return Buffer.from(body);
  }
  throw new Error(`the tarball has no file ${path}`);
}

async function fetchFromRegistry(url: string, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new Error(`could not reach the npm registry for ${what} (${url}): ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`${url}: the registry answered ${response.status} for ${what}`);
  return response;
}

/** Where tests keep what they fetched: node_modules/.cache/<name>, gone with node_modules. */
export const cacheFolder = (root: string, name: string) => join(root, 'node_modules', '.cache', name);
