// The webhook destination policy in a running sandbox. At creation, where a request gives
// `urls.webhook` (payments, checkout sessions, payment links, payment intents), a refused URL is a
// 400 naming `urls.webhook`, in the operation's problem shape (conformingFetch holds it to the
// contract).
import { afterAll, describe, expect, it } from 'vitest';
import { Receiver } from '../support/receiver.js';
import { sandboxPerSuite, type TestSandbox } from '../support/sandbox.js';

let seq = 0;
const transId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** The four operations that take `urls.webhook`, each with a valid body around the URL. */
const CREATIONS: Array<{ path: string; body: (url: string) => Record<string, unknown> }> = [
  {
    path: '/payments',
    body: (webhook) => ({ transId: transId('POL-PAY'), amount: { value: 500, currency: 'EUR' }, urls: { webhook } }),
  },
  {
    path: '/payments/sessions',
    body: (webhook) => ({
      transId: transId('POL-SES'),
      amount: { value: 500, currency: 'EUR' },
      urls: { return: 'https://shop.example/r', cancel: 'https://shop.example/c', webhook },
    }),
  },
  {
    path: '/payments/links',
    body: (webhook) => ({ transId: transId('POL-LNK'), amount: { value: 500, currency: 'EUR' }, urls: { webhook } }),
  },
  {
    path: '/payment-intents',
    body: (webhook) => ({ transId: transId('POL-INT'), amount: { value: 500, currency: 'EUR' }, urls: { webhook } }),
  },
];

async function refusedAtCreation(sandbox: TestSandbox, url: string, why: RegExp) {
  for (const { path, body } of CREATIONS) {
    const r = await sandbox.call('POST', path, { body: body(url) });
    expect(r.status, `${path} with ${url}: ${JSON.stringify(r.body)}`).toBe(400);
    expect(Object.keys(r.body.errors)).toEqual(['urls.webhook']);
    expect(r.body.errors['urls.webhook'][0]).toMatch(/^is refused as a webhook destination: /);
    expect(r.body.errors['urls.webhook'][0]).toMatch(why);
  }
}

async function acceptedAtCreation(sandbox: TestSandbox, url: string) {
  for (const { path, body } of CREATIONS) {
    const r = await sandbox.call('POST', path, { body: body(url) });
    expect(r.status, `${path} with ${url}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  }
}

describe('the destination policy with its defaults (private networks allowed)', () => {
  const receiver = new Receiver();
  const sandbox = sandboxPerSuite(
    async () => {
      await receiver.start();
      return ':memory:';
    },
    { webhooks: { pollMs: 25 } },
  );
  afterAll(() => receiver.stop());
  const port = () => Number(new URL(sandbox().url).port);

  it('refuses metadata services, link-local and multicast addresses, other schemes, credentials and the sandbox itself: 400 naming urls.webhook', async () => {
    const s = sandbox();
    await refusedAtCreation(
      s,
      'http://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is a cloud metadata address/,
    );
    await refusedAtCreation(s, 'http://[::ffff:169.254.169.254]/', /cloud metadata address/);
    await refusedAtCreation(s, 'http://metadata.google.internal/computeMetadata/v1/', /cloud metadata service/);
    await refusedAtCreation(s, 'http://169.254.7.7/hooks', /link-local/);
    await refusedAtCreation(s, 'http://[fe80::1]/hooks', /link-local/);
    await refusedAtCreation(s, 'http://239.1.2.3/hooks', /multicast/);
    await refusedAtCreation(s, 'ftp://files.example/hooks', /http or https/);
    await refusedAtCreation(s, 'https://user:pw@shop.example/hooks', /credentials/);
    await refusedAtCreation(s, `${s.url}/api/v2/customers`, /this sandbox's own address/);
    await refusedAtCreation(s, `http://localhost:${port()}/hooks`, /this sandbox's own address/);
    await refusedAtCreation(s, `http://127.0.0.2:${port()}/hooks`, /this sandbox's own address/);
    await refusedAtCreation(s, `http://[::1]:${port()}/hooks`, /this sandbox's own address/);
    await refusedAtCreation(s, `http://0.0.0.0:${port()}/hooks`, /this sandbox's own address/);
  });

  it('accepts public hosts, private networks and loopback on other ports', async () => {
    const s = sandbox();
    await acceptedAtCreation(s, 'https://shop.example/hooks');
    await acceptedAtCreation(s, `${receiver.url}/hooks`);
    await acceptedAtCreation(s, 'http://localhost:3000/webhooks');
    await acceptedAtCreation(s, 'http://10.20.30.40/hooks');
  });
});

describe('the destination policy with private networks denied (an exposed sandbox)', () => {
  const receiver = new Receiver();
  const sandbox = sandboxPerSuite(
    async () => {
      await receiver.start();
      return ':memory:';
    },
    { webhooks: { pollMs: 25, privateNetworks: 'deny' } },
  );
  afterAll(() => receiver.stop());

  it('refuses loopback, localhost and private addresses at creation, and still accepts public hosts', async () => {
    const s = sandbox();
    await refusedAtCreation(
      s,
      `${receiver.url}/hooks`,
      /127\.0\.0\.1 is a loopback address: .*--webhook-private-networks deny/,
    );
    await refusedAtCreation(s, 'http://localhost:3000/webhooks', /loopback/);
    await refusedAtCreation(s, 'http://192.168.1.20:8080/hooks', /private network address/);
    await refusedAtCreation(s, 'http://[fd12::1]/hooks', /private network address/);
    await acceptedAtCreation(s, 'https://shop.example/hooks');
  });
});
