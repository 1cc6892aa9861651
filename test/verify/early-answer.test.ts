// A server may refuse a body from its announced length alone (a 413) and close the connection as
// soon as it answered, before the client has sent that body: a client still sending then loses the
// answer to the reset. payment-verify sends a large body's headers first and waits a moment for
// such an answer; this server answers and destroys the socket at once, every time, and counts the
// refused body's bytes that reached it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { http1Answer, largeBodyAnswer } from '../../packages/verify/src/client.js';

let server: Server;
let origin: string;
let url: string;
let bodies = 0;
/** Bytes of refused bodies that reached the server before it closed. */
let refusedBytes = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (Number(req.headers['content-length']) > 1000) {
      req.on('data', (chunk: Buffer) => (refusedBytes += chunk.length));
      const refuse = () => {
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"status":413}', () => req.socket.destroy());
      };
      // a slow server: its refusal comes after the client's first wait
      if (req.url === '/slow') setTimeout(refuse, 1500);
      else refuse();
      return;
    }
    req.on('data', () => {});
    req.on('end', () => {
      bodies++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${origin}/payments`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('keeps the 413 of a server that answers from the announced length and closes at once', async () => {
  const body = 'x'.repeat(4 * 1024 * 1024);
  for (let i = 0; i < 5; i++) {
    const answer = await http1Answer(url, 'POST', { 'content-type': 'application/json' }, body, 5000);
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.text)).toEqual({ status: 413 });
  }
  // the answer came before the body was sent: nothing of it was on the wire to be reset
  expect(refusedBytes).toBe(0);
});

it('sends the body when no early answer comes, and reads the answer to it', async () => {
  const before = bodies;
  const answer = await http1Answer(url, 'POST', { 'content-type': 'application/json' }, 'x'.repeat(500), 5000);
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.text)).toEqual({ ok: true });
  expect(bodies).toBe(before + 1);
});

it('reads a refusal that comes only after the first wait, while the body is on its way', async () => {
  const answer = await largeBodyAnswer(
    `${origin}/slow`,
    'POST',
    { 'content-type': 'application/json' },
    'x'.repeat(8 * 1024 * 1024),
    20_000,
  );
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.text)).toEqual({ status: 413 });
}, 30_000);
