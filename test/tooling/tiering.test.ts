// V8's tiering for a short run (tooling/tiering.mjs), which `npm run generate` and every Node.js
// process of `npm test` run with, is set by a flag that differs between V8 versions, and V8 takes a
// flag it does not know in silence when it is set from JavaScript: a flag renamed by a later V8
// would only make the runs slower. Here each line the toolchain supports must know its own flag, as
// Node.js itself refuses an unknown one on its command line.
import { describe, expect, it } from 'vitest';
import { SHORT_RUN_IMPORT, shortRunTiering } from '../../tooling/tiering.mjs';
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

  it('is passed on to every Node.js process this run starts', () => {
    expect(process.env.NODE_OPTIONS).toContain(`--import=${SHORT_RUN_IMPORT}`);
  });
});

/**
 * Whether V8 has optimized with TurboFan a small function called 20,000 times, from a caller it
 * never optimizes (which would inline it): above V8's default bar on each line, below the raised one.
 */
const HOT = `function f(a) { return a + 1 }
function drive() { for (let i = 0; i < 20000; i++) f(i) }
%NeverOptimizeFunction(drive);
drive();
console.log((%GetOptimizationStatus(f) & 64) !== 0 ? 'turbofan' : 'lower');`;
// the compile within the call that asks for it, not on a thread of its own
const NATIVES = ['--allow-natives-syntax', '--no-concurrent-recompilation'];

describe('the module a process imports (NODE_OPTIONS)', () => {
  // this run's own NODE_OPTIONS, which carry the module, left out
  const withoutOurs = { NODE_OPTIONS: '' };
  it('keeps a function TurboFan takes by default in the lower tiers', async () => {
    const plain = await run(process.execPath, [...NATIVES, '-e', HOT], process.cwd(), { env: withoutOurs });
    const tiered = await run(process.execPath, [...NATIVES, '--import', SHORT_RUN_IMPORT, '-e', HOT], process.cwd(), {
      env: withoutOurs,
    });
    expect([plain.stdout.trim(), tiered.stdout.trim()]).toEqual(['turbofan', 'lower']);
  });

  it.each(nodeLines().map((line) => [line.version, line] as const))('does so on Node.js %s', async (_, line) => {
    const on = (args: string[]) =>
      runOn(line, 'node', [...NATIVES, ...args, '-e', HOT], process.cwd(), { env: withoutOurs });
    const [plain, tiered] = [await on([]), await on(['--import', SHORT_RUN_IMPORT])];
    expect([plain.stdout.trim(), tiered.stdout.trim()]).toEqual(['turbofan', 'lower']);
  });
});
