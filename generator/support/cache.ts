// The step cache: one entry per step and key (support/inputs.ts), under
// node_modules/.cache/payment-generate/<step>/<key>/: the step's files and its report's detail.
// An entry is written whole in a temp folder and renamed into place, so that a reader sees it
// complete or not at all; only steps that succeeded are stored. The few most recently used
// entries of each step are kept (a docs entry holds the whole site).
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Artifact, type CachedArtifact, digestOf } from './artifacts.js';
import { REPO_ROOT } from './paths.js';

export const CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'payment-generate');

/** Entries kept per step: the current one, and a few to go back to (an undone edit, a switched branch). */
const KEEP = 4;
/** A temp folder this old was left by a process that died while storing. */
const ABANDONED_MS = 60 * 60 * 1000;

export interface CachedOutput {
  artifacts: CachedArtifact[];
  detail?: string;
  owns?: string;
}

interface Manifest {
  detail?: string;
  owns?: string;
  artifacts: Array<{ path: string; sha256: string; size: number; blob: string }>;
}

export class StepCache {
  /** `keep`: the entries kept per step (the most recently used). */
  constructor(
    readonly dir = CACHE_DIR,
    private readonly keep = KEEP,
  ) {}

  /** The entry of `step` under `key`, or undefined. */
  async get(step: string, key: string): Promise<CachedOutput | undefined> {
    const entry = join(this.dir, step, key);
    const manifestPath = join(entry, 'manifest.json');
    let manifest: Manifest;
    try {
      manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
    } catch {
      return undefined;
    }
    const now = new Date();
    await utimes(manifestPath, now, now).catch(() => undefined); // used: kept by the next prune
    return {
      detail: manifest.detail,
      owns: manifest.owns,
      artifacts: manifest.artifacts.map((a) => ({
        path: a.path,
        sha256: a.sha256,
        size: a.size,
        source: join(entry, a.blob),
      })),
    };
  }

  /** Stores a successful step's output under `key`; a failure to store is not the run's failure. */
  async put(step: string, key: string, output: { artifacts: readonly Artifact[]; detail?: string; owns?: string }) {
    const stepDir = join(this.dir, step);
    const tmp = join(stepDir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await mkdir(tmp, { recursive: true });
      const artifacts = await Promise.all(
        output.artifacts.map(async (artifact, i) => {
          const blob = String(i);
          if ('content' in artifact) await writeFile(join(tmp, blob), artifact.content);
          else await copyFile(artifact.source, join(tmp, blob));
          return { path: artifact.path, ...digestOf(artifact), blob };
        }),
      );
      const manifest: Manifest = { detail: output.detail, owns: output.owns, artifacts };
      await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest));
      await rename(tmp, join(stepDir, key)); // fails when the entry exists: stored by another run
    } catch {
      await rm(tmp, { recursive: true, force: true });
      return;
    }
    await this.prune(stepDir);
  }

  private async prune(stepDir: string): Promise<void> {
    const names = await readdir(stepDir).catch(() => [] as string[]);
    const entries = await Promise.all(
      names.map(async (name) => {
        const path = join(stepDir, name);
        const file = name.startsWith('.tmp-') ? path : join(path, 'manifest.json');
        const used = await stat(file).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        return { path, used, temp: name.startsWith('.tmp-') };
      }),
    );
    const kept = entries.filter((e) => !e.temp).sort((a, b) => b.used - a.used);
    const removed = [...kept.slice(this.keep), ...entries.filter((e) => e.temp && Date.now() - e.used > ABANDONED_MS)];
    for (const e of removed) await rm(e.path, { recursive: true, force: true });
  }
}
