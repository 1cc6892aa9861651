// The HTTP server's limits on slow and greedy clients, on a sandbox with short ones: headers and
// bodies that trickle, idle keep-alive connections, the budget of large bodies in flight, the
// connection cap, the cap per client address and the floor rate of a body (docs/sandbox.md
// "Limits"). Each assertion is about time, so the file runs in the serial project.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerMerchants } from '../../sandbox/app/merchants.js';
import { deriveSecrets, ephemeralSecret } from '../../sandbox/app/secrets.js';
import { createSandboxCore } from '../../sandbox/http/core.js';
import { createSandboxApp } from '../../sandbox/http/fastify-adapter.js';
import type { ServerLimits } from '../../sandbox/http/limits.js';
import { openStore } from '../../sandbox/store/index.js';
import { head, rawExchange } from '../support/raw-http.js';
import { cardPayment, sandboxContract } from '../support/sandbox.js';

/** The budget of large bodies in flight of both suites: one largeBody fits, two do not. */
const BODY_BUDGET = 300_000;
/** A payment's JSON body of about 200 000 bytes (its metadata too large: a 400 once read). */
const largeBody = (transId: string) => JSON.stringify({ transId, metadata: { pad: 'p'.repeat(200_000) } });

type Merchant = { merchantId: string; apiKey: string; webhookSecret: string };

/**
 * For a suite: the sandbox's app with `limits` and `merchant` alone, on a free port of 127.0.0.1, from
 * before the suite's tests until after them; its request log goes to `log`. The port, once listening.
 */
function limitedAppPerSuite(limits: Partial<ServerLimits>, merchant: Merchant, log?: (line: string) => void) {
  let app: Awaited<ReturnType<typeof createSandboxApp>> | undefined;
  let store: Awaited<ReturnType<typeof openStore>> | undefined;
  let port = 0;
  beforeAll(async () => {
    store = await openStore({ database: ':memory:' });
    const secrets = deriveSecrets(ephemeralSecret());
    await registerMerchants(store, secrets, [merchant], new Date());
    const core = createSandboxCore({ contract: sandboxContract(), store, secrets, publicUrl: () => '' });
    app = await createSandboxApp(core, { limits, log });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });
  return () => port;
}

/** The head of a request creating a payment as `merchant`, its JSON body `length` bytes long. */
const paymentHead = (merchant: Merchant, length: number, close: boolean) =>
  head([
    'POST /api/v2/payments HTTP/1.1',
    'Host: x',
    `Authorization: Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`,
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    ...(close ? ['Connection: close'] : []),
  ]);

describe('slow clients and the connection cap', () => {
  const limits = {
    headersTimeoutMs: 600,
    requestTimeoutMs: 1_200,
    keepAliveTimeoutMs: 400,
    idleTimeoutMs: 5_000,
    maxConnections: 4,
    bodyBytesInFlight: BODY_BUDGET,
  };
  const merchant = { merchantId: 'slow_merchant', apiKey: 'sk_test_slow', webhookSecret: 'whsec_slow' };
  const port = limitedAppPerSuite(limits, merchant);

  it('a client that trickles its headers is answered 408 and closed within the headers timeout', async () => {
    const trickle = 'GET /api/v2/customers HTTP/1.1\r\nHost: x\r\nX-Slow: 1'
      .split('')
      .flatMap((c) => [c, { waitMs: 50 }]);
    const answer = await rawExchange(port(), trickle, 5_000);
    expect(answer.closedAfterMs).toBeLessThan(limits.headersTimeoutMs + 1_500);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 408, title: 'Request timeout.' });
  });

  it('a body that trickles is cut at the request timeout', async () => {
    const answer = await rawExchange(
      port(),
      [
        head([
          'POST /hosted/sessions/test/m/cs_x HTTP/1.1',
          'Host: x',
          'Content-Type: application/x-www-form-urlencoded',
          'Content-Length: 100',
        ]),
        ...Array.from({ length: 60 }, () => ['x', { waitMs: 100 }]).flat(),
      ],
      6_000,
    );
    expect(answer.closedAfterMs).toBeLessThan(limits.requestTimeoutMs + 1_500);
    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const answer = await rawExchange(port(), [head(['GET /api/v2/customers HTTP/1.1', 'Host: x'])], 5_000);
    expect(answer.status).toBe(401);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(limits.keepAliveTimeoutMs - 50);
    expect(answer.closedAfterMs).toBeLessThan(limits.keepAliveTimeoutMs + 1_500);
  });

  it('large bodies wait for the budget of bodies in flight; small ones never do', async () => {
    const post = (length: number, close = false) => paymentHead(merchant, length, close);
    const large = largeBody('LARGE');
    const started = Date.now();
    // A takes two thirds of the budget, stalls, and gives up after half the request timeout, before
    // the server would cut A or B (at its next check of the timeout, up to 600 ms later still): B's
    // body must wait until A's connection closes, and is then read.
    const holdMs = limits.requestTimeoutMs / 2;
    const a = rawExchange(port(), [post(large.length), large.slice(0, 10), { waitMs: 5_000 }], holdMs);
    await new Promise((r) => setTimeout(r, 100));
    const b = rawExchange(port(), [post(large.length, true), large], 5_000);
    const small = await rawExchange(port(), [post(2, true), '{}'], 2_000);
    expect(small.status).toBe(400);
    expect(small.closedAfterMs).toBeLessThan(1_000);
    const [answerA, answerB] = await Promise.all([a, b]);
    expect(answerA.status).toBeUndefined();
    expect(answerB.status).toBe(400); // its metadata is too large: it was read, once A had gone
    expect(Date.now() - started).toBeGreaterThanOrEqual(holdMs);
    expect(answerB.closedAfterMs! + 100).toBeGreaterThanOrEqual(holdMs);
  });

  it('connections over the cap are closed as they arrive; the server answers once they are gone', async () => {
    const held = Array.from({ length: limits.maxConnections }, () =>
      rawExchange(port(), ['GET /api/v2/customers HTTP/1.1\r\n', { waitMs: 5_000 }], 5_000),
    );
    await new Promise((r) => setTimeout(r, 200));
    const extra = await rawExchange(port(), [head(['GET /api/v2/customers HTTP/1.1', 'Host: x'])], 2_000);
    expect(extra.status).toBeUndefined();
    expect(extra.closedAfterMs).toBeLessThan(500);
    const closed = await Promise.all(held);
    for (const c of closed) expect(c.status).toBe(408);
    const after = await rawExchange(port(), [head(['GET /api/v2/customers HTTP/1.1', 'Host: x', 'Connection: close'])]);
    expect(after.status).toBe(401);
  });
});

describe('connections per client address, and bodies slower than the floor', () => {
  const limits = {
    headersTimeoutMs: 8_000,
    requestTimeoutMs: 10_000,
    idleTimeoutMs: 20_000,
    maxConnections: 32,
    maxConnectionsPerAddress: 3,
    bodyBytesInFlight: BODY_BUDGET,
    minBodyBytesPerSecond: 2_000,
    bodyGraceMs: 400,
  };
  const merchant = { merchantId: 'floor_merchant', apiKey: 'sk_test_floor', webhookSecret: 'whsec_floor' };
  const lines: string[] = [];
  const port = limitedAppPerSuite(limits, merchant, (line) => lines.push(line));

  /** A connection from `from` (any 127.0.0.0/8 address is this machine's) that sends half a request line and holds it. */
  const holding = (from: string) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect({ port: port(), host: '127.0.0.1', localAddress: from }, () => {
        socket.write('GET /api/v2/customers HTTP/1.1\r\n');
        resolve(socket);
      });
      socket.on('error', reject);
    });
  /** Milliseconds until the server closed a fresh connection from `from` that sent nothing (undefined: still open after `waitMs`). */
  const closedWithin = (from: string, waitMs: number) =>
    new Promise<number | undefined>((resolve) => {
      const started = Date.now();
      const socket = connect({ port: port(), host: '127.0.0.1', localAddress: from });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(undefined);
      }, waitMs);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Date.now() - started);
      });
    });
  const capLines = () => lines.filter((line) => line.includes('maxConnectionsPerAddress'));
  const post = (length: number) => paymentHead(merchant, length, true);

  it('one address holds at most its cap: the next connections from it are closed as they arrive, logged once; other addresses are served', async () => {
    const held = await Promise.all(Array.from({ length: limits.maxConnectionsPerAddress }, () => holding('127.0.0.1')));
    const refused = await Promise.all(Array.from({ length: 5 }, () => closedWithin('127.0.0.1', 2_000)));
    for (const after of refused) expect(after, 'a connection over the cap is closed at once').toBeLessThan(500);
    expect(capLines()).toHaveLength(1);
    expect(capLines()[0]).toContain('127.0.0.1 holds 3 connections');
    // Another address is not held back by this one's cap.
    expect(await closedWithin('127.0.0.2', 300)).toBeUndefined();

    // Once the address holds no connection, it is served again; a new run of refusals is logged once more.
    for (const socket of held) socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await rawExchange(port(), [head(['GET /api/v2/customers HTTP/1.1', 'Host: x', 'Connection: close'])]);
    expect(again.status).toBe(401);
    await new Promise((r) => setTimeout(r, 100)); // the server sees that connection close too
    const second = await Promise.all(
      Array.from({ length: limits.maxConnectionsPerAddress }, () => holding('127.0.0.1')),
    );
    expect(await closedWithin('127.0.0.1', 2_000)).toBeLessThan(500);
    expect(await closedWithin('127.0.0.1', 2_000)).toBeLessThan(500);
    expect(capLines()).toHaveLength(2);
    for (const socket of second) socket.destroy();
    await new Promise((r) => setTimeout(r, 200)); // gone on the server's side too, before the next test
  });

  it('a body that arrives slower than the floor is answered 408 after its grace, long before the request timeout, and its budget goes back', async () => {
    const large = largeBody('FLOOR');
    const started = Date.now();
    // A takes two thirds of the budget and trickles: B's body waits for them.
    const a = rawExchange(
      port(),
      [
        post(large.length),
        large.slice(0, 100),
        ...Array.from({ length: 50 }, () => [large.slice(0, 10), { waitMs: 100 }]).flat(),
      ],
      limits.requestTimeoutMs,
    );
    await new Promise((r) => setTimeout(r, 100));
    const b = rawExchange(port(), [post(large.length), large], limits.requestTimeoutMs);
    const [answerA, answerB] = await Promise.all([a, b]);
    expect(answerA.status).toBe(408);
    expect(JSON.parse(answerA.body)).toMatchObject({ status: 408, title: 'Request timeout.' });
    expect(answerA.closedAfterMs).toBeGreaterThanOrEqual(limits.bodyGraceMs);
    expect(answerA.closedAfterMs, 'cut at the floor, not the request timeout').toBeLessThan(limits.bodyGraceMs + 1_500);
    // B was read once A's bytes came back: its answer (metadata too large) long before the request timeout.
    expect(answerB.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(limits.requestTimeoutMs / 2);
  });

  it('a body that keeps to the floor, however long past its grace, is read and answered', async () => {
    const body = JSON.stringify(cardPayment('FLOOR-STEADY', { metadata: { pad: 'q'.repeat(3_000) } }));
    const chunks = body.match(/[\s\S]{1,400}/g)!;
    // 400 bytes every 100 ms: 4 000 bytes a second, twice the floor, for about a second.
    const answer = await rawExchange(
      port(),
      [post(Buffer.byteLength(body)), ...chunks.flatMap((chunk) => [chunk, { waitMs: 100 }])],
      limits.requestTimeoutMs,
    );
    expect(answer.status).toBe(201);
  });
});
