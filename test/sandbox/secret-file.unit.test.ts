// Where a Node process gets the sandbox secret (sandbox/platform/secret-file.ts): the one given, else
// the key file's, made on first use, the owner's alone and never half-written; what is too short or
// unreadable is refused, naming the variable or the file.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSecret } from '../../sandbox/platform/secret-file.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadSecret', () => {
  it('takes the secret given (trimmed) before any file, and refuses a short one', () => {
    expect(loadSecret({ secret: ` ${'a'.repeat(32)}\n`, file: join(dir, 'unused.key') })).toEqual({
      secret: 'a'.repeat(32),
      from: 'SANDBOX_SECRET',
    });
    expect(readdirSync(dir)).toEqual([]);
    expect(() => loadSecret({ secret: 'a'.repeat(31) })).toThrow(/SANDBOX_SECRET must be at least 32 characters/);
  });

  it('makes the key file on first use, in its folder, 0600, whole; then reads it back', () => {
    const file = join(dir, 'made', 'secret.key');
    const first = loadSecret({ file });
    expect(first.from).toBe(file);
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(file, 'utf8')).toBe(`${first.secret}\n`);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(readdirSync(join(dir, 'made'))).toEqual(['secret.key']); // no temporary file left
    expect(loadSecret({ file })).toEqual(first);
  });

  it('keeps a key file the owner’s alone, and refuses one too short', () => {
    const file = join(dir, 'loose.key');
    writeFileSync(file, `${'b'.repeat(40)}\n`);
    chmodSync(file, 0o644);
    expect(loadSecret({ file }).secret).toBe('b'.repeat(40));
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const short = join(dir, 'short.key');
    writeFileSync(short, 'c'.repeat(31));
    expect(() => loadSecret({ file: short })).toThrow(
      `the sandbox secret file ${short} must hold at least 32 characters`,
    );
    expect(() => loadSecret({ file: dir })).toThrow(`cannot read the sandbox secret file ${dir}`);
  });
});
