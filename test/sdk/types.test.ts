// The client's type tests (test/sdk/types/client.types.ts) compile: every positive line type-checks and
// every `// @ts-expect-error` meets its error (an unused one would fail the compile). The tsconfig
// there has no @types/node, so this also proves that src/client needs no Node API.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runNode } from '../../generator/support/process.js';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ROOT = join(import.meta.dirname, '..', '..');

it('tsc -p test/sdk/types exits 0', async () => {
  const result = await runNode(TSC, ['-p', 'test/sdk/types', '--pretty', 'false'], { cwd: ROOT });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.code).toBe(0);
}, 60_000);
