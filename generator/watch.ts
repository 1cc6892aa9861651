// npm run generate -- --watch: regenerates on every change to the contract (openapi/), the docs
// guides (docs/guides/) and the Arazzo workflows the docs publish (arazzo/), the sandbox's admin
// document (sandbox/admin/) and the lint configuration (redocly.yaml, its lint-ignore file,
// .spectral.yaml and its house-rule functions), re-running only what the change needs, until stopped.
//
// chokidar watches the folders, not single files: a file that an editor replaces by rename (sed -i,
// vim, JetBrains safe-write, git checkout), deletes and re-creates, or creates in a new folder is
// seen like any other change (node:fs watch lost a file once it had been renamed over).

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { watch } from 'chokidar';
import { parse as parseYaml } from 'yaml';
import { generate } from './generate.js';
import { type GenerateOptions, STEPS, type StepName } from './pipeline.js';
import { type BundleResult, bundleContract } from './steps/bundle.js';
import {
  ADMIN_ROOT,
  ARAZZO_DIR,
  DEFAULT_OUT,
  DEFAULT_ROOT,
  GUIDES_DIR,
  REDOCLY_CONFIG,
  SPECTRAL_RULESET,
} from './support/paths.js';

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

/**
 * The files that decide what lint reports: the Redocly config and the lint-ignore file beside it
 * (Redocly reads it from there), the Spectral ruleset and its `functionsDir` (the house rules).
 * A change to one of them re-runs what a contract change does: lint decides whether docs are written.
 */
function lintConfiguration(redoclyConfig: string): { files: string[]; functionsDir?: string } {
  const files = [redoclyConfig, join(dirname(redoclyConfig), '.redocly.lint-ignore.yaml'), SPECTRAL_RULESET];
  try {
    const functionsDir = (parseYaml(readFileSync(SPECTRAL_RULESET, 'utf8')) as { functionsDir?: unknown } | null)
      ?.functionsDir;
    return typeof functionsDir === 'string'
      ? { files, functionsDir: resolve(dirname(SPECTRAL_RULESET), functionsDir) }
      : { files };
  } catch {
    return { files }; // a broken ruleset is lint's to report (watched: fixing it rebuilds)
  }
}

export interface WatchOptions {
  root?: string;
  out?: string;
  guidesDir?: string;
  adminRoot?: string;
  redoclyConfig?: string;
  log?: (text: string) => void;
  /** Passed to generate(): awaited before each step (tests hold a slow step there). */
  beforeStep?: GenerateOptions['beforeStep'];
}

export interface Watching {
  /** Resolves once the watchers are set up and the first full build has been reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchAndGenerate(options: WatchOptions): Watching {
  const root = resolve(options.root ?? DEFAULT_ROOT);
  const out = resolve(options.out ?? DEFAULT_OUT);
  const guidesDir = resolve(options.guidesDir ?? GUIDES_DIR);
  const adminRoot = resolve(options.adminRoot ?? ADMIN_ROOT);
  const log = options.log ?? ((text: string) => console.log(text));
  const folders: Record<Kind, string> = { contract: dirname(root), guides: guidesDir, admin: dirname(adminRoot) };
  const lint = lintConfiguration(resolve(options.redoclyConfig ?? REDOCLY_CONFIG));
  const show = (p: string) => {
    const r = relative(process.cwd(), p);
    return r.startsWith('..') ? p : r || '.';
  };

  // What each kind of change re-runs. Contract: every step but the admin ones (and `guides`, which
  // lint includes), so that a step added to the pipeline runs on contract changes too.
  const STEPS_FOR: Record<Kind, StepName[]> = {
    contract: STEPS.filter((s) => s !== 'guides' && s !== 'admin' && s !== 'admin-docs'),
    guides: ['guides', 'docs'],
    admin: ['admin', 'admin-docs'],
  };

  const inside = (dir: string, p: string) => p === dir || p.startsWith(dir + sep);
  const kindOf = (path: string): Kind | undefined => {
    const p = resolve(path);
    // Editors' temp and backup files (sedXXXXXX, 4913, x.yaml~, .x.swp) have none of these endings.
    if (inside(folders.admin, p) && /\.(ya?ml|json)$/i.test(p)) return 'admin';
    if (inside(folders.guides, p) && /\.(md|svg|png|jpe?g|webp)$/i.test(p)) return 'guides';
    // the workflows are published by the docs step, as the guides are
    if (inside(ARAZZO_DIR, p) && /\.ya?ml$/i.test(p)) return 'guides';
    if (inside(folders.contract, p) && /\.(ya?ml|json)$/i.test(p)) return 'contract';
    if (
      lint.files.includes(p) ||
      (lint.functionsDir !== undefined && inside(lint.functionsDir, p) && /\.[cm]?[jt]s$/i.test(p))
    )
      return 'contract';
    return undefined;
  };

  // The last good bundle: a guide change renders the docs from it without bundling again.
  let lastBundle: Promise<BundleResult> | undefined;
  let bundleGeneration = 0;
  // A contract change since the last bundle was started: the next rebuild bundles again.
  let contractChanged = false;
  const pending = new Map<Kind, string[]>();
  let firstEventAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let current: { kinds: Map<Kind, string[]>; controller: AbortController } | undefined;
  let closed = false;

  async function rebuild(
    kinds: Map<Kind, string[]>,
    since: number,
    signal: AbortSignal,
    initial = false,
  ): Promise<void> {
    const selected = new Set<StepName>(kinds.has('contract') ? STEPS_FOR.contract : []);
    if (kinds.has('guides') && !selected.has('lint')) for (const s of STEPS_FOR.guides) selected.add(s);
    if (kinds.has('admin')) for (const s of STEPS_FOR.admin) selected.add(s);
    const steps = STEPS.filter((s) => selected.has(s));
    const needsBundle = steps.some((s) => s !== 'admin' && s !== 'admin-docs');
    let bundle = lastBundle;
    if (needsBundle && (contractChanged || !bundle)) {
      contractChanged = false;
      const attempt = bundleContract({ root, signal });
      const generation = ++bundleGeneration;
      bundle = attempt;
      lastBundle = undefined;
      attempt.then(
        () => {
          if (generation === bundleGeneration) lastBundle = attempt;
        },
        () => undefined,
      );
    }

    const files = [...kinds.values()].flat();
    const trigger = initial
      ? 'first build'
      : `${show(files[0]!)}${files.length > 1 ? ` (+${files.length - 1} more)` : ''}`;
    const lines = [`↻ ${new Date().toLocaleTimeString()} ${trigger} → ${steps.join(', ')}`];
    let typesAt: number | undefined;
    let ok = false;
    try {
      ok = await generate({
        root,
        out,
        guidesDir,
        adminRoot,
        ...(options.redoclyConfig ? { redoclyConfig: options.redoclyConfig } : {}),
        steps,
        eager: true,
        signal,
        ...(options.beforeStep ? { beforeStep: options.beforeStep } : {}),
        ...(needsBundle && bundle ? { bundle } : {}),
        log: (line) => lines.push(line),
        onWritten: (step) => {
          if (step === 'types') typesAt = performance.now() - since;
        },
      });
    } catch (err) {
      // generate() reports its steps' failures itself; anything else must not stop the watcher either
      lines.push(`✖ ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    const ms = performance.now() - since;
    const types =
      typesAt === undefined
        ? ''
        : `; types.ts written ${Math.round(typesAt)} ms after the ${initial ? 'start' : 'change'}`;
    lines.push(
      ok
        ? `✔ ok in ${Math.round(ms)} ms${types}`
        : signal.aborted
          ? `↷ superseded after ${Math.round(ms)} ms${types}; the next rebuild does the rest`
          : `✖ failed after ${Math.round(ms)} ms${types}; still watching: fix it and save again`,
    );
    log(lines.join('\n'));
  }

  /** Runs `kinds`' steps; the next change abandons them. */
  async function start(kinds: Map<Kind, string[]>, since: number, initial = false): Promise<void> {
    const controller = new AbortController();
    current = { kinds, controller };
    running = rebuild(kinds, since, controller.signal, initial);
    await running;
    running = undefined;
    current = undefined;
  }

  /**
   * A change while a rebuild runs makes that rebuild stale: it is abandoned at once (its Redocly
   * processes killed, nothing more written), and what it was to do joins the pending changes, so
   * that the rebuild after the last change does all of it.
   */
  function supersede(): void {
    if (!current || current.controller.signal.aborted) return;
    current.controller.abort();
    for (const kind of current.kinds.keys()) if (!pending.has(kind)) pending.set(kind, []);
  }

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void runPending();
    }, DEBOUNCE_MS);
  };
  async function runPending(): Promise<void> {
    // a rebuild still winding down, or changes still settling: whichever ends last starts the next
    if (running || timer || closed || pending.size === 0) return;
    const kinds = new Map(pending);
    pending.clear();
    await start(kinds, firstEventAt);
    void runPending();
  }

  const watched = [
    ...Object.values(folders),
    ARAZZO_DIR,
    ...lint.files,
    ...(lint.functionsDir ? [lint.functionsDir] : []),
  ];
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
    if (!kind) return;
    if (pending.size === 0) firstEventAt = performance.now();
    if (kind === 'contract') contractChanged = true;
    pending.set(kind, [...(pending.get(kind) ?? []), path]);
    supersede();
    schedule();
  });
  watcher.on('error', (err) => log(`watcher: ${err instanceof Error ? err.message : String(err)} (still watching)`));

  const ready = new Promise<void>((done) => watcher.once('ready', () => done())).then(async () => {
    log(`${WATCH_DECISION}\n`);
    contractChanged = true;
    await start(
      new Map<Kind, string[]>([
        ['contract', []],
        ['admin', []],
      ]),
      performance.now(),
      true,
    );
    log(
      `watching ${Object.values(folders)
        .map((f) => `${show(f)}/`)
        .join(', ')}, the lint configuration → ${show(out)}/ (Ctrl-C stops)`,
    );
    void runPending();
  });

  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      current?.controller.abort();
      await watcher.close();
      await running;
    },
  };
}
