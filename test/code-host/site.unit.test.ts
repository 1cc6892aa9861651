// The folder GitHub Pages publishes, assembled from generated/ (generator/code-host/site.ts).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assembleSite, SITE_FILES } from '../../generator/code-host/site.js';
import { REPO_ROOT } from '../../generator/support/paths.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}
const options = () => ({ generated: join(dir, 'generated'), out: join(dir, 'site') });
/** The text of a file of the assembled site. */
const published = (...path: string[]) => readFile(join(dir, 'site', ...path), 'utf8');
/** The pages the docs build writes to generated/docs/ (the tests read the listing, not their text). */
const DOCS_PAGES = {
  'generated/docs/index.html': '<html>reference</html>',
  'generated/docs/sandbox-admin.html': 'admin',
  'generated/docs/sandbox-admin.yaml': 'openapi: 3.1.0',
};

describe('assembleSite', () => {
  it('publishes the docs, the bundle, the admin docs and the Arazzo workflows', async () => {
    await put({
      ...DOCS_PAGES,
      'generated/openapi.json': '{"openapi":"3.1.0"}',
      'generated/openapi.yaml': 'openapi: 3.1.0',
      'generated/docs/arazzo/checkout.arazzo.yaml': 'arazzo: 1.0.1',
    });
    const files = await assembleSite(options());
    expect(files).toEqual([
      'arazzo/checkout.arazzo.yaml',
      'index.html',
      'openapi.json',
      'openapi.yaml',
      'sandbox-admin.html',
      'sandbox-admin.yaml',
    ]);
    // the bundle comes from generated/ when the docs folder has none
    expect(await published('openapi.json')).toBe('{"openapi":"3.1.0"}');
    expect(await published('arazzo', 'checkout.arazzo.yaml')).toBe('arazzo: 1.0.1');
  });

  it("keeps what the docs build wrote over generated/'s copies, and works without workflows", async () => {
    await put({
      ...DOCS_PAGES,
      'generated/docs/openapi.json': '"docs copy"',
      'generated/docs/openapi.yaml': 'docs copy',
      'generated/openapi.json': '"bundle"',
    });
    const files = await assembleSite(options());
    expect(files).toEqual([...SITE_FILES].sort());
    expect(await published('openapi.json')).toBe('"docs copy"');
  });

  it('refuses without the docs, without the admin docs, or into a folder that is not empty', async () => {
    await expect(assembleSite(options())).rejects.toThrow(
      /generated\/docs\/index\.html does not exist: run npm run generate/,
    );
    await put({
      'generated/docs/index.html': 'reference',
      'generated/openapi.json': '{}',
      'generated/openapi.yaml': '',
    });
    await expect(assembleSite(options())).rejects.toThrow(/neither .*sandbox-admin\.html nor .* exists/);
    await put({ 'site/old.html': 'old' });
    await expect(assembleSite(options())).rejects.toThrow(/site is not empty/);
  });

  it('assembles the repository’s own generated/ into a site with every required file', async () => {
    const files = await assembleSite({
      generated: join(REPO_ROOT, 'generated'),
      out: join(dir, 'site'),
    });
    for (const f of SITE_FILES) expect(files).toContain(f);
    expect(await published('index.html')).toBe(
      await readFile(join(REPO_ROOT, 'generated', 'docs', 'index.html'), 'utf8'),
    );
  });
});
