// The client's type tests (test/types/client.types.ts) compile: every positive line type-checks and
// every `// @ts-expect-error` meets its error (an unused one would fail the compile). The tsconfig
// there has no @types/node, so this also proves that src/client needs no Node API.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ROOT = join(import.meta.dirname, '..');

it('tsc -p test/types exits 0', async () => {
  const result = await promisify(execFile)(process.execPath, [TSC, '-p', 'test/types', '--pretty', 'false'], { cwd: ROOT }).then(
    () => ({ code: 0, output: '' }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
}, 60_000);
