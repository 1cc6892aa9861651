// `npm run generate` sets V8's tiering for a short run (generator/support/tiering.mjs) with a flag that
// differs between V8 versions, and V8 takes a flag it does not know in silence when it is set from
// JavaScript: a flag renamed by a later V8 would only make the command slower. Here each line the
// toolchain supports must know its own flag, as Node.js itself refuses an unknown one on its
// command line.
import { describe, expect, it } from 'vitest';
import { shortRunTiering } from '../../generator/support/tiering.mjs';
import { nodeLines, runOn } from '../support/node-lines.js';
import { run } from '../support/packed.js';

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

describe("the generator's tiering flag", () => {
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
