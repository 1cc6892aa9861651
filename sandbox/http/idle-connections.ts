// Connections that neither send nor take anything for a while are closed: a client that stops
// reading its response holds a connection slot that no request or keep-alive timeout frees. A sweep
// over the open connections, rather than each socket's own timeout (socket.setTimeout, fastify's
// `connectionTimeout`): that re-arms a timer on every read and write, which cost a polled GET about
// a fifth of its throughput.
import type { Server, Socket } from 'node:net';

interface Traffic {
  bytes: number;
  since: number;
}

/** How often the sweep looks, for an idle limit of `idleMs`: a closed connection is at most a quarter late. */
export const sweepIntervalMs = (idleMs: number) => Math.max(100, Math.min(idleMs / 4, 5_000));

/**
 * Closes each connection of `server` that has had no traffic either way (bytes read, or bytes
 * written out of its buffer) for `idleMs`; 0 turns it off. Stops with the server.
 */
export function closeIdleConnections(server: Server, idleMs: number): void {
  if (idleMs <= 0) return;
  const open = new Map<Socket, Traffic>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { bytes: 0, since: Date.now() });
    socket.once('close', () => open.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [socket, traffic] of open) {
      // bytesWritten counts what is still buffered: a reader that stopped moves it no further.
      const bytes = socket.bytesRead + socket.bytesWritten - socket.writableLength;
      if (bytes !== traffic.bytes) {
        traffic.bytes = bytes;
        traffic.since = now;
      } else if (now - traffic.since >= idleMs) socket.destroy();
    }
  }, sweepIntervalMs(idleMs));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
