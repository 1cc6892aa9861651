// The hosted page's HTML on its own: amounts from minor units, escaping, a CSP whose style hash is
// the page's own style, labels for every input, no script and no external asset.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  formatMinorUnits,
  type HostedPageView,
  type RenderedPage,
  renderHostedMessage,
  renderHostedPage,
} from '../../sandbox/http/hosted-page.js';

const view: HostedPageView = {
  merchantId: `shop_"quoted"_'single'`,
  amountValue: 2500,
  currency: 'USD',
  reference: '<script>alert(1)</script>&co',
  methods: ['CARD', 'PAYPAL', 'SEPA'],
  environment: 'test',
  actionUrl: 'http://127.0.0.1:4020/hosted/sessions/test/shop/cs_1?a=1&b=2',
  redirectOrigins: ['https://shop.example.com', 'https://shop.example.com', 'https://cancel.example.org:8443'],
};

const directives = (page: RenderedPage) =>
  new Map(
    page.headers['content-security-policy']!.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );

const styleHash = (html: string) => {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
  expect(styles).toHaveLength(1);
  return `'sha256-${createHash('sha256').update(styles[0]![1]!).digest('base64')}'`;
};

describe('formatMinorUnits', () => {
  it('uses the currency’s own number of fraction digits', () => {
    expect(formatMinorUnits(2500, 'USD')).toBe('$25.00');
    expect(formatMinorUnits(1500, 'JPY')).toBe('¥1,500');
    expect(formatMinorUnits(1500, 'JPY')).not.toContain('.');
    expect(formatMinorUnits(1234, 'KWD')).toContain('1.234');
    expect(formatMinorUnits(199, 'EUR')).toBe('€1.99');
    expect(formatMinorUnits(123456789, 'USD')).toBe('$1,234,567.89');
  });

  it('falls back to two decimals and the code for a code Intl does not know, without throwing', () => {
    expect(formatMinorUnits(2500, 'ZZZ')).toBe('25.00 ZZZ');
    expect(formatMinorUnits(5, 'NOT-A-CODE')).toBe('0.05 NOT-A-CODE');
  });
});

describe('renderHostedPage', () => {
  const page = renderHostedPage(view);
  const { html, headers } = page;

  it('escapes every value the merchant sent', () => {
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;co');
    expect(html).toContain('shop_&quot;quoted&quot;_&#39;single&#39;');
    expect(html).not.toContain(`"quoted"`);
    expect(html).toContain(
      '<form method="post" action="http://127.0.0.1:4020/hosted/sessions/test/shop/cs_1?a=1&amp;b=2">',
    );
    const hostile = renderHostedPage({ ...view, methods: ['"><img src=x>'], currency: '<b>' }).html;
    expect(hostile).not.toMatch(/<img|<b>/);
  });

  it('shows the merchant, the amount with its code and the reference', () => {
    expect(html).toContain('$25.00');
    expect(html).toMatch(/\$25\.00[^<]*USD/);
    expect(html).toContain('Pay $25.00</button>');
    expect(html.match(/<h1[ >]/g)).toHaveLength(1);
    expect(html).toMatch(/<main>[\s\S]*<\/main>/);
  });

  it('sends a strict CSP whose style hash is the page’s own style, and lists the redirect origins once', () => {
    const csp = directives(page);
    expect([...csp.keys()]).toEqual(['default-src', 'style-src', 'form-action', 'base-uri', 'frame-ancestors']);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('style-src')).toEqual([styleHash(html)]);
    expect(csp.get('form-action')).toEqual(["'self'", 'https://shop.example.com', 'https://cancel.example.org:8443']);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('keeps anything but a plain origin out of form-action', () => {
    const csp = directives(
      renderHostedPage({
        ...view,
        redirectOrigins: [
          'https://shop.example.com/return?x=1',
          "https://evil.example;script-src 'unsafe-inline'",
          'javascript:alert(1)',
          'not a url',
        ],
      }),
    );
    expect(csp.get('form-action')).toEqual(["'self'", 'https://shop.example.com']);
    expect(csp.has('script-src')).toBe(false);
  });

  it('sends the hardening headers', () => {
    expect(headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
  });

  it('loads nothing external and has no script', () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/\s(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html.match(/https?:\/\//g)).toEqual(['http://']); // the form's own action only
  });

  it('is an accessible document', () => {
    expect(html).toMatch(/^<!doctype html>\s*<html lang="en">/i);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<meta name="viewport" content="[^"]+">/);
    expect(html).toMatch(/<title>[^<]+<\/title>/);
    expect(html).toMatch(/:focus-visible\s*\{[^}]*outline:/);
    expect(html).not.toContain('tabindex');
  });

  it('has a labelled radio per method, the first checked, in a fieldset with a legend', () => {
    expect(html).toMatch(/<fieldset>\s*<legend>Payment method<\/legend>/);
    const radios = [...html.matchAll(/<input ([^>]*)>/g)].map((m) => m[1]!);
    expect(radios).toHaveLength(3);
    radios.forEach((attrs, i) => {
      expect(attrs).toContain('type="radio"');
      expect(attrs).toContain('name="method"');
      expect(attrs).toContain(`value="${view.methods[i]}"`);
      expect(attrs.includes('checked')).toBe(i === 0);
      const id = /id="([^"]+)"/.exec(attrs)![1]!;
      expect(html.match(new RegExp(`<label for="${id}">`, 'g'))).toHaveLength(1);
    });
    expect(new Set(radios.map((a) => /id="([^"]+)"/.exec(a)![1])).size).toBe(3);
  });

  it('has the three decision buttons in one form', () => {
    expect(html.match(/<form /g)).toHaveLength(1);
    const buttons = [
      ...html.matchAll(/<button type="submit"[^>]* name="decision" value="(\w+)">([^<]*)<\/button>/g),
    ].map((m) => [m[1], m[2]]);
    expect(buttons).toEqual([
      ['pay', 'Pay $25.00'],
      ['decline', 'Decline (simulate a failed payment)'],
      ['cancel', 'Cancel and return to the merchant'],
    ]);
  });

  it('shows the test-mode banner in test only', () => {
    expect(html).toContain('Test mode: no real money moves');
    expect(renderHostedPage({ ...view, environment: 'live' }).html).not.toContain('Test mode');
  });
});

describe('renderHostedMessage', () => {
  const page = renderHostedMessage({ title: 'This link has already been used', message: 'Return to <the> merchant.' });

  it('has no form and allows no form action', () => {
    expect(page.html).not.toContain('<form');
    expect(directives(page).get('form-action')).toEqual(["'none'"]);
    expect(directives(page).get('style-src')).toEqual([styleHash(page.html)]);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.html).toContain('<h1>This link has already been used</h1>');
    expect(page.html).toContain('<title>This link has already been used</title>');
    expect(page.html).toContain('Return to &lt;the&gt; merchant.');
  });
});
