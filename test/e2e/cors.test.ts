// CORS in Chromium with web security on (test/support/browser.ts drops --disable-web-security): a
// shop's pages served from two local origins, one allowed with --cors-origin (the sandbox) or
// PAYMENT_API_CORS_ORIGINS (the mock), the other not, call with `fetch` from the page
// confirmPaymentIntent (the app's call, bearer token) and createCheckoutSession (a server's call,
// merchant credentials). The allowed origin confirms and reads the exposed headers; the other is
// refused by the browser, and so is every page's direct call of a server's operation; the shop's own
// back end (a same-origin route that adds the credentials, as docs/mock.md's recipe) is how a page
// reaches those. The sandbox and the mock run as `npm run sandbox` and `npm run mock` do, in process
// groups of their own, on free ports of 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { chromiumLaunchOptions, connectBrowser, DROPPED_FLAGS } from '../support/browser.js';
import { startMockCommand } from '../support/prism.js';
import { checkoutSession, newMerchant } from '../support/sandbox.js';
import { startSandboxProcess } from '../support/sandbox-process.js';

const merchant = newMerchant('cors');
const basic = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;

/**
 * A shop on 127.0.0.1 and a free port: `/` is an empty page to run `fetch` from; `POST
 * /api/checkout` is its back end's proxy route, which calls the API's createCheckoutSession with the
 * merchant's credentials (they never reach the page).
 */
async function startShop(api: () => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/api/checkout') {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        const answer = await fetch(`${api()}/payments/sessions`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface PageFetch {
  status?: number;
  /** The headers the page can read (CORS-safelisted and exposed ones only). */
  headers?: Record<string, string>;
  body?: string;
  /** The fetch failed: what the page saw. */
  error?: string;
}

/** `fetch(url, init)` run by the page itself. */
function pageFetch(page: Page, url: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  return page.evaluate(
    async ({ url, init }): Promise<PageFetch> => {
      try {
        const response = await fetch(url, init);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        return { status: response.status, headers, body: await response.text() };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  );
}

let browser: Browser | undefined;
let sandbox: ServerProcess | undefined;
let mock: ServerProcess | undefined;
let allowed: Awaited<ReturnType<typeof startShop>> | undefined;
let other: Awaited<ReturnType<typeof startShop>> | undefined;
let dir: string | undefined;
const contexts: BrowserContext[] = [];
/** The console errors of the pages (where Chromium says why it blocked a request). */
const consoleErrors: string[] = [];
let apiBase = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cors-e2e-'));
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify([merchant]));
  [allowed, other] = await Promise.all([startShop(() => apiBase), startShop(() => apiBase)]);
  const origin = allowed.origin;
  const started = await Promise.allSettled([
    connectBrowser().then((b) => (browser = b)),
    startSandboxProcess({ database: ':memory:', merchantsFile, extra: ['--cors-origin', origin] }).then(
      (s) => (sandbox = s),
    ),
    startMockCommand([], { PAYMENT_API_CORS_ORIGINS: origin }).then((m) => (mock = m)),
  ]);
  for (const result of started) if (result.status === 'rejected') throw result.reason;
}, 120_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await Promise.all([
    browser?.close(),
    sandbox?.stop(),
    mock?.stop(),
    ...[allowed, other].map(
      (shop) =>
        shop &&
        new Promise<void>((resolve) => {
          shop.server.closeAllConnections();
          shop.server.close(() => resolve());
        }),
    ),
  ]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page of `shop` in a fresh context. */
async function openShop(shop: { origin: string }): Promise<Page> {
  const context = await browser!.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(`${shop.origin}/`);
  return page;
}

const checkoutBody = (transId: string) => JSON.stringify(checkoutSession(transId));
const card = JSON.stringify({ integrationType: 'DIRECT', type: 'CARD' });

/** What the shop's back end does for the app: a payment intent and a short-lived token, with the merchant's credentials. */
async function intentAndToken(api: string): Promise<{ id: string; token: string }> {
  const intent = await fetch(`${api}/payment-intents`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: { value: 990, currency: 'EUR' } }),
  });
  const token = await fetch(`${api}/authorization/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  expect([intent.status, token.status]).toEqual([201, 200]);
  return {
    id: String(((await intent.json()) as { id: string }).id),
    token: ((await token.json()) as any).access_token,
  };
}

it('Chromium runs with web security on', async () => {
  const { args } = await chromiumLaunchOptions();
  expect(args).not.toContain('--disable-web-security');
  expect(args).not.toContain('--single-process');
  expect([...DROPPED_FLAGS]).toEqual(['--single-process', '--disable-web-security']);
});

it('the sandbox and the mock say which origin they allow, one from its option, the other from the variable', () => {
  expect(sandbox!.output()).toContain(`CORS         ${allowed!.origin} (the bearer-token operations only)`);
  expect(mock!.output()).toContain(
    `CORS      ${allowed!.origin} (the operations a browser may call: confirmPaymentIntent)`,
  );
});

describe.each(['sandbox', 'mock'] as const)('from a page, against the %s', (server) => {
  const api = () => (server === 'sandbox' ? `${sandbox!.baseUrl}/api/v2` : mock!.baseUrl);

  it('the allowed origin confirms a payment intent with a bearer token and reads the exposed headers; the other origin is refused by the browser', async () => {
    apiBase = api();
    const { id, token } = await intentAndToken(api());
    const confirm = (page: Page, key: string, body = card) =>
      pageFetch(page, `${api()}/payment-intents/${id}/confirm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body,
      });

    // The other origin first: its preflight is refused, so the confirmation never reaches the server.
    const refused = await confirm(await openShop(other!), 'cors-e2e-1');
    expect(refused).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(consoleErrors.join('\n')).toContain(`from origin '${other!.origin}' has been blocked by CORS policy`);

    const page = await openShop(allowed!);
    const first = await confirm(page, 'cors-e2e-1');
    expect(first.error).toBeUndefined();
    expect(first.status).toBe(201);
    expect(JSON.parse(first.body!).status).toBe('OK');
    if (server === 'sandbox') {
      // a replay, readable by the page: Idempotent-Replayed is exposed
      const again = await confirm(page, 'cors-e2e-1');
      expect(again.status).toBe(201);
      expect(again.headers!['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
    } else {
      // the mock's violations are readable by the page
      const invalid = await confirm(page, 'cors-e2e-2', '{}');
      expect(invalid.status).toBe(422);
      expect(invalid.headers!['sl-violations']).toMatch(/integrationType/);
    }
  });

  it("a page never calls a server's operation (merchant credentials), from any origin; its own back end does", async () => {
    apiBase = api();
    for (const shop of [allowed!, other!]) {
      const page = await openShop(shop);
      consoleErrors.length = 0;
      const direct = await pageFetch(page, `${api()}/payments/sessions`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: checkoutBody(`CORS-DIRECT-${server}`),
      });
      expect(direct, shop.origin).toEqual({ error: 'TypeError: Failed to fetch' });
      expect(consoleErrors.join('\n')).toContain('has been blocked by CORS policy');
      // The recipe: the page calls its own origin; the back end adds the credentials.
      const viaBackEnd = await pageFetch(page, '/api/checkout', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: checkoutBody(`CORS-PROXY-${server}-${shop === allowed ? 'a' : 'b'}`),
      });
      expect(viaBackEnd.status, viaBackEnd.body).toBe(202);
      expect(JSON.parse(viaBackEnd.body!)._links.redirect.href).toMatch(/^http/);
    }
  });
});
