// What a step's output depends on, read once per run and reduced to one content hash: the key of
// the step's entry in the step cache (support/cache.ts). A key is a hash of contents, never of
// times: a file saved with the same bytes keeps its key, one changed byte changes it.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

/**
 * What one step reads. Paths are absolute; a key hashes what is in them, not where they are (a
 * copy of the project has the keys of the original), so a path that the output names is a value.
 */
export interface StepInputs {
  /** Files, each by its content; a missing file is part of the key as missing (creating it changes the key). */
  files: readonly string[];
  /** Folders, each by the relative path and content of every file under it. */
  trees: readonly string[];
  /**
   * A contract's root: the root's folder as a tree, plus every file outside that folder that a
   * `$ref` in it names (and what those name in turn). A `$ref` to a URL makes the step uncacheable.
   */
  contracts: readonly string[];
  /** Settings that change the output: paths written into it, the tool versions outside the lockfile. */
  values: readonly string[];
}

interface FileRead {
  /** sha256 of the content, or `missing` */
  digest: string;
  /** what changes whenever the file is written, renamed over or removed: checked after the run */
  stamp: string;
  text?: string;
}

interface ContractRead {
  files: string[];
  /** false when a `$ref` names a URL: its content is not ours to hash */
  cacheable: boolean;
}

/** A `$ref` in YAML or JSON, its value's file part (before any `#`). */
const REF = /["']?\$ref["']?\s*:\s*["']?([^"'\s#,}\]]*)/g;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:/i;
const inside = (dir: string, path: string) => path.startsWith(dir + sep);

/**
 * Reads inputs for the keys of one run, each file once however many steps name it, and remembers
 * what it read so that `unchangedSince()` can tell whether any of it changed while the steps ran.
 */
export class InputReader {
  private readonly files = new Map<string, Promise<FileRead>>();
  private readonly trees = new Map<string, Promise<string[]>>();
  private readonly contracts = new Map<string, Promise<ContractRead>>();

  /** The key of `inputs` under `scope` (the step's name and the toolchain), or undefined when it cannot be cached. */
  async key(scope: readonly string[], inputs: StepInputs): Promise<string | undefined> {
    const hash = createHash('sha256');
    const add = (...parts: string[]) => {
      for (const part of parts) hash.update(`${part.length}:${part}\n`);
    };
    add('scope', ...scope, 'values', ...inputs.values);
    // read at once, hashed in order: each read waits on the disk, not on the one before
    const files = await Promise.all(inputs.files.map((file) => this.file(file)));
    for (const read of files) add('file', read.digest);
    for (const dir of inputs.trees) await this.addTree(add, dir, await this.tree(dir));
    for (const root of inputs.contracts) {
      const contract = await this.contract(root);
      if (!contract.cacheable) return undefined;
      add('root', basename(root));
      await this.addTree(add, dirname(resolve(root)), contract.files);
    }
    return hash.digest('hex');
  }

  /**
   * True when every file and folder read so far is as it was when it was read: nothing written,
   * renamed over, added or removed. A step's output is cached only then, so that a save during the
   * run never files the output of the new content under the key of the old (or the reverse).
   */
  async unchangedSince(): Promise<boolean> {
    const trees = await Promise.all(
      [...this.trees].map(async ([dir, listing]) => same(await listing, await listTree(dir))),
    );
    if (trees.includes(false)) return false;
    const files = await Promise.all(
      [...this.files].map(async ([path, read]) => (await read).stamp === (await stampOf(path))),
    );
    return !files.includes(false);
  }

  private async addTree(add: (...parts: string[]) => void, base: string, files: string[]): Promise<void> {
    const reads = await Promise.all(files.map((f) => this.file(f)));
    add('tree', String(files.length));
    files.forEach((f, i) => add(relative(base, f).split(sep).join('/'), reads[i]!.digest));
  }

  private file(path: string): Promise<FileRead> {
    let read = this.files.get(path);
    if (!read) {
      read = readInput(path);
      this.files.set(path, read);
    }
    return read;
  }

  private tree(dir: string): Promise<string[]> {
    let listing = this.trees.get(dir);
    if (!listing) {
      listing = listTree(dir);
      this.trees.set(dir, listing);
    }
    return listing;
  }

  private contract(root: string): Promise<ContractRead> {
    let read = this.contracts.get(root);
    if (!read) {
      read = this.readContract(root);
      this.contracts.set(root, read);
    }
    return read;
  }

  /** The root's folder, then the files outside it that `$ref`s name, followed until none is new. */
  private async readContract(root: string): Promise<ContractRead> {
    const dir = dirname(resolve(root));
    const files = [...(await this.tree(dir))];
    const seen = new Set(files);
    // the folder's files read at once; those its refs lead out to, as they are found
    await Promise.all(files.map((file) => this.file(file)));
    let cacheable = true;
    for (let i = 0; i < files.length; i++) {
      const file = files[i]!;
      const { text } = await this.file(file);
      if (text === undefined) continue;
      for (const m of text.matchAll(REF)) {
        const target = m[1]!;
        if (!target) continue; // a local `#/…` ref
        if (URL_LIKE.test(target)) {
          cacheable = false;
          continue;
        }
        let path: string;
        try {
          path = resolve(dirname(file), decodeURI(target));
        } catch {
          continue; // not a URI reference: the bundler reports it, and nothing is cached from a failed bundle
        }
        if (!seen.has(path) && !inside(dir, path)) {
          seen.add(path);
          files.push(path);
        }
      }
    }
    return { files, cacheable };
  }
}

/**
 * What this process read of each file, by its stamp: a long-lived process (watch mode) reads again
 * only the files whose stamp changed. A stamp is the file's inode, size, modification time and
 * status change time; the last changes with every write and rename and cannot be set back, so an
 * unchanged stamp is unchanged content.
 */
const known = new Map<string, FileRead>();

/** Text of YAML and JSON files is kept: the contract's refs are read from it. */
async function readInput(path: string): Promise<FileRead> {
  const stamp = await stampOf(path); // before the read: a write after it shows at the check
  if (stamp === 'missing') return { digest: 'missing', stamp };
  const before = known.get(path);
  if (before?.stamp === stamp) return before;
  try {
    const content = await readFile(path);
    const digest = createHash('sha256').update(content).digest('hex');
    const read = /\.(ya?ml|json)$/i.test(path) ? { digest, stamp, text: content.toString('utf8') } : { digest, stamp };
    known.set(path, read);
    return read;
  } catch {
    return { digest: 'missing', stamp: 'missing' }; // removed between the stat and the read: the check sees it
  }
}

async function stampOf(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return s.isFile() ? `${s.ctimeNs}:${s.mtimeNs}:${s.size}:${s.ino}` : 'not a file';
  } catch {
    return 'missing';
  }
}

/** Every file under `dir`, absolute, sorted; none when the folder does not exist. */
async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
