// A merchant's webhook endpoint for tests, and a wait for what arrives asynchronously.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A merchant's webhook endpoint: records every request; answers the statuses queued for a path, then 200. */
export class Receiver {
  server!: Server;
  url = '';
  received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  private plans = new Map<string, number[]>();
  async start() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const path = request.url ?? '/';
        this.received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        const plan = this.plans.get(path);
        response.writeHead(plan && plan.length > 0 ? plan.shift()! : 200).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** The next answers to requests on `path`. */
  answer(path: string, statuses: number[]) {
    this.plans.set(path, [...statuses]);
  }
  on(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  stop() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `check` returns a value (polling), or fails naming what it waited for. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
