// A merchant's webhook endpoint for tests, and a wait for what arrives asynchronously. Every delivery
// it receives is held to the contract's webhooks and its signature verified with the SDK
// (webhook-check.ts) before a test can see it: a delivery that breaks the contract fails the test it
// arrived in, at the first look at what was received or when the test ends.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { DeliveryChecks, type SecretsOf } from './webhook-check.js';

export interface ReceiverOptions {
  /** The secrets an enhanced notification is verified with, by merchant (default: those the tests' sandboxes registered). */
  secrets?: SecretsOf;
}

type Received = { path: string; headers: IncomingHttpHeaders; body: string };

/** A merchant's webhook endpoint: records every request; answers the statuses queued for a path, then 200. */
export class Receiver {
  server!: Server;
  url = '';
  private readonly deliveries: Received[] = [];
  private readonly checks: DeliveryChecks;
  private plans = new Map<string, number[]>();

  /** Make it where a suite (or the file) is declared: the check after each test is registered there. */
  constructor(options: ReceiverOptions = {}) {
    this.checks = new DeliveryChecks(options.secrets);
    afterEach(() => this.assertConforming());
  }

  async start() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        const path = request.url ?? '/';
        const delivery = { path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        await this.checks.check(path, { method: request.method ?? '', ...delivery });
        this.deliveries.push(delivery);
        const plan = this.plans.get(path);
        response.writeHead(plan && plan.length > 0 ? plan.shift()! : 200).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Every request received, in order (each checked already). */
  get received(): readonly Received[] {
    this.assertConforming();
    return this.deliveries;
  }
  /** The next answers to requests on `path`. */
  answer(path: string, statuses: number[]) {
    this.plans.set(path, [...statuses]);
  }
  on(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  /** The first request on `path`, once one has arrived (see eventually; `what` names it if none does). */
  first(path: string, what = `a request on ${path}`): Promise<Received> {
    return eventually(what, () => this.on(path)[0]);
  }
  /** Throws WebhookConformanceError naming the violations received since the last call, if any. */
  assertConforming() {
    this.checks.assertConforming();
  }
  async stop() {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.assertConforming();
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
