// npm run generate -- --watch as a child process (its own process group, killed in afterAll) on a
// copy of the project in a temp folder: edits saved by rename are picked up every time (node:fs watch
// lost the file after the first), a YAML mistake is reported at its line and the watcher recovers on
// the next good save, a guide change re-runs the docs without touching types.ts, a change to the
// lint configuration re-lints. Then the watcher in this process, with its lint and docs held until
// they are abandoned: a save during a rebuild supersedes it, and the last save's rebuild leaves
// what a one-shot generate writes; and an aborted child process takes its own children with it.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, saveByRename, startWatcher, type Watcher, watchBlocks } from '../../bench/watch.js';
import { generate } from '../../generator/generate.js';
import type { StepName } from '../../generator/pipeline.js';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { runNode } from '../../generator/support/process.js';
import { type Watching, watchAndGenerate } from '../../generator/watch.js';

let dir: string;
let out: string;
let watcher: Watcher | undefined;
let schema: string;
let original: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'watch-test-'));
  out = join(dir, 'generated');
  await copyProject(dir);
  schema = join(dir, 'openapi', 'components', 'schemas', 'Amount.yaml');
  original = await readFile(schema, 'utf8');
  watcher = await startWatcher(dir, out);
  expect(watchBlocks(watcher.output())[0], 'the first build').toMatch(/^✔ ok in /m);
}, 200_000);

afterAll(async () => {
  await watcher?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Saves `text` to `file` by rename and returns the watcher's result block for it. */
async function save(file: string, text: string): Promise<string> {
  const done = watchBlocks(watcher!.output()).length;
  await saveByRename(file, text);
  return watcher!.block(done);
}

const types = () => readFile(join(out, 'types.ts'), 'utf8');
const edited = (marker: string) => original.replace('Total tax amount.', `Total tax amount (${marker}).`);

describe('npm run generate -- --watch', () => {
  it('picks up a schema edit saved by rename: types.ts changes', async () => {
    expect(await types()).not.toContain('watch edit 1');
    const block = await save(schema, edited('watch edit 1'));
    expect(block.split('\n')[0], 'the trigger').toContain(schema);
    expect(block).toMatch(/^✔ ok in /m);
    expect(await types()).toContain('Total tax amount (watch edit 1).');
  }, 120_000);

  it('picks up a second edit by rename of the same file too', async () => {
    const block = await save(schema, edited('watch edit 2'));
    expect(block).toMatch(/^✔ ok in /m);
    const text = await types();
    expect(text).toContain('Total tax amount (watch edit 2).');
    expect(text).not.toContain('watch edit 1');
  }, 120_000);

  it('reports a YAML syntax error at its file and line, keeps running and regenerates on the next good save', async () => {
    const before = await types();
    const broken = edited('watch edit 3').replace('required: [value, currency]', 'required: [value, currency');
    const line = broken.split('\n').findIndex((l) => l.includes('required: [value, currency')) + 1;
    const block = await save(schema, broken);
    expect(block).toContain(`${relative(REPO_ROOT, schema)}:${line}:`);
    expect(block).toMatch(/error yaml-syntax a '\[' opened on line \d+ is never closed/);
    expect(block).toMatch(/^✖ failed after /m);
    expect(watcher!.hasExited(), 'the watcher is still running').toBe(false);
    expect(await types(), 'nothing written from a contract that does not bundle').toBe(before);

    const good = await save(schema, edited('watch edit 3'));
    expect(good).toMatch(/^✔ ok in /m);
    expect(await types()).toContain('Total tax amount (watch edit 3).');
  }, 120_000);

  it('re-runs only the docs (and the guide links) after a guide change: types.ts is not rewritten', async () => {
    const typesPath = join(out, 'types.ts');
    const [text, { mtimeMs }] = [await readFile(typesPath, 'utf8'), await stat(typesPath)];
    const guide = join(dir, 'docs', 'guides', '03-idempotency.md');
    const sentence = 'A sentence added while the watcher runs.';
    const block = await save(guide, `${(await readFile(guide, 'utf8')).trimEnd()}\n\n${sentence}\n`);
    expect(block.split('\n')[0]).toMatch(/→ guides, docs$/);
    expect(block).toMatch(/^✔ docs /m);
    expect(block).not.toMatch(/^✔ types /m);
    expect(await readFile(join(out, 'docs', 'index.html'), 'utf8')).toContain(sentence);
    expect(await readFile(typesPath, 'utf8')).toBe(text);
    expect((await stat(typesPath)).mtimeMs).toBe(mtimeMs);
  }, 120_000);

  it('re-lints after a change to the lint configuration (redocly.yaml), and passes again once it is undone', async () => {
    const config = join(dir, 'redocly.yaml');
    const text = await readFile(config, 'utf8');
    // A rule every operation breaks: summaries of at most five characters.
    const strict = text.replace(
      /^rules:\n/m,
      'rules:\n  rule/summary-at-most-five:\n    subject: { type: Operation, property: summary }\n    assertions: { maxLength: 5 }\n    severity: error\n',
    );
    expect(strict).not.toBe(text);
    const failed = await save(config, strict);
    expect(failed.split('\n')[0], 'the trigger').toContain(config);
    expect(failed).toMatch(/ error rule\/summary-at-most-five /);
    expect(failed).toMatch(/^✖ failed after /m);
    const passed = await save(config, text);
    expect(passed).not.toContain('summary-at-most-five');
    expect(passed).toMatch(/^✔ ok in /m);
  }, 120_000);
});

/** Polls `test` every 20 ms until it holds; fails after `timeoutMs` with `what`. */
async function until(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const t0 = performance.now();
  while (!(await test())) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every file under `dir`, relative to it, sorted. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

describe('watch mode: a save during a rebuild supersedes it', () => {
  let project: string;
  let watching: Watching | undefined;
  const output: string[] = [];
  // While `holding`, lint and docs wait until their run is abandoned: the slow steps of a rebuild
  // are still running for as long as the test needs, whatever the machine's speed.
  let holding = false;
  const held: StepName[] = [];
  const abandoned: StepName[] = [];
  const paths = () => ({
    root: join(project, 'openapi', 'openapi.yaml'),
    guidesDir: join(project, 'docs', 'guides'),
    adminRoot: join(project, 'sandbox', 'admin', 'openapi.yaml'),
    redoclyConfig: join(project, 'redocly.yaml'),
  });

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'watch-supersede-'));
    await copyProject(project);
    watching = watchAndGenerate({
      ...paths(),
      out: join(project, 'generated'),
      log: (text) => output.push(text),
      beforeStep: (step, signal) => {
        if (!holding || (step !== 'lint' && step !== 'docs') || !signal) return;
        held.push(step);
        return new Promise((_, reject) =>
          signal.addEventListener(
            'abort',
            () => {
              abandoned.push(step);
              reject(signal.reason);
            },
            { once: true },
          ),
        );
      },
    });
    await watching.ready;
    expect(watchBlocks(output.join('\n'))[0], 'the first build').toMatch(/^✔ ok in /m);
  }, 200_000);

  afterAll(async () => {
    await watching?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('abandons the stale lint and docs, writes the new types, and ends as a one-shot generate does', async () => {
    const out = join(project, 'generated');
    const schema = join(project, 'openapi', 'components', 'schemas', 'Amount.yaml');
    const text = await readFile(schema, 'utf8');
    const typesHave = async (marker: string) => (await readFile(join(out, 'types.ts'), 'utf8')).includes(marker);
    const blocks = () => watchBlocks(output.join('\n'));
    const start = blocks().length;

    holding = true;
    await saveByRename(schema, text.replace('Total tax amount.', 'Total tax amount (stale save).'));
    await until('the stale types', () => typesHave('(stale save)'));
    await until('lint and docs of the stale save to start', () => held.includes('lint') && held.includes('docs'));
    expect(blocks().length, 'the stale rebuild is still running').toBe(start);
    const docsBefore = await readFile(join(out, 'docs', 'index.html'));

    holding = false;
    await saveByRename(schema, text.replace('Total tax amount.', 'Total tax amount (last save).'));
    await until('the last save to be rebuilt', () => blocks().length >= start + 2, 120_000);
    const [stale, last] = blocks().slice(start);
    expect(stale).toMatch(/^↷ superseded after /m);
    expect(stale).toMatch(/^✔ types /m);
    expect(stale).toMatch(/^– lint {7}abandoned: /m);
    expect(stale).toMatch(/^– docs {7}abandoned: /m);
    expect([...abandoned].sort()).toEqual(['docs', 'lint']);
    expect(last).toMatch(/^✔ ok in /m);
    expect(last).toMatch(/^✔ lint /m);
    expect(last).toMatch(/^✔ docs /m);
    expect(await typesHave('(last save)')).toBe(true);
    expect(await typesHave('(stale save)')).toBe(false);
    expect(blocks(), 'nothing after the last save').toHaveLength(start + 2);
    // the abandoned docs wrote nothing; the last save's docs did
    expect((await readFile(join(out, 'docs', 'index.html'))).equals(docsBefore)).toBe(false);

    // a one-shot run of the contract's steps (lint passed above; the admin files are the first
    // build's), forced: nothing from the cache the watcher filled
    const oneShot = join(project, 'one-shot');
    const log: string[] = [];
    const steps: StepName[] = ['bundle', 'types', 'operations', 'resources', 'samples', 'data-schema', 'docs'];
    expect(
      await generate({ ...paths(), out: oneShot, force: true, steps, log: (l) => log.push(l) }),
      log.join('\n'),
    ).toBe(true);
    const files = filesUnder(oneShot);
    const admin = ['admin/types.ts', 'admin/openapi.json', 'docs/sandbox-admin.html', 'docs/sandbox-admin.yaml'];
    expect(filesUnder(out).filter((f) => !admin.includes(f))).toEqual(files);
    for (const file of files)
      expect((await readFile(join(out, file))).equals(await readFile(join(oneShot, file))), file).toBe(true);
  }, 200_000);

  it('an aborted step kills its child process and what that spawned (one process group)', async () => {
    const script = join(project, 'spawns.mjs');
    const pidFile = join(project, 'grandchild.pid');
    await writeFile(
      script,
      `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const grandchild = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
writeFileSync(${JSON.stringify(pidFile)}, String(grandchild.pid));
setTimeout(() => {}, 60000);
`,
    );
    const controller = new AbortController();
    const run = runNode(script, [], { signal: controller.signal });
    run.catch(() => undefined);
    let grandchild = 0;
    await until('the grandchild to start', async () => {
      grandchild = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
      return grandchild > 0;
    });
    // a killed process whose parent is gone too may stay a zombie (state Z) until something reaps it
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    expect(alive(grandchild)).toBe(true);
    controller.abort();
    await expect(run).rejects.toThrow(/abort/i);
    await until('the grandchild to be killed', () => !alive(grandchild), 10_000);
  }, 30_000);
});
