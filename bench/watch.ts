// npx tsx bench/watch.ts [-- --saves 10]   (also part of npm run bench)
// Watch mode's latency: from the moment a schema edit is saved to its content in <out>/types.ts,
// for the three ways editors save a file: written in place, written to a temp file renamed over
// it (vim, JetBrains' safe write), and `sed -i` (a process that does the same with a temp file of
// its own). Each kind is timed on an idle watcher (the previous save's rebuild, lint and docs
// included, has finished) and overlapping: saves 1 to 2 s apart, each landing while the previous
// save's lint or docs still run, which it abandons. The watcher is a child process started as
// `npm run generate -- --watch` starts it (node generator/launch.mjs), on a copy of the project in
// a temp folder (--root/--out).
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../generator/support/paths.js';
import { type ProcessGroup, startProcessGroup, WATCHDOG } from '../tooling/process/server-process.js';

/** From a save to the new types.ts: the median under 1 s, the 95th percentile under 1.5 s. */
export const WATCH_TARGETS = { medianMs: 1_000, p95Ms: 1_500 };

export const SAVE_KINDS = ['in-place', 'rename', 'sed -i'] as const;
export type SaveKind = (typeof SAVE_KINDS)[number];

/** The gaps between overlapping saves, in turn: each lands while the previous rebuild's lint or docs run. */
export const OVERLAP_GAPS_MS = [1_000, 1_500, 2_000];

/** What generate reads, copied to `<dir>`: the contract, the guides, the admin document, the Redocly config. */
export async function copyProject(dir: string): Promise<void> {
  for (const path of [
    'openapi',
    join('docs', 'guides'),
    join('sandbox', 'admin'),
    'redocly.yaml',
    '.redocly.lint-ignore.yaml',
  ]) {
    await cp(join(REPO_ROOT, path), join(dir, path), { recursive: true });
  }
}

/** Saves `path` as editors that write atomically do: a temp file beside it, then rename over it. */
export async function saveByRename(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.swap`);
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** `sed -i -e <script> <path>`: sed writes a temp file beside it and renames it over. */
function sedInPlace(path: string, script: string): Promise<void> {
  return new Promise((done, fail) => {
    const sed = spawn('sed', ['-i', '-e', script, path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    sed.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    sed.on('error', fail);
    sed.on('close', (code) => (code === 0 ? done() : fail(new Error(`sed -i exited with ${code}: ${stderr}`))));
  });
}

/** Complete result blocks the watcher printed (`↻ …` up to its `✔ ok in`, `✖ failed after` or `↷ superseded after` line). */
export function watchBlocks(output: string): string[] {
  return output
    .split(/^(?=↻ )/m)
    .slice(1)
    .filter((b) => /^(✔ ok in|✖ failed after|↷ superseded after) /m.test(b));
}

export interface Watcher extends ProcessGroup {
  /** Waits for the block after the first `count` complete ones, and returns it. */
  block(count: number, timeoutMs?: number): Promise<string>;
}

/** `npm run generate -- --watch --root <dir>/openapi/openapi.yaml --out <out>` in a process group of its own, once its first build is reported. */
export async function startWatcher(dir: string, out: string): Promise<Watcher> {
  const child = startProcessGroup(
    process.execPath,
    [
      '--import',
      WATCHDOG,
      join(REPO_ROOT, 'generator', 'launch.mjs'),
      '--watch',
      '--root',
      join(dir, 'openapi', 'openapi.yaml'),
      '--out',
      out,
    ],
    { cwd: REPO_ROOT, env: { NO_COLOR: '1' }, name: 'generate --watch' },
  );
  const block = async (count: number, timeoutMs = 120_000) => {
    await child.waitFor(`result block ${count + 1}`, (o) => watchBlocks(o).length > count, timeoutMs);
    return watchBlocks(child.output())[count]!;
  };
  try {
    await child.waitFor('the first build', (o) => /^watching /m.test(o), 180_000);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { ...child, block };
}

const DESCRIPTION = /Total tax amount[^.\n]*\./;

interface Session {
  watcher: Watcher;
  /** Saves edit `n` of the schema the `kind` way and resolves with the ms from the save until types.ts has it. */
  edit(n: number, kind: SaveKind): Promise<number>;
}

/** A watcher on a fresh copy of the project, for `run`; stopped and removed after it. */
async function withWatcher<T>(run: (session: Session) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-watch-'));
  const out = join(dir, 'generated');
  let watcher: Watcher | undefined;
  try {
    await copyProject(dir);
    const w = await startWatcher(dir, out);
    watcher = w;
    const schema = join(dir, 'openapi', 'components', 'schemas', 'Amount.yaml');
    const types = join(out, 'types.ts');
    const edit = async (n: number, kind: SaveKind) => {
      const marker = `Total tax amount (bench edit ${n}).`;
      const text = (await readFile(schema, 'utf8')).replace(DESCRIPTION, marker);
      let seen = (await stat(types)).mtimeMs;
      const t0 = performance.now();
      if (kind === 'in-place') await writeFile(schema, text);
      else if (kind === 'rename') await saveByRename(schema, text);
      else await sedInPlace(schema, `s/Total tax amount[^.]*\\./${marker}/`);
      // poll: a cheap stat, a read only when the file changed
      for (;;) {
        const m = (await stat(types)).mtimeMs;
        if (m !== seen) {
          seen = m;
          if ((await readFile(types, 'utf8')).includes(marker)) return performance.now() - t0;
        }
        if (performance.now() - t0 > 60_000)
          throw new Error(`edit ${n} (${kind}) did not reach types.ts within 60 s:\n${w.output().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    return await run({ watcher: w, edit });
  } finally {
    await watcher?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface Latencies {
  latenciesMs: number[];
  medianMs: number;
  p95Ms: number;
}

/** Nearest-rank percentile. */
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const latencies = (latenciesMs: number[]): Latencies => ({
  latenciesMs,
  medianMs: percentile(latenciesMs, 50),
  p95Ms: percentile(latenciesMs, 95),
});

export interface WatchBenchResult {
  /** Each save on an idle watcher, by kind. */
  idle: Record<SaveKind, Latencies>;
  /** Saves 1 to 2 s apart, by kind. */
  overlapping: Record<SaveKind, Latencies>;
  /** Overlapping saves that landed during the previous save's rebuild (it was abandoned). */
  superseded: number;
  overlappingSaves: number;
  /** The last save's rebuild, lint and docs included, passed. */
  lastComplete: boolean;
}

const byKind = (times: Array<[SaveKind, number]>) =>
  Object.fromEntries(
    SAVE_KINDS.map((k) => [k, latencies(times.filter(([t]) => t === k).map(([, ms]) => ms))]),
  ) as Record<SaveKind, Latencies>;

/**
 * `saves` edits of each kind on an idle watcher (kinds in turn, each after the previous rebuild's
 * block), then `saves` of each kind overlapping: kinds in turn, OVERLAP_GAPS_MS apart.
 */
export function benchWatch(saves = 10): Promise<WatchBenchResult> {
  return withWatcher(async ({ watcher, edit }) => {
    let n = 0;
    const idle: Array<[SaveKind, number]> = [];
    for (let i = 0; i < saves; i++)
      for (const kind of SAVE_KINDS) {
        const done = watchBlocks(watcher.output()).length;
        idle.push([kind, await edit(++n, kind)]);
        await watcher.block(done); // lint and docs too, before the next save
      }

    const start = watchBlocks(watcher.output()).length;
    const overlapping: Array<[SaveKind, number]> = [];
    const total = saves * SAVE_KINDS.length;
    for (let i = 0; i < total; i++) {
      const kind = SAVE_KINDS[i % SAVE_KINDS.length]!;
      const t0 = performance.now();
      overlapping.push([kind, await edit(++n, kind)]);
      if (i === total - 1) break;
      const gap = OVERLAP_GAPS_MS[i % OVERLAP_GAPS_MS.length]!;
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + gap - performance.now())));
    }
    // the last rebuild's block comes after those printed once its types.ts was written
    const last = await watcher.block(watchBlocks(watcher.output()).length);
    const blocks = watchBlocks(watcher.output()).slice(start);
    return {
      idle: byKind(idle),
      overlapping: byKind(overlapping),
      superseded: blocks.filter((b) => /^↷ superseded after /m.test(b)).length,
      overlappingSaves: total,
      lastComplete: /^✔ ok in /m.test(last) && /^✔ lint /m.test(last) && /^✔ docs /m.test(last),
    };
  });
}

export function formatWatchBench(r: WatchBenchResult): string {
  const { medianMs, p95Ms } = WATCH_TARGETS;
  const row = (condition: string, kind: SaveKind, l: Latencies) => {
    const met = l.medianMs < medianMs && l.p95Ms < p95Ms;
    return `  ${condition.padEnd(11)} ${kind.padEnd(8)} ${String(l.latenciesMs.length).padStart(3)} saves: median ${String(Math.round(l.medianMs)).padStart(5)} ms, p95 ${String(Math.round(l.p95Ms)).padStart(5)} ms  ${met ? 'met' : 'NOT met'}  (${l.latenciesMs.map((ms) => Math.round(ms)).join(', ')})`;
  };
  return [
    `  save → generated/types.ts (target: median < ${medianMs} ms and p95 < ${p95Ms} ms for each)`,
    ...SAVE_KINDS.map((k) => row('idle', k, r.idle[k])),
    ...SAVE_KINDS.map((k) => row('overlapping', k, r.overlapping[k])),
    `  overlapping saves ${OVERLAP_GAPS_MS.map((ms) => ms / 1000).join(', ')} s apart: ${r.superseded} of ${r.overlappingSaves - 1} landed during the previous rebuild (it was abandoned); the last save's full rebuild (lint, docs): ${r.lastComplete ? 'ok' : 'NOT ok'}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { saves: { type: 'string', default: '10' } } });
  console.log('npm run generate -- --watch');
  console.log(formatWatchBench(await benchWatch(Number(values.saves))));
}
