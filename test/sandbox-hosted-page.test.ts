// The hosted page's HTML on its own: amounts from minor units, escaping, a CSP whose style hash is
// the page's own style, labels for every input, no script and no external asset.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatMinorUnits, renderHostedMessage, renderHostedPage, type HostedPageView } from '../sandbox/http/hosted-page.js';

const view: HostedPageView = {
  merchantId: 'shop_"quoted"',
  amountValue: 2500,
  currency: 'USD',
  reference: '<script>alert(1)</script>',
  methods: ['CARD', 'PAYPAL', 'GOOGLEPAY'],
  environment: 'test',
  actionUrl: 'http://127.0.0.1:4020/hosted/sessions/test/shop/cs_1',
  redirectOrigins: ['https://shop.example.com', 'https://shop.example.com', 'https://cancel.example.org'],
};

describe('hosted page HTML', () => {
  it('formats minor units by the currency', () => {
    expect(formatMinorUnits(2500, 'USD')).toBe('$25.00');
    expect(formatMinorUnits(1500, 'JPY')).toBe('¥1,500');
    expect(formatMinorUnits(1234, 'KWD')).toContain('1.234');
    expect(formatMinorUnits(2500, 'ZZZ')).toMatch(/25\.00/);
  });

  it('escapes what the merchant sent', () => {
    const { html } = renderHostedPage(view);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('shop_&quot;quoted&quot;');
  });

  it('sends a strict CSP whose style hash is the page style, and lists the redirect origins once', () => {
    const { html, headers } = renderHostedPage(view);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const csp = headers['content-security-policy']!;
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://shop.example.com https://cancel.example.org;");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['cache-control']).toBe('no-store');
  });

  it('works without JavaScript and loads nothing external; every input has its label', () => {
    const { html } = renderHostedPage(view);
    expect(html).not.toMatch(/<script|\ssrc=|<link/i);
    expect(html.match(/https?:\/\//g)).toEqual(['http://']); // the form's own action only
    const ids = [...html.matchAll(/<input type="radio" name="method" id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(html).toContain(`<label for="${id}">`);
    expect([...html.matchAll(/name="decision" value="(\w+)"/g)].map((m) => m[1])).toEqual(['pay', 'decline', 'cancel']);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Test mode');
    expect(renderHostedPage({ ...view, environment: 'live' }).html).not.toContain('Test mode');
  });

  it('a message page has no form and allows no form action', () => {
    const { html, headers } = renderHostedMessage({ title: 'Payment page expired', message: 'Return to the merchant.' });
    expect(html).not.toContain('<form');
    expect(headers['content-security-policy']).toContain("form-action 'none'");
    expect(html).toContain('<h1>Payment page expired</h1>');
  });
});
