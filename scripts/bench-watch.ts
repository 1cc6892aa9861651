// npx tsx scripts/bench-watch.ts [-- --edits 10]   (also part of npm run bench)
// Watch mode's latency: from a schema edit saved by atomic rename (temp file + rename, as editors
// do) to the new content in <out>/types.ts. The watcher runs as a child process, exactly as
// `npm run generate -- --watch` does, on a copy of the project in a temp folder (--root/--out).
import { cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../generator/support/paths.js';
import { type ProcessGroup, startProcessGroup, WATCHDOG } from './server-process.js';

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

/** Complete result blocks the watcher printed (`↻ …` up to its `✔ ok in` or `✖ failed after` line). */
export function watchBlocks(output: string): string[] {
  return output
    .split(/^(?=↻ )/m)
    .slice(1)
    .filter((b) => /^(✔ ok in|✖ failed after) /m.test(b));
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

/** Times `edits` schema edits from the rename to their content in types.ts. */
export async function benchWatch(edits = 10): Promise<{ latenciesMs: number[]; medianMs: number; maxMs: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-watch-'));
  const out = join(dir, 'generated');
  let watcher: Watcher | undefined;
  try {
    await copyProject(dir);
    watcher = await startWatcher(dir, out);
    const schema = join(dir, 'openapi', 'components', 'schemas', 'Amount.yaml');
    const original = await readFile(schema, 'utf8');
    const types = join(out, 'types.ts');
    const latenciesMs: number[] = [];
    for (let i = 1; i <= edits; i++) {
      const marker = `Total tax amount (bench edit ${i}).`;
      const done = watchBlocks(watcher.output()).length;
      const t0 = performance.now();
      await saveByRename(schema, original.replace('Total tax amount.', marker));
      // poll: cheap stat, read only when the file changed
      let seen = (await stat(types)).mtimeMs;
      for (;;) {
        const m = (await stat(types)).mtimeMs;
        if (m !== seen) {
          seen = m;
          if ((await readFile(types, 'utf8')).includes(marker)) break;
        }
        if (performance.now() - t0 > 60_000)
          throw new Error(`edit ${i} did not reach types.ts within 60 s:\n${watcher.output().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      latenciesMs.push(performance.now() - t0);
      await watcher.block(done); // let the rebuild finish (lint, docs) before the next edit
    }
    return { latenciesMs, medianMs: median(latenciesMs), maxMs: Math.max(...latenciesMs) };
  } finally {
    await watcher?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatWatchBench(r: Awaited<ReturnType<typeof benchWatch>>): string {
  const verdict = r.medianMs < WATCH_TARGET_MS ? 'met' : 'NOT met';
  return [
    `  schema edit (atomic rename) → generated/types.ts, ${r.latenciesMs.length} edits: median ${Math.round(r.medianMs)} ms, max ${Math.round(r.maxMs)} ms (target < ${WATCH_TARGET_MS} ms: ${verdict}${r.maxMs >= WATCH_TARGET_MS && r.medianMs < WATCH_TARGET_MS ? ' for the median, not every edit' : ''})`,
    `  each: ${r.latenciesMs.map((ms) => Math.round(ms)).join(', ')} ms`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { edits: { type: 'string', default: '10' } } });
  console.log('npm run generate -- --watch');
  console.log(formatWatchBench(await benchWatch(Number(values.edits))));
}
