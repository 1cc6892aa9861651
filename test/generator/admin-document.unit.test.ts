// The admin document as the pipeline reads it (loadAdminDocument in generator/steps/admin.ts): the
// data YAML gives, or one line naming the file and the line of what keeps it from being read.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AdminDocumentError, loadAdminDocument } from '../../generator/steps/admin.js';
import { ADMIN_ROOT } from '../../generator/support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'admin-document-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadAdminDocument', () => {
  it("reads the repository's admin document as the YAML parser does, and as generated/admin/openapi.json holds it", async () => {
    const document = await loadAdminDocument(ADMIN_ROOT);
    expect(document).toEqual(parse(readFileSync(ADMIN_ROOT, 'utf8')));
    const generated = join(ADMIN_ROOT, '..', '..', '..', 'generated', 'admin', 'openapi.json');
    expect(`${JSON.stringify(document, null, 2)}\n`).toBe(readFileSync(generated, 'utf8'));
  });

  it('names the file, line and column of a YAML mistake, with the hint lint gives', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'openapi: 3.1.0\ninfo:\n  title: Admin\n  version: 1.0.0\npaths:\n  tags: [a, b\n');
    const error = await loadAdminDocument(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminDocumentError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${relative(process.cwd(), file)}:6:9 error yaml-syntax a '\\[' opened on line 6 is never closed`),
    );
  });

  it('names a file that is not there', async () => {
    const file = join(dir, 'missing.yaml');
    const error = await loadAdminDocument(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminDocumentError);
    expect((error as Error).message).toBe(`${relative(process.cwd(), file)}:1:1 error admin-document file not found`);
  });
});
