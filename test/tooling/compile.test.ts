// tooling/compile.mjs with a cold cache of its own (PAYMENT_COMPILED_CACHE), in a child process:
// a program asked for twice at once in one process (lint asks for the generator twice, for the
// contract and for the admin document) is compiled once, into one folder that both callers get,
// and no temporary folder is left behind.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';

let cache: string;

beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'compiled-'));
});

afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

it('compiles a program once for callers at once in one process, and leaves no temporary folder', async () => {
  const script = `const { compiled } = await import(${JSON.stringify(join(REPO_ROOT, 'tooling', 'compile.mjs'))});
const first = compiled('generator');
const second = compiled('generator');
console.log(JSON.stringify({ one: first === second, folders: await Promise.all([first, second]) }));`;
  const { PAYMENT_COMPILED_GENERATOR: _inherited, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...env, PAYMENT_COMPILED_CACHE: cache },
    timeout: 60_000,
  });
  const { one, folders } = JSON.parse(stdout) as { one: boolean; folders: string[] };
  // one compilation for both: two into one temporary folder raced, and one of them failed
  expect(one, 'the second caller shares the compilation under way').toBe(true);
  expect(folders[0]).toBe(folders[1]);
  expect(folders[0]!.startsWith(join(cache, 'generator'))).toBe(true);
  const left = await readdir(join(cache, 'generator'));
  expect(left, 'one compiled version, no temporary folder').toHaveLength(1);
  expect(await readdir(folders[0]!)).toContain('cli.mjs');
}, 90_000);
