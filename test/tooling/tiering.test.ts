// V8's tiering for a short run (tooling/tiering.mjs), which `npm run generate` runs with, is set by a
// flag that differs between V8 versions, and V8 takes a flag it does not know in silence when it is
// set from JavaScript: a flag renamed by a later V8 would only make the command slower. Here each line the toolchain supports must know its own flag, as
// Node.js itself refuses an unknown one on its command line.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { shortRunTiering } from '../../tooling/tiering.mjs';
import { nodeLines, runOn } from '../support/node-lines.js';
import { run } from '../support/packed.js';

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

describe('the tiering flag for a short run', () => {
  it('is one this Node.js knows', async () => {
    const flag = shortRunTiering();
    const result = await run(process.execPath, [flag, '-e', '0'], process.cwd());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('differs by V8: counted in bytecode on Node.js 20, in calls from 22', () => {
    expect(shortRunTiering(20)).toMatch(/^--interrupt-budget=\d+$/);
    expect(shortRunTiering(22)).toMatch(/^--invocation-count-for-turbofan=\d+$/);
    expect(shortRunTiering(24)).toBe(shortRunTiering(22));
  });

  it.each(nodeLines().map((line) => [line.version, line] as const))('is one Node.js %s knows', async (_, line) => {
    const flag = shortRunTiering(major(line.version));
    const result = await runOn(line, 'node', [flag, '-e', '0'], process.cwd());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('is refused by Node.js when it is not a flag of its V8', async () => {
    const other = shortRunTiering(major(process.version) <= 20 ? 22 : 20);
    const result = await run(process.execPath, [other, '-e', '0'], process.cwd());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(other);
  });
});

const TIERING = pathToFileURL(join(import.meta.dirname, '..', '..', 'tooling', 'tiering.mjs')).href;

/**
 * A module that asks whether V8 has optimized with TurboFan a small function called 20,000 times,
 * from a caller it never optimizes (which would inline it), after setting the short run's tiering
 * or not: above V8's default bar on each line, below the raised one.
 */
const hot = (tiered: boolean) => `import { useShortRunTiering } from '${TIERING}';
${tiered ? 'useShortRunTiering();' : ''}
const f = (a) => a + 1;
const drive = () => { for (let i = 0; i < 20000; i++) f(i); };
%NeverOptimizeFunction(drive);
drive();
console.log((%GetOptimizationStatus(f) & 64) !== 0 ? 'turbofan' : 'lower');`;
// the compile within the call that asks for it, not on a thread of its own
const args = (tiered: boolean) => [
  '--allow-natives-syntax',
  '--no-concurrent-recompilation',
  '--input-type=module',
  '-e',
  hot(tiered),
];

describe('useShortRunTiering()', () => {
  it('leaves to the lower tiers a function that TurboFan takes by default', async () => {
    const [plain, tiered] = [
      await run(process.execPath, args(false), process.cwd()),
      await run(process.execPath, args(true), process.cwd()),
    ];
    expect([plain.stderr, tiered.stderr]).toEqual(['', '']);
    expect([plain.stdout.trim(), tiered.stdout.trim()]).toEqual(['turbofan', 'lower']);
  });

  it.each(nodeLines().map((line) => [line.version, line] as const))('does so on Node.js %s', async (_, line) => {
    const [plain, tiered] = [
      await runOn(line, 'node', args(false), process.cwd()),
      await runOn(line, 'node', args(true), process.cwd()),
    ];
    expect([plain.stdout.trim(), tiered.stdout.trim()]).toEqual(['turbofan', 'lower']);
  });
});
