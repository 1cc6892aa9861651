// The Arazzo workflows at the source (generator/lint/arazzo.ts): every step's operation and security
// scheme exists in the description it names, and a broken copy is reported at the step's line; the
// copies the docs site publishes point at the contract beside them.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { arazzoFiles, checkReferences } from '../../generator/lint/arazzo.js';
import { publishedWorkflows } from '../../generator/steps/docs.js';
import { ARAZZO_DIR, REPO_ROOT } from '../../generator/support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'arazzo-refs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of a workflow file in `dir`, its source descriptions by absolute path, edited by `edit`. */
function brokenCopy(name: string, edit: (text: string) => string): { file: string; text: string } {
  const original = readFileSync(join(ARAZZO_DIR, name), 'utf8')
    .replace('url: ../generated/openapi.yaml', `url: ${resolve(REPO_ROOT, 'generated', 'openapi.yaml')}`)
    .replace('url: hosted-page.openapi.yaml', `url: ${join(ARAZZO_DIR, 'hosted-page.openapi.yaml')}`);
  const text = edit(original);
  expect(text).not.toBe(original);
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, text };
}
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

describe('Arazzo workflows', () => {
  it('are five workflows and the hosted page description', async () => {
    const names = (await arazzoFiles()).map((f) => basename(f));
    expect(names).toEqual([
      'card-payment.arazzo.yaml',
      'hosted-checkout.arazzo.yaml',
      'hosted-page.openapi.yaml',
      'idempotent-retry.arazzo.yaml',
      'payment-plans.arazzo.yaml',
      'simulated-decline.arazzo.yaml',
    ]);
  });

  it('name only operations and security schemes their source descriptions have', async () => {
    expect(checkReferences(await arazzoFiles())).toEqual([]);
  });

  it('a renamed operation and an unknown scheme are reported at their lines', () => {
    const { file, text } = brokenCopy('card-payment.arazzo.yaml', (t) =>
      t
        .replace('operationId: capturePayment', 'operationId: captureThePayment')
        .replace('schemeName: basicAuth', 'schemeName: basic'),
    );
    const problems = checkReferences([file]);
    expect(problems.map((p) => [p.rule, p.line, p.message])).toEqual([
      [
        'arazzo-security-scheme',
        lineOf(text, 'schemeName: basic'),
        expect.stringContaining('basic: no such security scheme'),
      ],
      [
        'arazzo-operation',
        lineOf(text, 'operationId: captureThePayment'),
        expect.stringContaining('captureThePayment: no such operation'),
      ],
    ]);
  });

  it('with two source descriptions, a step must name its description', () => {
    const { file, text } = brokenCopy('hosted-checkout.arazzo.yaml', (t) =>
      t.replace('operationId: hostedPage.submitHostedPage', 'operationId: submitHostedPage'),
    );
    expect(checkReferences([file]).map((p) => [p.rule, p.line])).toEqual([
      ['arazzo-operation', lineOf(text, 'operationId: submitHostedPage')],
    ]);
  });

  it('an unreadable source description is reported at its url', () => {
    const { file, text } = brokenCopy('simulated-decline.arazzo.yaml', (t) =>
      t.replace(/url: .*openapi\.yaml/, 'url: ./missing.yaml'),
    );
    expect(checkReferences([file]).map((p) => [p.rule, p.line])).toEqual([
      ['arazzo-source-description', lineOf(text, 'url: ./missing.yaml')],
    ]);
  });

  it('are published pointing at the contract beside them in generated/docs/', async () => {
    const published = await publishedWorkflows(ARAZZO_DIR);
    expect(published.map(([name]) => name)).toEqual((await arazzoFiles()).map((f) => basename(f)));
    for (const [name, content] of published.filter(([n]) => n.endsWith('.arazzo.yaml'))) {
      expect(content, name).toContain('url: ../openapi.yaml');
      expect(content, name).not.toContain('generated/');
    }
    expect(existsSync(join(REPO_ROOT, 'generated', 'docs', 'openapi.yaml'))).toBe(true);
  });
});
