// npx tsx bench/watch.ts [-- --edits 10 --saves 8]   (also part of npm run bench)
// Watch mode's latency: from a schema edit saved by atomic rename (temp file + rename, as editors
// do) to the new content in <out>/types.ts, on an idle watcher and in a sequence of saves 2 and 3 s
// apart, each arriving while the previous one's lint and docs still run. The watcher runs as a
// child process, exactly as `npm run generate -- --watch` does, on a copy of the project in a temp
// folder (--root/--out).
import { cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../generator/support/paths.js';
import { type ProcessGroup, startProcessGroup, WATCHDOG } from '../tooling/process/server-process.js';

export const WATCH_TARGET_MS = 1_000;

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

/** `generator/cli.ts --watch --root <dir>/openapi/openapi.yaml --out <out>` in a process group of its own, once its first build is reported. */
export async function startWatcher(dir: string, out: string): Promise<Watcher> {
  const child = startProcessGroup(
    process.execPath,
    [
      '--import',
      WATCHDOG,
      '--import',
      'tsx',
      join(REPO_ROOT, 'generator', 'cli.ts'),
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Session {
  watcher: Watcher;
  /** Saves edit `i` of the schema by rename and resolves with the ms until types.ts has it. */
  edit(i: number): Promise<number>;
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
    const original = await readFile(schema, 'utf8');
    const types = join(out, 'types.ts');
    const edit = async (i: number) => {
      const marker = `Total tax amount (bench edit ${i}).`;
      const t0 = performance.now();
      await saveByRename(schema, original.replace('Total tax amount.', marker));
      // poll: cheap stat, read only when the file changed
      let seen = (await stat(types)).mtimeMs;
      for (;;) {
        const m = (await stat(types)).mtimeMs;
        if (m !== seen) {
          seen = m;
          if ((await readFile(types, 'utf8')).includes(marker)) return performance.now() - t0;
        }
        if (performance.now() - t0 > 60_000)
          throw new Error(`edit ${i} did not reach types.ts within 60 s:\n${w.output().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    return await run({ watcher: w, edit });
  } finally {
    await watcher?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface WatchBenchResult {
  latenciesMs: number[];
  medianMs: number;
  maxMs: number;
}

const summary = (latenciesMs: number[]): WatchBenchResult => ({
  latenciesMs,
  medianMs: median(latenciesMs),
  maxMs: Math.max(...latenciesMs),
});

/** Times `edits` schema edits from the rename to their content in types.ts, each on an idle watcher. */
export function benchWatch(edits = 10): Promise<WatchBenchResult> {
  return withWatcher(async ({ watcher, edit }) => {
    const latenciesMs: number[] = [];
    for (let i = 1; i <= edits; i++) {
      const done = watchBlocks(watcher.output()).length;
      latenciesMs.push(await edit(i));
      await watcher.block(done); // let the rebuild finish (lint, docs) before the next edit
    }
    return summary(latenciesMs);
  });
}

/** The gaps between the saves of the sequence: 2 and 3 s, shorter than a rebuild's lint and docs. */
export const SEQUENCE_GAPS_MS = [2_000, 3_000];

export interface SequenceBenchResult extends WatchBenchResult {
  /** Rebuilds abandoned because the next save came first. */
  superseded: number;
  /** The last save's rebuild, lint and docs included, passed. */
  lastComplete: boolean;
}

/**
 * `saves` schema edits 2 and 3 s apart, timed from the rename to their content in types.ts; the
 * next save does not wait for the rebuild's lint and docs. Then the last save's full rebuild.
 */
export function benchWatchSequence(saves = 8): Promise<SequenceBenchResult> {
  return withWatcher(async ({ watcher, edit }) => {
    const start = watchBlocks(watcher.output()).length;
    const latenciesMs: number[] = [];
    for (let i = 1; i <= saves; i++) {
      const t0 = performance.now();
      latenciesMs.push(await edit(i));
      if (i === saves) break;
      const gap = SEQUENCE_GAPS_MS[(i - 1) % SEQUENCE_GAPS_MS.length]!;
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + gap - performance.now())));
    }
    // the last rebuild's block comes after those printed once its types.ts was written
    const last = await watcher.block(watchBlocks(watcher.output()).length);
    const blocks = watchBlocks(watcher.output()).slice(start);
    return {
      ...summary(latenciesMs),
      superseded: blocks.filter((b) => /^↷ superseded after /m.test(b)).length,
      lastComplete: /^✔ ok in /m.test(last) && /^✔ lint /m.test(last) && /^✔ docs /m.test(last),
    };
  });
}

export function formatWatchBench(r: Awaited<ReturnType<typeof benchWatch>>): string {
  const verdict = r.medianMs < WATCH_TARGET_MS ? 'met' : 'NOT met';
  return [
    `  schema edit (atomic rename) → generated/types.ts, ${r.latenciesMs.length} edits: median ${Math.round(r.medianMs)} ms, max ${Math.round(r.maxMs)} ms (target < ${WATCH_TARGET_MS} ms: ${verdict}${r.maxMs >= WATCH_TARGET_MS && r.medianMs < WATCH_TARGET_MS ? ' for the median, not every edit' : ''})`,
    `  each: ${r.latenciesMs.map((ms) => Math.round(ms)).join(', ')} ms`,
  ].join('\n');
}

export function formatWatchSequenceBench(r: SequenceBenchResult): string {
  const verdict = r.maxMs < WATCH_TARGET_MS ? 'met' : 'NOT met';
  return [
    `  saves ${SEQUENCE_GAPS_MS.map((ms) => ms / 1000).join(' and ')} s apart, during the previous rebuild's lint and docs, ${r.latenciesMs.length} saves → generated/types.ts: median ${Math.round(r.medianMs)} ms, max ${Math.round(r.maxMs)} ms (target < ${WATCH_TARGET_MS} ms for each: ${verdict})`,
    `  each: ${r.latenciesMs.map((ms) => Math.round(ms)).join(', ')} ms; ${r.superseded} rebuilds superseded; the last save's full rebuild (lint, docs): ${r.lastComplete ? 'ok' : 'NOT ok'}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { edits: { type: 'string', default: '10' }, saves: { type: 'string', default: '8' } },
  });
  console.log('npm run generate -- --watch');
  if (Number(values.edits) > 0) console.log(formatWatchBench(await benchWatch(Number(values.edits))));
  if (Number(values.saves) > 0) console.log(formatWatchSequenceBench(await benchWatchSequence(Number(values.saves))));
}
