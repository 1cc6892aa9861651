// The client runs in browsers too: no Node.js global anywhere under src/client. Its imports
// (relative modules and openapi-fetch only) are held by test/architecture.unit.test.ts; the built
// package, its exports and its declarations (compiled without Node's types) by test/sdk/package.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLIENT_DIR = join(import.meta.dirname, '..', '..', 'src', 'client');

describe('src/client uses no Node.js globals', () => {
  const files = readdirSync(CLIENT_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

  it.each(files)('%s', (file) => {
    expect(readFileSync(join(CLIENT_DIR, file), 'utf8'), file).not.toMatch(
      /\b(Buffer|process|require|__dirname)\s*[.(]/,
    );
  });
});
