// npm run generate -- --watch as a child process (its own process group, killed in afterAll) on a
// copy of the project in a temp folder: edits saved by rename are picked up every time (node:fs watch
// lost the file after the first), a YAML mistake is reported at its line and the watcher recovers on
// the next good save, a guide change re-runs the docs without touching types.ts, a change to the
// lint configuration re-lints.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { copyProject, saveByRename, startWatcher, type Watcher, watchBlocks } from '../../scripts/bench-watch.js';

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
