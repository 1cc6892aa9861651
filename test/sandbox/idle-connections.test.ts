// The idle-connection sweep on a bare TCP server: silence either way closes a connection; traffic,
// however slow, keeps it; a client that stops reading what it is sent counts as silent.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeIdleConnections, sweepIntervalMs } from '../../sandbox/http/idle-connections.js';

const IDLE_MS = 500;
const LATE_MS = sweepIntervalMs(IDLE_MS) + 300;

let server: Server | undefined;
const clients: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  server = createServer(onConnection);
  closeIdleConnections(server, IDLE_MS);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/** How long after connecting the server closed the connection (or `waitMs` if it did not). */
function closedAfter(port: number, waitMs: number, use: (client: Socket) => void = () => {}): Promise<number> {
  const started = Date.now();
  const client = connect(port, '127.0.0.1');
  clients.push(client);
  use(client);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(waitMs), waitMs);
    client.on('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
    client.on('error', () => {});
  });
}

describe('closeIdleConnections', () => {
  it('closes a connection on which nothing moves', async () => {
    const port = await listen(() => {});
    const after = await closedAfter(port, 5_000);
    expect(after).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(after).toBeLessThan(IDLE_MS + LATE_MS);
  });

  it('keeps a connection whose client keeps sending, however slowly', async () => {
    const port = await listen((socket) => socket.resume());
    const after = await closedAfter(port, 3 * IDLE_MS, (client) => {
      const drip = setInterval(() => client.write('x'), IDLE_MS / 4);
      client.on('close', () => clearInterval(drip));
      setTimeout(() => clearInterval(drip), 3 * IDLE_MS);
    });
    expect(after).toBe(3 * IDLE_MS);
  });

  it('closes a connection whose client stopped reading what it is sent', async () => {
    // Seen from the server: the paused client would not notice the close until it read again.
    let serverClosedAfter: Promise<number> = new Promise(() => {});
    const port = await listen((socket) => {
      const started = Date.now();
      serverClosedAfter = new Promise((resolve) => socket.on('close', () => resolve(Date.now() - started)));
      socket.on('error', () => {});
      socket.write(Buffer.alloc(64 * 1024 * 1024));
    });
    const client = connect(port, '127.0.0.1');
    clients.push(client);
    client.pause();
    await new Promise((r) => client.once('connect', r));
    await new Promise((r) => setTimeout(r, 50));
    const after = await Promise.race([
      serverClosedAfter,
      new Promise<number>((r) => setTimeout(() => r(10_000), 10_000)),
    ]);
    expect(after).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(after).toBeLessThan(IDLE_MS + LATE_MS);
  });

  it('does nothing when the limit is 0', async () => {
    server = createServer(() => {});
    closeIdleConnections(server, 0);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const after = await closedAfter((server.address() as { port: number }).port, 3 * IDLE_MS);
    expect(after).toBe(3 * IDLE_MS);
  });
});
