// The client's type tests (test/sdk/types/client.types.ts) compile: every positive line type-checks and
// every `// @ts-expect-error` meets its error (an unused one would fail the compile). The tsconfig
// there has no @types/node, so this also proves that src/client needs no Node API.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTsc } from '../support/packed.js';

const ROOT = join(import.meta.dirname, '..', '..');

it('tsc -p test/sdk/types exits 0', async () => {
  const result = await runTsc(['-p', 'test/sdk/types', '--pretty', 'false'], ROOT);
  expect(result.stdout + result.stderr).toBe('');
  expect(result.code).toBe(0);
}, 60_000);
