// Connections per client address, capped: without a cap one client (a script gone wrong, a hostile
// one) can hold every connection slot of the server (maxConnections) and shut the rest of the team
// out. A connection over its address's cap is closed as it arrives, before anything is read from
// it, as the server's own cap closes those over maxConnections: nothing is parsed or answered, so a
// flood of them costs a file descriptor for a moment each. The first refusal of an address is
// logged; the next line about it comes only once it has held no connection at all, however many it
// was refused meanwhile.
import type { Server, Socket } from 'node:net';

/** The address a connection counts against: an IPv4 client seen as IPv6 (`::ffff:a.b.c.d`) is that IPv4 address. */
export const clientAddress = (socket: Socket): string => (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d)/i, '');

/** Closes the connections from an address that already has `max` open; 0 turns it off. */
export function capConnectionsPerAddress(server: Server, max: number, log?: (line: string) => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  /** Addresses refused since they last held no connection: each is logged once meanwhile. */
  const refused = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const count = open.get(address) ?? 0;
    if (count >= max) {
      if (!refused.has(address)) {
        refused.add(address);
        log?.(
          `${new Date().toISOString()} connections: ${address} holds ${max} connections (maxConnectionsPerAddress); further ones from it are closed as they arrive`,
        );
      }
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else {
        open.delete(address);
        refused.delete(address);
      }
    });
  });
}
