// The files a step produces and how they reach the output directory: each atomically, and only
// when its bytes differ from the file already there (an unchanged file keeps its time stamp, so
// editors and watchers of generated/ see only what changed).
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './fs.js';

/** A file made by a step; `path` is relative to the output directory, with `/`. */
export interface MadeArtifact {
  path: string;
  content: string | Uint8Array;
}

/** A file of a cached step: its bytes are the file `source` in the cache. */
export interface CachedArtifact {
  path: string;
  source: string;
  sha256: string;
  size: number;
}

export type Artifact = MadeArtifact | CachedArtifact;

export interface Digest {
  sha256: string;
  size: number;
}

const digests = new WeakMap<MadeArtifact, Digest>();

/** sha256 and size of an artifact's bytes (computed once per made artifact). */
export function digestOf(artifact: Artifact): Digest {
  if (!('content' in artifact)) return { sha256: artifact.sha256, size: artifact.size };
  let digest = digests.get(artifact);
  if (!digest) {
    const bytes = typeof artifact.content === 'string' ? Buffer.from(artifact.content) : artifact.content;
    digest = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.byteLength };
    digests.set(artifact, digest);
  }
  return digest;
}

/** Writes each artifact under `out` unless the file there already holds exactly its bytes. */
export async function writeArtifacts(out: string, artifacts: readonly Artifact[]): Promise<void> {
  for (const artifact of artifacts) {
    const target = join(out, artifact.path);
    if (await holds(target, digestOf(artifact))) continue;
    await writeFileAtomic(target, 'content' in artifact ? artifact.content : await cachedBytes(artifact));
  }
}

/** An artifact's bytes as text. */
export async function textOf(artifact: Artifact): Promise<string> {
  if (!('content' in artifact)) return (await cachedBytes(artifact)).toString('utf8');
  return typeof artifact.content === 'string' ? artifact.content : Buffer.from(artifact.content).toString('utf8');
}

/** The bytes of a cached artifact, checked against the digest stored with them. */
async function cachedBytes(artifact: CachedArtifact): Promise<Buffer> {
  const bytes = await readFile(artifact.source).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    throw new Error(
      `the step cache's entry ${dirname(artifact.source)} was removed while this run used it (another run kept newer ones): run the command again`,
    );
  });
  if (createHash('sha256').update(bytes).digest('hex') !== artifact.sha256) {
    const entry = dirname(artifact.source);
    await rm(entry, { recursive: true, force: true });
    throw new Error(`the step cache's entry ${entry} was damaged and is now removed: run the command again`);
  }
  return bytes;
}

async function holds(path: string, digest: Digest): Promise<boolean> {
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  );
  if (size !== digest.size) return false;
  const bytes = await readFile(path).catch(() => undefined);
  return bytes !== undefined && createHash('sha256').update(bytes).digest('hex') === digest.sha256;
}

/** Removes the files under `dir` that are not in `keep` (absolute paths): what no step produces any more. */
export async function removeStale(dir: string, keep: ReadonlySet<string>): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = join(e.parentPath, e.name);
    if (e.isFile() && !keep.has(full)) await rm(full);
  }
}
