// The hosted payment page's HTML: no JavaScript, no external asset, one inline style allowed by its
// hash in a strict Content-Security-Policy, labels on every input, visible focus, AA contrast.
import { platform } from '../app/platform.js';

export interface HostedPageView {
  /** The merchant's id, shown as the payee. */
  merchantId: string;
  /** Minor units (2500 USD = $25.00; 1500 JPY = ¥1,500; 1234 KWD = KWD 1.234). */
  amountValue: number;
  /** ISO 4217 code. */
  currency: string;
  /** The merchant's reference (transId). */
  reference: string;
  /** The payment method types the customer may choose; at least one. */
  methods: readonly string[];
  /** 'test': a visible test-mode banner. */
  environment: 'test' | 'live';
  /** Where the form posts (the page's own address). */
  actionUrl: string;
  /** Origins the browser may be redirected to after the post (the merchant's return and cancel URLs). */
  redirectOrigins: readonly string[];
}

export interface HostedMessageView {
  title: string;
  message: string;
}

export interface RenderedPage {
  html: string;
  headers: Record<string, string>;
}

const STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #c9ccd1;border-radius:8px}
h1{font-size:1.4rem;margin:0 0 1rem}
.banner{margin:0 0 1rem;padding:.5rem .75rem;background:#fff4ce;border:1px solid #8a6d00;border-radius:4px}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}
fieldset{border:1px solid #c9ccd1;border-radius:4px;margin:0 0 1rem;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
label{display:block;padding:.25rem 0}
button{display:block;width:100%;margin:.5rem 0 0;padding:.75rem;font:inherit;border-radius:4px;cursor:pointer}
.pay{color:#fff;background:#0b57d0;border:1px solid #0b57d0;font-weight:600}
.secondary{color:#1a1a1a;background:#eceef1;border:1px solid #6b7079}
:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}
`.trim();

/** The style's CSP source; made on first use (the platform is installed after the modules load). */
let styleHash: string | undefined;
const styleSource = () => (styleHash ??= `'sha256-${Buffer.from(platform().sha256(STYLE)).toString('base64')}'`);

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Intl formats any well-formed code (ZZZ → "ZZZ 25.00"); only the codes ICU knows get its digits.
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Minor units as the currency's amount, e.g. 2500 USD → "$25.00"; an unknown code → "25.00 ZZZ". */
export function formatMinorUnits(value: number, currency: string): string {
  if (!KNOWN_CURRENCIES.has(currency.toUpperCase())) return `${(value / 100).toFixed(2)} ${currency}`;
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(value / 10 ** digits);
}

// CSP's host-source grammar (letters, digits, dots, hyphens, a port): URL parsing alone lets `;` and `'`
// through, which would smuggle a directive into the header. Anything else is left out, so the
// redirect to it is blocked rather than the policy broken.
const CSP_ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/i;

function origins(values: readonly string[]): string[] {
  const result = new Set<string>();
  for (const value of values) {
    const origin = URL.canParse(value) ? new URL(value).origin : '';
    if (CSP_ORIGIN.test(origin)) result.add(origin);
  }
  return [...result];
}

function headers(formAction: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': `default-src 'none'; style-src ${styleSource()}; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`,
  };
}

const document = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

export function renderHostedPage(view: HostedPageView): RenderedPage {
  const amount = formatMinorUnits(view.amountValue, view.currency);
  const methods = view.methods
    .map(
      (m, i) =>
        `<label for="method-${i}"><input type="radio" name="method" id="method-${i}" value="${escapeHtml(m)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(m)}</label>`,
    )
    .join('\n');
  const body = `<h1>Pay ${escapeHtml(view.merchantId)}</h1>
${view.environment === 'test' ? '<p class="banner" role="note">Test mode: no real money moves.</p>\n' : ''}<dl>
<dt>Merchant</dt><dd>${escapeHtml(view.merchantId)}</dd>
<dt>Amount</dt><dd>${escapeHtml(amount)} (${escapeHtml(view.currency)})</dd>
<dt>Reference</dt><dd>${escapeHtml(view.reference)}</dd>
</dl>
<form method="post" action="${escapeHtml(view.actionUrl)}">
<fieldset>
<legend>Payment method</legend>
${methods}
</fieldset>
<button type="submit" class="pay" name="decision" value="pay">Pay ${escapeHtml(amount)}</button>
<button type="submit" class="secondary" name="decision" value="decline">Decline (simulate a failed payment)</button>
<button type="submit" class="secondary" name="decision" value="cancel">Cancel and return to the merchant</button>
</form>`;
  const formAction = ["'self'", ...origins(view.redirectOrigins)].join(' ');
  return { html: document(`Pay ${amount} to ${view.merchantId}`, body), headers: headers(formAction) };
}

export function renderHostedMessage(view: HostedMessageView): RenderedPage {
  return {
    html: document(view.title, `<h1>${escapeHtml(view.title)}</h1>\n<p>${escapeHtml(view.message)}</p>`),
    headers: headers("'none'"),
  };
}
