// HTTP/1.1 as a hostile client writes it, on a raw TCP socket: headers that fetch would refuse to
// send (a NUL, a malformed Content-Length), bodies cut short, bytes trickled one at a time, sockets
// held open. For the tests of the sandbox's limits.
import { connect, type Socket } from 'node:net';

/** A step of a raw exchange: bytes to write, or a pause. */
export type RawStep = string | Buffer | { waitMs: number } | { end: true };

export interface RawAnswer {
  /** Everything the server wrote, as latin1 text. */
  text: string;
  /** The status of the first response, or undefined when none came. */
  status: number | undefined;
  /** The first response's headers (lower-case names) and body. */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the connection to the server closing it (undefined: still open at the end). */
  closedAfterMs: number | undefined;
}

/** Parses the first HTTP/1.1 response of `text` (a Content-Length body). */
export function firstResponse(text: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: undefined, headers: {}, body: '' };
  const [line, ...fields] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? '0');
  const body = Buffer.from(text.slice(end + 4), 'latin1')
    .subarray(0, length)
    .toString('utf8');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(line ?? '')?.[1]) || undefined, headers, body };
}

/**
 * Connects to 127.0.0.1:`port`, runs `steps` (writes and pauses), and waits until the server closes
 * the connection or `timeoutMs` passes (then closes it itself); resolves with what it wrote.
 */
export function rawExchange(port: number, steps: RawStep[], timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    let closedAfterMs: number | undefined;
    let settled = false;
    const socket: Socket = connect(port, '127.0.0.1');
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedAfterMs, ...firstResponse(text) });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      closedAfterMs ??= Date.now() - started;
      finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset by the server is a close; anything else is the test's failure.
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('connect', async () => {
      for (const step of steps) {
        if (socket.destroyed) return;
        if (typeof step === 'string' || Buffer.isBuffer(step)) socket.write(step);
        else if ('waitMs' in step) await new Promise((r) => setTimeout(r, step.waitMs));
        else socket.end();
      }
    });
  });
}

/** A request's head, `\r\n`-joined, ending in the blank line. */
export const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
