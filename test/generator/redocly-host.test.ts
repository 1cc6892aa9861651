// Redocly hosts (generator/support/redocly-host.mjs, started by generator/support/redocly.ts): one
// process runs Redocly command after command as the CLI's own process runs each, so that a run of the
// pipeline loads the CLI once instead of once per command. What a command gives (its exit code, its
// output, the files it writes) must not depend on what ran before it in the host.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { type CommandHost, type ProcessResult, runNode } from '../../generator/support/process.js';
import {
  cleanStderr,
  prepareBundler,
  REDOCLY_ENV,
  runRedocly,
  startRedoclyHost,
} from '../../generator/support/redocly.js';
import { tinyContract } from '../support/tiny-contract.js';

const CLI = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

let dir: string;
let host: CommandHost;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'redocly-host-'));
  // Redocly's minimal rules: the tiny contract passes them, with warnings
  await writeFile(join(dir, 'redocly.yaml'), 'extends:\n  - minimal\n');
  await writeFile(join(dir, 'good.yaml'), tinyContract(['a', 'b']));
  // an operation with a misspelt `responses`
  await writeFile(join(dir, 'bad.yaml'), tinyContract(['a']).replace('responses:', 'respones:'));
  host = startRedoclyHost();
});

afterAll(async () => {
  host?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The command in the host, then in a process of its own (`node cli.js <args>`), each with the text of the file it wrote. */
async function both(args: (out: string) => string[]): Promise<Array<ProcessResult & { file?: string }>> {
  const out = join(dir, 'out');
  const run = async (where: 'host' | 'process') => {
    await rm(out, { force: true });
    const result =
      where === 'host'
        ? await host.run(JSON.stringify({ args: args(out), cwd: dir }))
        : await runNode(CLI, args(out), { cwd: dir, env: REDOCLY_ENV });
    const file = await readFile(out, 'utf8').catch(() => undefined);
    return { ...result, stderr: cleanStderr(result.stderr), file };
  };
  return [await run('host'), await run('process')];
}

describe('a Redocly host', () => {
  it('answers ready, then runs lint, bundle and build-docs one after another as separate processes run them', async () => {
    expect(await host.ready).toBe(true);
    const commands: Array<(out: string) => string[]> = [
      () => ['lint', 'bad.yaml', '--format', 'json', '--lint-config', 'off'],
      (out) => ['bundle', 'good.yaml', '--output', out, '--ext', 'json', '--lint-config', 'off'],
      () => ['lint', 'good.yaml', '--format', 'json', '--lint-config', 'off'],
      (out) => ['build-docs', 'good.yaml', '--output', out, '--lint-config', 'off'],
      () => ['lint', 'missing.yaml', '--lint-config', 'off'],
    ];
    const codes: number[] = [];
    for (const command of commands) {
      const [inHost, alone] = await both(command);
      expect(inHost.code, `redocly ${command('x').join(' ')}`).toBe(alone.code);
      expect(inHost.stdout).toBe(alone.stdout);
      expect(inHost.stderr).toBe(alone.stderr);
      expect(inHost.file).toBe(alone.file);
      codes.push(inHost.code);
    }
    // the bad contract and the missing file fail; each command after them is as good as in a fresh process
    expect(codes).toEqual([1, 0, 0, 0, 1]);
    const problems = JSON.parse((await both(commands[0]!))[0]!.stdout) as { problems: Array<{ ruleId: string }> };
    expect(problems.problems.map((p) => p.ruleId)).toContain('struct');
  }, 60_000);

  it('is killed by an abort, and the next command runs in a new host', async () => {
    const controller = new AbortController();
    const running = runRedocly(
      ['build-docs', 'good.yaml', '--output', join(dir, 'aborted.html')],
      dir,
      controller.signal,
    );
    setTimeout(() => controller.abort(new Error('superseded')), 50);
    await expect(running).rejects.toThrow('superseded');
    const after = await runRedocly(['lint', 'good.yaml', '--format', 'json', '--lint-config', 'off'], dir);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ totals: { errors: 0 } });
  }, 60_000);

  it('runs the next command once watch mode has discarded its prepared host', async () => {
    prepareBundler();
    prepareBundler('discard'); // the host is ending, not yet ended: it must not hold a place among the hosts
    const after = await runRedocly(['lint', 'good.yaml', '--format', 'json', '--lint-config', 'off'], dir);
    expect(after.code).toBe(0);
  }, 30_000);
});
