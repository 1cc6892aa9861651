// The documentation site (generator/steps/docs.ts): built from the current contract (the bundle of the
// global setup) into a temp dir, then opened from disk in headless Chromium with the network
// blocked. Screenshots go to test-output/docs/ (git-ignored). That two builds are byte-identical is
// held by test/generator/generated.test.ts (a fresh build equals the committed one).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildDocs,
  decorateForDocs,
  type Guide,
  loadGuides,
  operationAnchor,
  WORDED_EXTENSIONS,
} from '../../generator/steps/docs.js';
import { guideLinks } from '../../generator/steps/guide-links.js';
import { GUIDES_DIR } from '../../generator/support/paths.js';
import { deref, type OperationObject, operationById, operations, walkObjects } from '../../tooling/openapi/walker.js';
import { connectBrowser } from '../support/browser.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** An operation heading: the summary, then the text of Redoc's badges ("Inferred", "Webhook"). */
const labelled = (summary: string) => new RegExp(`^\\s*${escapeRegExp(summary)}(\\s*(Inferred|Webhook))*\\s*$`);
/** How tall the full-page screenshot's viewport may grow: a bound on a page that keeps growing. */
const TALLEST_VIEWPORT_PX = 30_000;
const SCREENSHOTS = fileURLToPath(new URL('../../test-output/docs/', import.meta.url));

let bundle: JsonObject;
let bundleBefore: string;
let outDir: string;
let files: string[];
let html: string;
let guides: Guide[];

beforeAll(async () => {
  bundle = loadBundle();
  bundleBefore = JSON.stringify(bundle);
  guides = await loadGuides(GUIDES_DIR);
  outDir = await mkdtemp(join(tmpdir(), 'docs-test-'));
  ({ files } = await buildDocs(bundle, outDir));
  html = await readFile(join(outDir, 'docs', 'index.html'), 'utf8');
});

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('buildDocs', () => {
  it('writes index.html, the contract (JSON, YAML) and the Arazzo workflows under <outDir>/docs/', async () => {
    expect(files.map((f) => f.slice(outDir.length + 1)).sort()).toEqual([
      'docs/arazzo/card-payment.arazzo.yaml',
      'docs/arazzo/hosted-checkout.arazzo.yaml',
      'docs/arazzo/hosted-page.openapi.yaml',
      'docs/arazzo/idempotent-retry.arazzo.yaml',
      'docs/arazzo/payment-plans.arazzo.yaml',
      'docs/arazzo/simulated-decline.arazzo.yaml',
      'docs/console.html',
      'docs/index.html',
      'docs/openapi.json',
      'docs/openapi.yaml',
      'docs/scalar/standalone.js',
    ]);
    expect(JSON.parse(await readFile(join(outDir, 'docs', 'openapi.json'), 'utf8'))).toEqual(bundle);
    expect(html.length).toBeGreaterThan(1_000_000); // Redoc inlined (--inlineBundle)
  });

  it('does not modify the document it is given', () => {
    expect(JSON.stringify(bundle)).toBe(bundleBefore);
  });

  it('is self-contained: no http(s) script, stylesheet, font or image URL in the page', () => {
    const external = [
      ...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi), // any script src: the bundle must be inline
      ...html.matchAll(/<link\b[^>]*\bhref\s*=\s*["']?(https?:[^"'\s>]+)/gi),
      ...html.matchAll(/<img\b[^>]*\bsrc\s*=\s*["']?(https?:[^"'\s>]+)/gi),
      ...html.matchAll(/url\(\s*["']?(https?:[^"')\s]+)/gi),
      ...html.matchAll(/@import\s+(?:url\()?\s*["']?(https?:[^"')\s;]+)/gi),
      ...html.matchAll(/["'`](https?:\/\/cdn\.[^"'`\s]+\.(?:svg|png|js|css|woff2?))["'`]/gi), // CDN assets referenced from code
    ].map((m) => m[1]);
    expect(external).toEqual([]);
    expect(html).toMatch(/<script type="module">/);
  });

  it("fails with Redocly's own message and leaves the previous docs intact", async () => {
    const before = await readFile(join(outDir, 'docs', 'index.html'));
    await expect(buildDocs({ notAnOpenApiDocument: true }, outDir)).rejects.toThrow(
      /build-docs failed[\s\S]*Unsupported specification/i,
    );
    expect((await readFile(join(outDir, 'docs', 'index.html'))).equals(before)).toBe(true);
  });

  it('badges every inferred part of the contract in the rendered copy', () => {
    const doc = decorateForDocs(bundle, guides) as JsonObject;
    const missing: string[] = [];
    walkObjects(doc, (node, tokens) => {
      if (
        node['x-provenance'] === 'inferred' &&
        tokens[0] !== 'servers' &&
        !String(node.description).includes('class="inferred-badge"')
      )
        missing.push(tokens.join('/'));
    });
    const inferredStatuses = new Map(
      operations(bundle).map((op) => [op.pointer, (op.operation['x-inferred-responses'] ?? []) as string[]]),
    );
    for (const op of operations(doc)) {
      for (const status of inferredStatuses.get(op.pointer) ?? []) {
        const response = deref<JsonObject>(doc, op.operation.responses?.[status]);
        if (!String(response.description).includes('class="inferred-badge"'))
          missing.push(`${op.pointer}/responses/${status}`);
      }
      if (op.operation['x-provenance'] === 'inferred') {
        const badges = (op.operation['x-badges'] ?? []) as JsonObject[];
        if (!badges.some((b) => b.name === 'Inferred')) missing.push(`${op.pointer} (x-badges)`);
      }
    }
    expect(missing).toEqual([]);
    // and the contract itself is left alone
    expect(JSON.stringify(bundle)).toBe(bundleBefore);
  });

  it("writes the contract's extensions as words and leaves none raw", () => {
    const doc = decorateForDocs(bundle, guides) as JsonObject;
    const raw: string[] = [];
    walkObjects(doc, (node, tokens) => {
      for (const name of WORDED_EXTENSIONS) if (name in node) raw.push(`${tokens.join('/')}/${name}`);
    });
    expect(raw).toEqual([]);
    const info = String((doc.info as JsonObject).description);
    for (const rule of ((bundle['x-business-rules'] as JsonObject | undefined)?.rules ?? []) as JsonObject[])
      expect(info).toContain(String(rule.rule));
    const byPointer = new Map(operations(doc).map((op) => [op.pointer, op.operation]));
    const source = operations(bundle);
    expect(source.some((op) => op.operation['x-since'] !== undefined)).toBe(true);
    for (const { pointer, operation } of source) {
      const description = String(byPointer.get(pointer)?.description);
      if (operation['x-since'] !== undefined)
        expect(description).toContain(`**Since version** ${operation['x-since']}`);
      if (operation['x-sdk-method'] !== undefined)
        expect(description).toContain(`**SDK** \`client.${operation['x-sdk-method']}()\``);
      for (const rule of ((operation['x-business-rules'] as JsonObject | undefined)?.rules ?? []) as JsonObject[])
        expect(description).toContain(String(rule.rule));
    }
  });

  it('adds the guides as a first sidebar group', () => {
    expect(guides.map((g) => g.title)).toEqual(
      expect.arrayContaining([
        'Getting started',
        'Payment lifecycle',
        'Idempotency',
        'Receiving webhooks',
        'Errors',
        'Hosted checkout',
      ]),
    );
    const doc = decorateForDocs(bundle, guides) as JsonObject;
    const groups = doc['x-tagGroups'] as JsonObject[];
    expect(groups[0]).toEqual({ name: 'Guides', tags: guides.map((g) => g.title) });
    const grouped = new Set(groups.flatMap((g) => g.tags as string[]));
    for (const op of operations(doc))
      for (const tag of op.operation.tags as string[]) expect(grouped, `tag ${tag} is in no group`).toContain(tag);
  });
});

/** How long a section may take to render after its hash is set: generous, since a loaded machine renders slowly. */
const SECTION_WAIT_MS = 15_000;

describe('the page in Chromium, from disk, offline', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const attempted: string[] = [];
  const succeeded: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await connectBrowser();
    context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    // Everything but file:// is blocked, and counted.
    await context.route(
      (url) => url.protocol !== 'file:',
      (route) => {
        attempted.push(route.request().url());
        return route.abort('internetdisconnected');
      },
    );
    context.on('requestfinished', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) succeeded.push(r.url());
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(pathToFileURL(join(outDir, 'docs', 'index.html')).href);
    await page.locator('[data-component-name="Menu/MenuItem"]').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
  });

  const menuGroup = (label: string) =>
    page
      .locator('[data-component-name="Menu/MenuItem"].menu-item-type-group')
      .filter({
        has: page.locator('[data-testid="menu-item-label"]', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }),
      })
      .first();

  it('shows every operation and webhook of the contract, in the sidebar and on its own page', async () => {
    const expected = operations(bundle).map((o) => ({
      summary: String(o.operation.summary),
      tag: String((o.operation.tags as string[])[0]),
      inferred: o.operation['x-provenance'] === 'inferred',
    }));
    expect(operations(bundle, ['webhooks']).length).toBeGreaterThan(0);
    const seen = new Map<string, { inferredBadge: boolean; headingVisible: boolean }>();
    for (const tag of [...new Set(expected.map((e) => e.tag))]) {
      const group = menuGroup(tag);
      await group.locator('[data-testid="menu-item-label"]').first().click(); // expands the group (and collapses others)
      const items = group.locator('[data-component-name="Menu/MenuItem"].menu-item-type-operation');
      await items.first().waitFor();
      for (const item of await items.all()) {
        const summary = (await item.locator('[data-text]').first().getAttribute('data-text')) ?? '';
        const inferredBadge = await item
          .locator('[data-component-name="Tag/Tag"]', { hasText: /^Inferred$/ })
          .isVisible();
        await item.locator('[data-testid="menu-item-label"]').click();
        const heading = page.locator('[data-item-kind="httpItem"] h2', { hasText: labelled(summary) }).first();
        const headingVisible = await heading.waitFor({ state: 'visible', timeout: 5000 }).then(
          () => true,
          () => false,
        );
        seen.set(summary, { inferredBadge, headingVisible });
      }
    }
    const missing = expected.filter((e) => !seen.has(e.summary)).map((e) => e.summary);
    expect(missing, 'operations missing from the sidebar').toEqual([]);
    expect(
      [...seen].filter(([, s]) => !s.headingVisible).map(([n]) => n),
      'operations whose page heading is not visible',
    ).toEqual([]);
    // the sidebar's Inferred badge is exactly on the inferred operations
    expect(expected.filter((e) => seen.get(e.summary)?.inferredBadge !== e.inferred).map((e) => e.summary)).toEqual([]);
    expect(seen.size).toBe(expected.length); // 32 operations under paths and 2 webhooks today
  }, 120_000);

  it('finds an operation with the search box', async () => {
    const summaries = operations(bundle).map((o) => String(o.operation.summary));
    const wanted = summaries.includes('Capture a payment') ? 'Capture a payment' : summaries[0]!;
    await page.getByText('Search', { exact: false }).first().click();
    const dialog = page.locator('[data-testid="search-dialog"]');
    await dialog.locator('input').fill(wanted);
    const hit = dialog.locator('[data-component-name="Search/SearchItem"]', { hasText: wanted }).first();
    await expect(hit.waitFor({ state: 'visible', timeout: 10_000 })).resolves.toBeUndefined();
    await page.screenshot({ path: join(SCREENSHOTS, 'search.png') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('shows the inferred badges: on an inferred operation, its description, and an inferred status', async () => {
    const ops = operations(bundle);
    // an inferred operation (Capture a payment today)
    const inferred =
      ops.find((o) => o.operation.operationId === 'capturePayment') ??
      ops.find((o) => o.operation['x-provenance'] === 'inferred')!;
    const section = await openOperation(inferred.operation);
    const titleBadge = section.locator('h2 [data-component-name="Tag/Tag"]', { hasText: 'Inferred' });
    await titleBadge.waitFor({ state: 'visible' });
    const descriptionBadge = section.locator('.inferred-badge').first();
    await descriptionBadge.scrollIntoViewIfNeeded();
    await expect(descriptionBadge.isVisible()).resolves.toBe(true);
    const style = await descriptionBadge.evaluate((e) => ({
      display: getComputedStyle(e).display,
      background: getComputedStyle(e).backgroundColor,
    }));
    expect(style.display).toBe('inline-block'); // styled by the page's badge CSS, not bare text
    expect(style.background).not.toBe('rgba(0, 0, 0, 0)');
    await section.locator('h2').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'inferred-operation.png') });

    // a status the interface document does not give for a documented operation, whose response is
    // documented (400 of Create a checkout session today)
    const withStatus = ops
      .filter((o) => o.operation['x-provenance'] !== 'inferred')
      .flatMap((o) =>
        ((o.operation['x-inferred-responses'] ?? []) as string[]).map((status) => {
          const response = deref<JsonObject>(bundle, o.operation.responses?.[status]);
          return { o, status, documented: response['x-provenance'] !== 'inferred' };
        }),
      )
      .find((x) => x.documented)!;
    const statusSection = await openOperation(withStatus.o.operation);
    const tab = statusSection
      .locator('button, [role=tab]', { hasText: new RegExp(`^\\W*${withStatus.status}\\s*$`) })
      .first();
    await tab.scrollIntoViewIfNeeded();
    await tab.click();
    const statusBadge = statusSection.locator('.inferred-badge', { hasText: /^Inferred status$/ }).first();
    await statusBadge.waitFor({ state: 'visible' });
    await statusBadge.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'inferred-status.png') });
  }, 60_000);

  /** Opens an operation from the sidebar; returns its section once the heading is visible. */
  async function openOperation(operation: OperationObject) {
    const summary = String(operation.summary);
    await menuGroup(String((operation.tags as string[])[0]))
      .locator('[data-testid="menu-item-label"]')
      .first()
      .click();
    await page
      .locator('[data-component-name="Menu/MenuItem"].menu-item-type-operation')
      .filter({ has: page.locator(`[data-text="${summary.replace(/"/g, '\\"')}"]`) })
      .first()
      .click();
    const section = page
      .locator('[data-item-kind="httpItem"]', { has: page.locator('h2', { hasText: labelled(summary) }) })
      .first();
    await section.locator('h2').first().waitFor({ state: 'visible' });
    return section;
  }

  it("words an answer's links under its operation, and each target's name leads to its section", async () => {
    // Redoc renders no Link Objects: the docs step writes them into the operation's description
    const source = operationById(bundle, 'createPayment').operation;
    const target = operationById(bundle, 'capturePayment').operation;
    const anchor = operationAnchor(String(target.tags![0]), String(target.operationId));
    const section = await openOperation(source);
    const item = section
      .locator('li')
      .filter({ has: page.locator(`a[href="${anchor}"]`) })
      .first();
    const link = item.locator(`a[href="${anchor}"]`);
    await link.scrollIntoViewIfNeeded();
    await expect(link.isVisible()).resolves.toBe(true);
    await expect(item.textContent()).resolves.toContain('id ← $response.body#/payId');
    await expect(item.locator('.inferred-badge').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'links.png') });
    await link.click();
    await page
      .locator(`[data-section-id="${anchor.slice(1)}"] h2`, { hasText: labelled(String(target.summary)) })
      .first()
      .waitFor({ state: 'visible' });
  }, 60_000);

  it('renders the guides, with the lifecycle diagram and the hosted checkout sequence', async () => {
    const guidesInMenu = await page
      .locator('[data-component-name="Menu/MenuItem"].menu-item-type-group [data-testid="menu-item-label"]')
      .allInnerTexts();
    for (const g of guides) expect(guidesInMenu).toContain(g.title);
    await menuGroup('Payment lifecycle').locator('[data-testid="menu-item-label"]').first().click();
    const diagram = page.locator('img.lifecycle-diagram');
    await diagram.waitFor({ state: 'visible' });
    const { width, height, complete } = await diagram.evaluate((img: HTMLImageElement) => ({
      width: img.naturalWidth,
      height: img.naturalHeight,
      complete: img.complete,
    }));
    expect(complete && width > 0 && height > 0, 'the diagram image decoded').toBe(true);
    await expect(page.locator('table', { hasText: 'Capture a payment' }).first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'guide-lifecycle.png') });

    await menuGroup('Receiving webhooks').locator('[data-testid="menu-item-label"]').first().click();
    await page.getByText('timingSafeEqual', { exact: false }).first().waitFor({ state: 'visible' });

    await menuGroup('Hosted checkout').locator('[data-testid="menu-item-label"]').first().click();
    const sequence = page.locator('img.guide-diagram[src^="data:image/svg+xml"]');
    await sequence.waitFor({ state: 'visible' });
    const decoded = await sequence.evaluate(
      (img: HTMLImageElement) => img.complete && img.naturalWidth > 0 && img.alt.includes('urls.return'),
    );
    expect(decoded, 'the hosted checkout sequence diagram decoded, with its text alternative').toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'guide-hosted-checkout.png') });
  });

  it('resolves every link of the guides to a section of the page', async () => {
    // the links npm run lint checks against the contract (guide-link-*), followed on the page
    const links = new Map<string, string[]>(); // target → guides linking to it
    for (const g of guides)
      for (const { target } of guideLinks(g.body)) links.set(target, [...(links.get(target) ?? []), g.file]);
    expect(links.size).toBeGreaterThan(0);
    const broken: string[] = [];
    for (const [link, from] of links) {
      await page.evaluate((hash) => (window.location.hash = hash), link);
      const section = page.locator(`[data-section-id="${link.slice(1)}"]`).first();
      if (
        !(await section.waitFor({ state: 'attached', timeout: SECTION_WAIT_MS }).then(
          () => true,
          () => false,
        ))
      )
        broken.push(`${link} (in docs/guides/${[...new Set(from)].join(', ')})`);
    }
    expect(broken, 'guide links without a target (Redoc routes are #/<tag slug>/<operationId in lower case>)').toEqual(
      [],
    );
  }, 60_000);

  it('has the sections the SDK links to (operationAnchor, the `@see` of every method)', async () => {
    const broken: string[] = [];
    for (const { operation } of operations(bundle, ['paths'])) {
      const link = operationAnchor(String((operation.tags as string[])[0]), String(operation.operationId));
      await page.evaluate((hash) => (window.location.hash = hash), link);
      const section = page.locator(`[data-section-id="${link.slice(1)}"]`).first();
      if (
        !(await section.waitFor({ state: 'attached', timeout: SECTION_WAIT_MS }).then(
          () => true,
          () => false,
        ))
      )
        broken.push(link);
    }
    expect(broken).toEqual([]);
  }, 120_000);

  // A picture of the whole reference for a reader (a PNG up to TALLEST_VIEWPORT_PX tall, costly for
  // the browser to make), taken on request: what the page shows is held by the tests above.
  it.runIf(process.env.DOCS_SCREENSHOTS === '1')('saves a full-page screenshot', async () => {
    await page.goto(pathToFileURL(join(outDir, 'docs', 'index.html')).href);
    await page.locator('[data-component-name="Menu/MenuItem"]').first().waitFor();
    // Redoc renders only the sections in the viewport: grow the viewport to the whole page
    for (let height = 0, rounds = 0; rounds < 8; rounds++) {
      const scrollHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      if (scrollHeight === height) break;
      height = scrollHeight;
      await page.setViewportSize({ width: 1440, height: Math.min(scrollHeight, TALLEST_VIEWPORT_PX) });
      await page.waitForTimeout(250);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'full-page.png'), fullPage: true });
    expect(existsSync(join(SCREENSHOTS, 'full-page.png'))).toBe(true);
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  it('made no network request and raised no page error', () => {
    expect(attempted, 'requests other than file:// were attempted').toEqual([]);
    expect(succeeded).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
