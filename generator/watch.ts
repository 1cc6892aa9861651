// npm run generate -- --watch: regenerates on every change to the contract (openapi/), the docs
// guides (docs/guides/) and the Arazzo workflows the docs publish (arazzo/), the sandbox's admin
// document (sandbox/admin/) and the lint configuration (redocly.yaml, its lint-ignore file,
// .spectral.yaml and its house-rule functions), re-running only what the change needs, until stopped.
//
// chokidar watches the folders, not single files: a file that an editor replaces by rename (sed -i,
// vim, JetBrains safe-write, git checkout), deletes and re-creates, or creates in a new folder is
// seen like any other change (node:fs watch lost a file once it had been renamed over).

import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { watch } from 'chokidar';
import { generate } from './generate.js';
import { lintConfiguration } from './lint/configuration.js';
import { type GenerateOptions, STEPS, type StepName } from './pipeline.js';
import { ADMIN_ROOT, ARAZZO_DIR, DEFAULT_OUT, DEFAULT_ROOT, GUIDES_DIR, REDOCLY_CONFIG } from './support/paths.js';
import { prepareBundler } from './support/redocly.js';

/**
 * chokidar drops a second `change` of a file within 50 ms of the first: waiting that long after the
 * last event before a rebuild starts means that the rebuild reads what the dropped change wrote.
 */
const DEBOUNCE_MS = 50;

export const WATCH_DECISION = `In watch mode a contract that does not bundle writes nothing. Otherwise types.ts, operations.ts and
resources.ts are written as soon as they are ready, before lint has finished (types first: the editor
sees them within a second); lint runs meanwhile and prints its problems as
file:line:col severity rule message; the docs are written only when lint passes. A save during a
rebuild abandons it (what it has not written yet it never writes) and the next one does its work
too. An error never stops the watcher: fix the file and save again.`;

type Kind = 'contract' | 'guides' | 'admin';
/** The files of each kind of change that a rebuild is for ([] for the first build). */
type Changes = Map<Kind, string[]>;

export interface WatchOptions {
  root?: string;
  out?: string;
  guidesDir?: string;
  adminRoot?: string;
  redoclyConfig?: string;
  /** Passed to generate(): the step cache's folder (default node_modules/.cache/payment-generate/). */
  cache?: string | false;
  log?: (text: string) => void;
  /** Passed to generate(): awaited before each step (tests hold a slow step there). */
  beforeStep?: GenerateOptions['beforeStep'];
}

export interface Watching {
  /** Resolves once the watchers are set up and the first full build has been reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

interface WatchPaths {
  root: string;
  out: string;
  guidesDir: string;
  adminRoot: string;
}

// What each kind of change re-runs. Contract (and the lint configuration): every step but the
// admin ones (and `guides`, which lint includes), so that a step added to the pipeline runs on
// contract changes too; what did not change comes from the step cache. The data file's schema is
// made from both: its source sits beside the admin document.
const STEPS_FOR: Record<Kind, readonly StepName[]> = {
  contract: STEPS.filter((s) => s !== 'guides' && s !== 'admin' && s !== 'admin-docs'),
  guides: ['guides', 'docs'],
  admin: ['admin', 'data-schema', 'admin-docs'],
};

function stepsFor(changes: Changes): StepName[] {
  const selected = new Set<StepName>(changes.has('contract') ? STEPS_FOR.contract : []);
  if (changes.has('guides') && !selected.has('lint')) for (const s of STEPS_FOR.guides) selected.add(s);
  if (changes.has('admin')) for (const s of STEPS_FOR.admin) selected.add(s);
  return STEPS.filter((s) => selected.has(s));
}

/** What is watched, and which kind of change a path is (undefined: a file no step reads, such as an editor's temp file). */
function watchedFiles(paths: WatchPaths, redoclyConfig: string) {
  const folders: Record<Kind, string> = {
    contract: dirname(paths.root),
    guides: paths.guidesDir,
    admin: dirname(paths.adminRoot),
  };
  const lint = lintConfiguration(redoclyConfig);
  const inside = (dir: string, p: string) => p === dir || p.startsWith(dir + sep);
  const kindOf = (path: string): Kind | undefined => {
    const p = resolve(path);
    // Editors' temp and backup files (sedXXXXXX, 4913, x.yaml~, .x.swp) have none of these endings.
    if (inside(folders.admin, p) && /\.(ya?ml|json)$/i.test(p)) return 'admin';
    if (inside(folders.guides, p) && /\.(md|svg|png|jpe?g|webp)$/i.test(p)) return 'guides';
    // the workflows are published by the docs step, as the guides are
    if (inside(ARAZZO_DIR, p) && /\.ya?ml$/i.test(p)) return 'guides';
    if (inside(folders.contract, p) && /\.(ya?ml|json)$/i.test(p)) return 'contract';
    const houseRule = lint.functionsDir !== undefined && inside(lint.functionsDir, p) && /\.[cm]?[jt]s$/i.test(p);
    return lint.files.includes(p) || houseRule ? 'contract' : undefined;
  };
  const watched = [
    ...Object.values(folders),
    ARAZZO_DIR,
    ...lint.files,
    ...(lint.functionsDir ? [lint.functionsDir] : []),
  ];
  return { folders: Object.values(folders), watched, kindOf };
}

const shown = (p: string) => {
  const r = relative(process.cwd(), p);
  return r.startsWith('..') ? p : r || '.';
};

/** One rebuild: the steps `changes` need, eagerly, reported as one block once it ends or is abandoned. */
async function rebuild(
  options: WatchOptions,
  paths: WatchPaths,
  changes: Changes,
  since: number,
  signal: AbortSignal,
  initial: boolean,
): Promise<void> {
  const steps = stepsFor(changes);
  const files = [...changes.values()].flat();
  const trigger = initial
    ? 'first build'
    : `${shown(files[0]!)}${files.length > 1 ? ` (+${files.length - 1} more)` : ''}`;
  const lines = [`↻ ${new Date().toLocaleTimeString()} ${trigger} → ${steps.join(', ')}`];
  let typesAt: number | undefined;
  let ok = false;
  try {
    ok = await generate({
      ...paths,
      redoclyConfig: options.redoclyConfig,
      cache: options.cache,
      steps,
      eager: true,
      signal,
      beforeStep: options.beforeStep,
      log: (line) => lines.push(line),
      onWritten: (step) => {
        if (step !== 'types') return;
        typesAt = performance.now() - since;
        prepareBundler(); // for the next save, while lint and docs run
      },
    });
  } catch (err) {
    // generate() reports its steps' failures itself; anything else must not stop the watcher either
    lines.push(`✖ ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  prepareBundler();
  const ms = Math.round(performance.now() - since);
  const types =
    typesAt === undefined
      ? ''
      : `; types.ts written ${Math.round(typesAt)} ms after the ${initial ? 'start' : 'change'}`;
  lines.push(
    ok
      ? `✔ ok in ${ms} ms${types}`
      : signal.aborted
        ? `↷ superseded after ${ms} ms${types}; the next rebuild does the rest`
        : `✖ failed after ${ms} ms${types}; still watching: fix it and save again`,
  );
  (options.log ?? ((text: string) => console.log(text)))(lines.join('\n'));
}

/**
 * The rebuilds, one at a time. A change while one runs makes it stale: it is abandoned at once (its
 * Redocly processes killed, nothing more written), and what it was to do joins the pending changes,
 * so that the rebuild after the last change does all of it.
 */
class Rebuilds {
  private readonly pending: Changes = new Map();
  private firstChangeAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private current: { changes: Changes; controller: AbortController } | undefined;
  private closed = false;

  constructor(
    private readonly run: (changes: Changes, since: number, signal: AbortSignal, initial: boolean) => Promise<void>,
  ) {}

  /** A change to `path`: supersedes the running rebuild, and starts the next once changes settle. */
  changed(kind: Kind, path: string): void {
    if (this.pending.size === 0) this.firstChangeAt = performance.now();
    this.pending.set(kind, [...(this.pending.get(kind) ?? []), path]);
    if (this.current && !this.current.controller.signal.aborted) {
      this.current.controller.abort();
      for (const k of this.current.changes.keys()) if (!this.pending.has(k)) this.pending.set(k, []);
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.next();
    }, DEBOUNCE_MS);
  }

  /** Runs `changes` now. */
  async start(changes: Changes, since: number, initial = false): Promise<void> {
    const controller = new AbortController();
    this.current = { changes, controller };
    this.running = this.run(changes, since, controller.signal, initial);
    await this.running;
    this.running = undefined;
    this.current = undefined;
  }

  /** A rebuild still winding down, or changes still settling: whichever ends last starts the next. */
  async next(): Promise<void> {
    if (this.running || this.timer || this.closed || this.pending.size === 0) return;
    const changes = new Map(this.pending);
    this.pending.clear();
    await this.start(changes, this.firstChangeAt);
    void this.next();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.current?.controller.abort();
    await this.running;
  }
}

/**
 * Renders the types of the bundle just written, for nothing: when the first build came from the
 * step cache, the first save would otherwise wait for TypeScript to load and for its code to be
 * compiled, a second or more on top of the usual.
 */
async function warmUpTypes(out: string): Promise<void> {
  try {
    const [{ renderTypes }, text] = await Promise.all([
      import('./steps/types.js'),
      readFile(join(out, 'openapi.json'), 'utf8'),
    ]);
    await renderTypes(JSON.parse(text) as Record<string, unknown>);
  } catch {
    // no bundle yet (the contract did not bundle): the first save pays, as before
  }
}

export function watchAndGenerate(options: WatchOptions): Watching {
  const paths: WatchPaths = {
    root: resolve(options.root ?? DEFAULT_ROOT),
    out: resolve(options.out ?? DEFAULT_OUT),
    guidesDir: resolve(options.guidesDir ?? GUIDES_DIR),
    adminRoot: resolve(options.adminRoot ?? ADMIN_ROOT),
  };
  const log = options.log ?? ((text: string) => console.log(text));
  const { folders, watched, kindOf } = watchedFiles(paths, resolve(options.redoclyConfig ?? REDOCLY_CONFIG));
  const rebuilds = new Rebuilds((changes, since, signal, initial) =>
    rebuild(options, paths, changes, since, signal, initial),
  );

  const watcher = watch(watched, {
    ignoreInitial: true,
    // a file replaced within 100 ms of its removal is one change (editors' atomic saves)
    atomic: true,
    // no awaitWriteFinish: it holds every event back for its stability threshold. A file caught half
    // written fails one rebuild; the write's end is another change, which rebuilds again.
    ignored: (path, stats) => stats?.isFile() === true && kindOf(path) === undefined,
  });
  watcher.on('all', (event, path) => {
    if (event !== 'add' && event !== 'change' && event !== 'unlink') return;
    const kind = kindOf(path);
    if (kind) rebuilds.changed(kind, path);
  });
  watcher.on('error', (err) => log(`watcher: ${err instanceof Error ? err.message : String(err)} (still watching)`));

  const ready = new Promise<void>((done) => watcher.once('ready', () => done())).then(async () => {
    log(`${WATCH_DECISION}\n`);
    const everything: Changes = new Map([
      ['contract', []],
      ['admin', []],
    ]);
    await rebuilds.start(everything, performance.now(), true);
    void warmUpTypes(paths.out);
    log(
      `watching ${folders.map((f) => `${shown(f)}/`).join(', ')}, the lint configuration → ${shown(paths.out)}/ (Ctrl-C stops)`,
    );
    void rebuilds.next();
  });

  return {
    ready,
    async close() {
      await rebuilds.close();
      await watcher.close();
      prepareBundler('discard');
    },
  };
}
