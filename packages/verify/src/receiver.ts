// The verifier's webhook endpoint: it keeps every request it receives (method, headers, raw body,
// when) and answers 200, so that the server under test sees a working merchant endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver keeps of a server that floods it: bodies and deliveries beyond these are dropped. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_KEPT = 1000;

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export class Receiver {
  readonly received: ReceivedWebhook[] = [];
  readonly #waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    /** The URL the server under test is given (`--webhook-url`, else the listening address). */
    readonly url: string,
  ) {}

  static async start(port = 0, publicUrl?: string): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        // The server under test is not trusted: a body beyond any notification's size is refused.
        if (size > MAX_BODY_BYTES) {
          res.writeHead(413).end();
          req.destroy();
        } else chunks.push(c);
      });
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        receiver?.add({
          method: req.method ?? '',
          path: req.url ?? '/',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    const address = server.address() as AddressInfo;
    receiver = new Receiver(server, publicUrl ?? `http://127.0.0.1:${address.port}/webhooks`);
    return receiver;
  }

  /** Keeps a received webhook and wakes whoever waits for one. */
  add(webhook: ReceivedWebhook): void {
    if (this.received.length >= MAX_KEPT) return; // a run asks for a handful: a flood is not kept
    this.received.push(webhook);
    for (const wake of this.#waiters) wake();
  }

  /** The webhooks that satisfy `match`, once there are `count` of them or `timeoutMs` passed. */
  async waitFor(match: (w: ReceivedWebhook) => boolean, count: number, timeoutMs: number): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter(match);
      const left = deadline - Date.now();
      if (found.length >= count || left <= 0) return found;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
