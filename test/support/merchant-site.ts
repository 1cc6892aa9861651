// The merchant's shop for browser tests: the page the hosted payment page sends the customer back
// to (urls.return, urls.cancel). On 127.0.0.1 and a free port; records every visit with the query
// identifiers it carried, and answers a small HTML page naming them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Visit {
  /** The path without the query: `/return`, `/cancel`. */
  path: string;
  /** The query parameters: the merchant's own and the identifiers the sandbox appended. */
  query: Record<string, string>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class MerchantSite {
  private server!: Server;
  url = '';
  visits: Visit[] = [];

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://merchant.invalid');
      const visit: Visit = { path: url.pathname, query: Object.fromEntries(url.searchParams) };
      this.visits.push(visit);
      const title =
        visit.path === '/cancel'
          ? 'Checkout cancelled'
          : visit.path === '/return'
            ? 'Thank you for your order'
            : 'Shop';
      const rows = Object.entries(visit.query)
        .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd data-param="${escapeHtml(k)}">${escapeHtml(v)}</dd>`)
        .join('');
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><dl>${rows}</dl></main></body></html>`,
        );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The merchant's URLs for one order (its own `order` parameter is kept by the redirect). */
  urls(order: string) {
    return {
      return: `${this.url}/return?order=${encodeURIComponent(order)}`,
      cancel: `${this.url}/cancel?order=${encodeURIComponent(order)}`,
    };
  }

  /** The visits of one order. */
  of(order: string): Visit[] {
    return this.visits.filter((v) => v.query.order === order);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
