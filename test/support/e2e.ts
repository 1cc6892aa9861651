// One end-to-end setup per test file (test/e2e-*.test.ts): Chromium (from @sparticuz/chromium,
// driven by playwright-core), a sandbox in this process on 127.0.0.1 and a free port with a merchant
// whose notifications are "enhanced", the merchant's shop (return and cancel pages) and the
// project's example webhook receiver as a child process, verifying with the SDK. All of it starts
// before the file's tests and stops after them; each test gets its own browser context.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadAdminDocument } from '../../sandbox/documents.js';
import { ADMIN_PREFIX } from '../../sandbox/http/admin.js';
import { type MerchantCredentials, type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/server.js';
import { createPaymentClient, type PaymentClient, type RequestBody } from '../../src/client/index.js';
import { connectBrowser } from './browser.js';
import { checkResponse, matchOperation } from './contract-check.js';
import { type ExampleReceiver, startExampleReceiver } from './example-receiver.js';
import { MerchantSite } from './merchant-site.js';
import { conformingFetch, newMerchant, sandboxContract, transId } from './sandbox.js';

export { transId };

import { type HoldingReceiver, holdingReceiver } from './sandbox-process.js';
import { registerWebhookSecrets } from './webhook-check.js';

export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'e2e');

/** A merchant whose webhook URLs receive signed (enhanced) notifications. */
export const enhancedMerchant = (
  name: string,
  webhookSecret = `whsec_${randomBytes(16).toString('hex')}`,
): MerchantCredentials & { webhookSecret: string } => {
  const merchant = { ...newMerchant(name), webhookSecret, webhookKind: 'enhanced' as const };
  registerWebhookSecrets(merchant);
  return merchant;
};

/** The SDK, on `baseUrl`, with every response of the sandbox held to the contract; no retries. */
export function sdk(baseUrl: string, merchant: MerchantCredentials): PaymentClient {
  return createPaymentClient({
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
    baseUrl,
    fetch: conformingFetch,
    maxAttempts: 1,
  });
}

/**
 * A request to a sandbox's admin API (`${url}/_sandbox…`, Bearer admin key), its response held to
 * the admin document (sandbox/admin/openapi.yaml): one it does not declare throws, naming why.
 */
export async function adminCall(
  url: string,
  adminKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${ADMIN_PREFIX}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const document = loadAdminDocument();
  const match = matchOperation(document, method, new URL(response.url).pathname);
  if (!match) throw new Error(`${method} ${ADMIN_PREFIX}${path} is no operation of the admin document`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const violations = checkResponse(document, match.operation.id, response.status, headers, text);
  if (violations.length > 0)
    throw new Error(`the admin API sent a response its document does not declare:\n  ${violations.join('\n  ')}`);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export interface E2E {
  browser: Browser;
  sandbox: Sandbox;
  /** `${sandbox.url}/api/v2` */
  baseUrl: string;
  merchant: MerchantCredentials & { webhookSecret: string };
  /** The SDK as `merchant`. */
  client: PaymentClient;
  /** The sandbox's admin API (see adminCall). */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  site: MerchantSite;
  example: ExampleReceiver;
  /** A fresh browser context (closed after the test) and its page. */
  newPage(options?: { bypassCSP?: boolean }): Promise<Page>;
  /** A full-page screenshot to test-output/e2e/<file>-<name>.png. */
  screenshot(page: Page, name: string): Promise<void>;
  /** A checkout session created with the SDK: the shop's return and cancel URLs, the example receiver as webhook unless given. */
  checkout(
    prefix: string,
    extra?: Partial<RequestBody<'createCheckoutSession'>> & { webhook?: string },
    client?: PaymentClient,
    shop?: MerchantSite,
  ): Promise<{ transId: string; href: string; sessionId: string }>;
  /**
   * Opens a session's hosted page on `page` (a fresh one unless given) and checks what it shows
   * (openHostedPage): this merchant, `shown` (amount and currency as the customer reads them) and the
   * session's transId as the reference. The page.
   */
  openCheckout(
    session: { href: string; transId: string },
    shown: { amount: string; currency: string },
    page?: Page,
  ): Promise<Page>;
  /**
   * Clicks the hosted page's `button` and waits for the shop's /return page; screenshots
   * `<shot>-1-hosted-page` before the click and `<shot>-2-return` after. Where the customer landed.
   */
  returnAfter(page: Page, button: string | RegExp, shot: string): Promise<URL>;
}

/**
 * What a test does in the browser: fresh pages (their contexts go into `contexts`, closed after the
 * test), screenshots named after `file`, and the hosted checkout of `merchant` returning to `site`.
 */
function browserActions(setup: {
  browser: Browser;
  contexts: BrowserContext[];
  file: string;
  merchant: MerchantCredentials;
  site: MerchantSite;
}): Pick<E2E, 'newPage' | 'screenshot' | 'openCheckout' | 'returnAfter'> {
  const newPage: E2E['newPage'] = async (opts = {}) => {
    const context = await setup.browser.newContext({
      viewport: { width: 720, height: 900 },
      ...(opts.bypassCSP ? { bypassCSP: true } : {}),
    });
    setup.contexts.push(context);
    context.setDefaultTimeout(15_000);
    return context.newPage();
  };
  const screenshot: E2E['screenshot'] = async (page, name) => {
    await page.screenshot({ path: join(SCREENSHOTS, `${setup.file}-${name}.png`), fullPage: true });
  };
  return {
    newPage,
    screenshot,
    async openCheckout(session, shown, page) {
      const opened = page ?? (await newPage());
      await openHostedPage(opened, session.href, {
        merchantId: setup.merchant.merchantId,
        ...shown,
        reference: session.transId,
      });
      return opened;
    },
    async returnAfter(page, button, shot) {
      await screenshot(page, `${shot}-1-hosted-page`);
      await page.getByRole('button', { name: button }).click();
      const landed = await landOn(page, setup.site, '/return');
      await screenshot(page, `${shot}-2-return`);
      return landed;
    },
  };
}

/**
 * Registers the file's beforeAll/afterAll/afterEach; the returned function gives the running setup.
 * `file` names the screenshots.
 */
export function e2ePerFile(file: string, options: { webhooks?: SandboxOptions['webhooks'] } = {}): () => E2E {
  let e2e: E2E | undefined;
  let browser: Browser | undefined;
  let sandbox: Sandbox | undefined;
  let site: MerchantSite | undefined;
  let example: ExampleReceiver | undefined;
  // In front of the example receiver: every delivery is held to the contract on its way there.
  let front: HoldingReceiver | undefined;
  const contexts: BrowserContext[] = [];
  const merchant = enhancedMerchant('e2e');

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Settled, not Promise.all: whatever started is assigned, so afterAll stops it even if another failed.
    const started = await Promise.allSettled([
      connectBrowser().then((b) => (browser = b)),
      startSandbox({
        port: 0,
        database: ':memory:',
        merchants: [merchant],
        contract: sandboxContract(),
        ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      }).then((s) => (sandbox = s)),
      new MerchantSite().start().then((s) => (site = s)),
      startExampleReceiver({ secret: merchant.webhookSecret }).then((r) => (example = r)),
    ]);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    if (!browser || !sandbox || !site || !example) throw new Error('unreachable');
    front = await holdingReceiver({ hold: 0, forward: example.enhancedUrl });
    const baseUrl = `${sandbox.url}/api/v2`;
    const client = sdk(baseUrl, merchant);
    const b = browser;
    const sb = sandbox;
    e2e = {
      browser: b,
      sandbox,
      baseUrl,
      merchant,
      client,
      admin: (method, path, body) => adminCall(sb.url, sb.adminKey, method, path, body),
      site,
      example,
      ...browserActions({ browser: b, contexts, file, merchant, site }),
      async checkout(prefix, extra = {}, as = client, shop = site!) {
        const id = transId(prefix);
        const { webhook, ...body } = extra;
        const created = await as.checkoutSessions.create({
          transId: id,
          amount: { value: 2500, currency: 'USD' },
          allowedPaymentMethods: ['CARD', 'PAYPAL'],
          ...body,
          urls: { ...shop.urls(id), webhook: webhook ?? front!.url },
        });
        const href = created._links.redirect.href;
        return { transId: id, href, sessionId: href.split('/').at(-1)! };
      },
    };
  }, 90_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    void front?.received; // throws a delivery of this test that broke the contract
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), sandbox?.close(), site?.stop(), example?.stop(), front?.close()]);
  });

  return () => {
    if (!e2e) throw new Error('the end-to-end setup of this file has not started');
    return e2e;
  };
}

/** The hosted page's facts as the customer reads them: the definition list's terms and values. */
export async function shownDetails(page: Page): Promise<Record<string, string>> {
  const terms = await page.getByRole('term').allInnerTexts();
  const values = await page.getByRole('definition').allInnerTexts();
  return Object.fromEntries(terms.map((t, i) => [t.trim(), values[i]?.trim() ?? '']));
}

/** Opens the hosted page and checks what it shows: the merchant, the amount with its currency, the reference. */
export async function openHostedPage(
  page: Page,
  href: string,
  expected: { merchantId: string; amount: string; currency: string; reference: string },
): Promise<void> {
  const response = await page.goto(href);
  expect(response?.status()).toBe(200);
  await page.getByRole('heading', { level: 1, name: `Pay ${expected.merchantId}` }).waitFor();
  expect(await shownDetails(page)).toEqual({
    Merchant: expected.merchantId,
    Amount: `${expected.amount} (${expected.currency})`,
    Reference: expected.reference,
  });
  expect(await page.getByRole('button', { name: `Pay ${expected.amount}` }).isEnabled()).toBe(true);
}

/** Waits until the browser is on the shop's `path` (after the hosted page's redirect). */
export async function landOn(page: Page, site: MerchantSite, path: '/return' | '/cancel'): Promise<URL> {
  await page.waitForURL((url) => url.origin === new URL(site.url).origin && url.pathname === path);
  await page.getByRole('heading', { level: 1 }).waitFor();
  return new URL(page.url());
}

export const isFocused = (locator: Locator) => locator.evaluate((el) => el === document.activeElement);

/** Presses Tab until `locator` has the focus (at most `max` times); fails if it never does. */
export async function tabTo(page: Page, locator: Locator, max = 10): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await isFocused(locator)) return;
  }
  throw new Error(`Tab never reached ${locator}`);
}
