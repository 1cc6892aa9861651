// The console of the documentation site (generator/steps/docs-console.ts), as a reader uses it:
// the site built from the current contract, served by the docs server (tooling/docs-server.ts) on a
// free port, a sandbox that allows the docs' origin in docs console mode, and headless Chromium
// with web security on. The reader picks the local sandbox, enters Basic credentials and sends
// listCustomers; the answer shows in the page. Any request to a host other than 127.0.0.1 is
// blocked and fails the test: the console must work with no internet. The screenshot goes to
// test-output/docs/; with DOCS_SCREENSHOTS=1 also to docs/images/docs-console.png, the committed
// one docs/toolchain.md shows (so that a plain test run leaves the working tree as it was).
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../generator/steps/docs.js';
import { consoleConfiguration } from '../../generator/steps/docs-console.js';
import { createDocsServer } from '../../tooling/docs-server.js';
import { connectBrowser } from '../support/browser.js';
import { loadBundle } from '../support/openapi.js';
import { seedExamples, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const SCREENSHOT = fileURLToPath(new URL('../../test-output/docs/docs-console.png', import.meta.url));
const COMMITTED_SCREENSHOT = fileURLToPath(new URL('../../docs/images/docs-console.png', import.meta.url));

let outDir: string;
let docs: Server;
let docsOrigin: string;
let sandbox: TestSandbox;
let browser: Browser;
let page: Page;
const external: string[] = [];
/** The requests the page sent to the sandbox (its method and URL, and the Authorization header). */
const sent: { url: string; authorization: string | undefined }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'docs-console-'));
  await buildDocs(loadBundle(), outDir);
  docs = createDocsServer(join(outDir, 'docs'));
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  docsOrigin = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  sandbox = await startTestSandbox({ consoleOrigins: [docsOrigin] });
  // the contract's examples (the customer CUST-88412 among them), so that the answer is not empty
  await seedExamples(sandbox);
  browser = await connectBrowser();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await context.route(
    (url) => url.protocol !== 'file:' && url.hostname !== '127.0.0.1',
    (route) => {
      external.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('request', (request) => {
    if (new URL(request.url()).origin === sandbox.url && request.method() === 'GET')
      sent.push({ url: request.url(), authorization: request.headers().authorization });
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
  if (docs) await new Promise((resolve) => docs.close(resolve));
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('the console configuration', () => {
  it("names no proxy and turns off Scalar's fonts, telemetry, agent, MCP and hosted client", () => {
    const config = consoleConfiguration(loadBundle());
    // Scalar proxies only when a proxy is configured (and never to local or reserved hosts such as
    // the contract's *.example servers, so the browser test below cannot tell): none may be.
    expect(config).not.toHaveProperty('proxyUrl');
    expect(config).not.toHaveProperty('proxy');
    expect(config).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      hideClientButton: true,
      persistAuth: false,
    });
  });
});

describe('the docs console, served, against a local sandbox', () => {
  it('sends listCustomers with Basic credentials to the server the reader picks and shows the answer', async () => {
    await page.goto(`${docsOrigin}/console.html`);
    // the reader picks the local sandbox, sets its port, and enters a merchant's credentials
    await page
      .getByRole('button', { name: /test\.payment-service\.example/ })
      .first()
      .click();
    await page
      .getByRole('option', { name: /127\.0\.0\.1:\{port\}\/api\/v2/ })
      .first()
      .click();
    await page.getByLabel('port', { exact: true }).fill(new URL(sandbox.url).port);
    await page.getByRole('combobox', { name: 'Username' }).click();
    await page.keyboard.type(sandbox.merchant.merchantId);
    await page.getByRole('textbox', { name: 'Password' }).fill(sandbox.merchant.apiKey);

    // then opens List customers, and sends it from the console
    await page.getByText('Customers', { exact: true }).first().click();
    await page.getByText('List customers', { exact: true }).first().click();
    await page
      .getByRole('button', { name: /Test Request\s*\(get \/customers\)/ })
      .first()
      .click();
    await page.getByRole('button', { name: /^Send/ }).first().click();

    await page.getByText('200 OK', { exact: true }).first().waitFor({ timeout: 15_000 });
    const body = page.getByText('"CUST-88412"').first();
    await body.waitFor();
    await page.screenshot({ path: SCREENSHOT });
    if (process.env.DOCS_SCREENSHOTS === '1') await copyFile(SCREENSHOT, COMMITTED_SCREENSHOT);

    // the request went straight to the sandbox (no proxy), with the credentials entered
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]!.url).toMatch(new RegExp(`^${sandbox.baseUrl}/customers\\?`));
    expect(sent[0]!.authorization).toBe(sandbox.basic());
    // and nothing else left the machine
    expect(external).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("renders from disk too, with the contract's extensions in words and nothing fetched", async () => {
    const fromDisk = await page.context().newPage();
    try {
      await fromDisk.goto(pathToFileURL(join(outDir, 'docs', 'console.html')).href);
      await fromDisk.getByText('Payments', { exact: true }).first().click();
      await fromDisk.getByText('Refund a payment', { exact: true }).first().click();
      const refund = fromDisk.getByText(/Since version\s*2\.4\.0/).first();
      await refund.waitFor({ timeout: 20_000 });
      await fromDisk.getByText('client.payments.refund()').first().waitFor();
      await fromDisk.screenshot({ path: '/tmp/console-refund.png' });
      expect(await fromDisk.getByText('x-sdk-method').count()).toBe(0);
      expect(external).toEqual([]);
    } finally {
      await fromDisk.close();
    }
  });

  it('sends to a documented server straight from the browser', async () => {
    const before = external.length;
    const fresh = await page.context().newPage();
    try {
      await fresh.goto(`${docsOrigin}/console.html`);
      await fresh.getByText('Customers', { exact: true }).first().click();
      await fresh.getByText('List customers', { exact: true }).first().click();
      await fresh
        .getByRole('button', { name: /Test Request\s*\(get \/customers\)/ })
        .first()
        .click();
      await fresh.getByRole('button', { name: /^Send/ }).first().click();
      await expect.poll(() => external.length, { timeout: 10_000 }).toBeGreaterThan(before);
      // the blocked attempt is the request itself, to the contract's first server (no network here)
      const attempted = external.splice(before);
      expect(attempted.length).toBeGreaterThan(0);
      for (const url of attempted)
        expect(url).toMatch(/^https:\/\/test\.payment-service\.example\/api\/v2\/customers\b/);
    } finally {
      await fresh.close();
    }
  });

  it('is refused by a sandbox that does not allow the docs origin (CORS stays closed by default)', async () => {
    const closed = await startTestSandbox();
    try {
      const answer = await page.evaluate(async (url) => {
        try {
          await fetch(url, { headers: { authorization: 'Basic eDp5' } });
          return 'reached';
        } catch {
          return 'refused';
        }
      }, `${closed.baseUrl}/customers`);
      expect(answer).toBe('refused');
    } finally {
      await closed.stop();
    }
  });
});
