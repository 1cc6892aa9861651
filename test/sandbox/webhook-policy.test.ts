// The webhook destination policy in a running sandbox. At creation, where a request gives
// `urls.webhook` (payments, checkout sessions, payment links, payment intents), a refused URL is a
// 400 naming `urls.webhook`, in the operation's problem shape (conformingFetch holds it to the
// contract). At delivery, on what the URL's host resolves to (a resolver the test controls): a
// refused address dead-letters the delivery at once, its attempt's error naming why; an allowed
// one is reached at the address that was checked, resolved once, the URL's host in the Host header
// (a name that resolves elsewhere on a second look, DNS rebinding, changes nothing).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../sandbox/domain/types.js';
import type { ResolvedAddress } from '../../sandbox/jobs/webhook-post.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { eventually, Receiver } from '../support/receiver.js';
import {
  checkoutSession,
  merchantUrls,
  newMerchant,
  payOnHostedPage,
  sandboxPerSuite,
  type TestSandbox,
  transId,
} from '../support/sandbox.js';
import { runSandboxCommand, startSandboxProcess } from '../support/sandbox-process.js';

/** The four operations that take `urls.webhook`, each with a valid body around the URL. */
const CREATIONS: Array<{ path: string; body: (url: string) => Record<string, unknown> }> = [
  {
    path: '/payments',
    body: (webhook) => ({ transId: transId('POL-PAY'), amount: { value: 500, currency: 'EUR' }, urls: { webhook } }),
  },
  {
    path: '/payments/sessions',
    body: (webhook) => checkoutSession(transId('POL-SES'), { urls: merchantUrls(webhook) }),
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

/** A HOSTED payment paid on the hosted page: its notification goes to `webhook`; the delivery once it is no longer PENDING. */
async function paidAndSettled(sandbox: TestSandbox, webhook: string): Promise<WebhookDelivery> {
  const payId = await payOnHostedPage(sandbox.call, { webhook, transId: transId('POL-HOOK') });
  return eventually('the delivery to settle', async () => {
    const [d] = await sandbox.sandbox.store.webhooks.list({ payId });
    return d && d.status !== 'PENDING' ? d : undefined;
  });
}

describe('the destination policy with its defaults (private networks allowed)', () => {
  const receiver = new Receiver();
  /** What the test's DNS answers, by host name; every question it was asked. */
  const names = new Map<string, string[]>();
  const asked: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    const answers = names.get(host);
    if (!answers) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    // The first answer once, then the last one for ever: a rebinding name.
    const address = asked.filter((h) => h === host).length === 1 ? answers[0]! : answers.at(-1)!;
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  const sandbox = sandboxPerSuite(
    async () => {
      await receiver.start();
      return ':memory:';
    },
    { webhooks: { maxAttempts: 3, retryBaseMs: 50, timeoutMs: 2_000, pollMs: 25, resolve } },
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

  it('a name that resolves to a metadata address is dead-lettered at its first attempt, naming why', async () => {
    names.set('rebind.test', ['169.254.169.254']);
    const dead = await paidAndSettled(sandbox(), 'http://rebind.test/hooks');
    expect(dead.status).toBe('DEAD');
    expect(dead.attempts).toHaveLength(1);
    expect(dead.attempts[0]!.error).toBe(
      'destination refused: rebind.test resolves to 169.254.169.254, a cloud metadata address',
    );
    expect(dead.attempts[0]!.statusCode).toBeUndefined();
  });

  it('a name that resolves to the sandbox on its port is dead-lettered: the sandbox never posts to itself', async () => {
    names.set('self.test', ['127.0.0.1']);
    const dead = await paidAndSettled(sandbox(), `http://self.test:${port()}/api/v2/customers`);
    expect(dead.status).toBe('DEAD');
    expect(dead.attempts.map((a) => a.error)).toEqual([
      `destination refused: self.test resolves to 127.0.0.1, this sandbox's own address (port ${port()})`,
    ]);
  });

  it('reaches the address it checked, resolved once, with the URL’s host in the Host header (a rebinding name changes nothing)', async () => {
    // Checked: 127.0.0.1 (loopback on another port: allowed); asked again, the name would say 169.254.169.254.
    names.set('hooks.test', ['127.0.0.1', '169.254.169.254']);
    const receiverPort = (receiver.server.address() as AddressInfo).port;
    const before = asked.filter((h) => h === 'hooks.test').length;
    const delivered = await paidAndSettled(sandbox(), `http://hooks.test:${receiverPort}/hooks/rebind`);
    expect(delivered.status).toBe('DELIVERED');
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([200]);
    expect(asked.filter((h) => h === 'hooks.test').length - before).toBe(1);
    const [request] = receiver.on('/hooks/rebind');
    expect(request!.headers.host).toBe(`hooks.test:${receiverPort}`);
    expect(JSON.parse(request!.body).payId).toBe(delivered.payId);
  });

  it('a name DNS does not know is an ordinary failure, retried (the policy refuses nothing it has not seen)', async () => {
    const failed = await paidAndSettled(sandbox(), 'http://nowhere.test/hooks');
    expect(failed.status).toBe('DEAD');
    expect(failed.attempts.map((a) => a.error)).toEqual(['ENOTFOUND', 'ENOTFOUND', 'ENOTFOUND']);
  });
});

describe('the destination policy with private networks denied (an exposed sandbox)', () => {
  const receiver = new Receiver();
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    if (host === 'intranet.test') return [{ address: '10.1.2.3', family: 4 }];
    if (host === 'mixed.test')
      return [
        { address: '93.184.215.14', family: 4 },
        { address: 'fd12::7', family: 6 },
      ];
    throw Object.assign(new Error('no such host'), { code: 'ENOTFOUND' });
  };
  const sandbox = sandboxPerSuite(
    async () => {
      await receiver.start();
      return ':memory:';
    },
    { webhooks: { maxAttempts: 3, retryBaseMs: 50, timeoutMs: 2_000, pollMs: 25, resolve, privateNetworks: 'deny' } },
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

  it('refuses, at delivery, a name that resolves to a private address, or to any private address among others', async () => {
    const intranet = await paidAndSettled(sandbox(), 'http://intranet.test/hooks');
    expect(intranet.status).toBe('DEAD');
    expect(intranet.attempts.map((a) => a.error)).toEqual([
      'destination refused: intranet.test resolves to 10.1.2.3, a private network address: webhooks to private networks are refused here (--webhook-private-networks deny)',
    ]);
    const mixed = await paidAndSettled(sandbox(), 'http://mixed.test/hooks');
    expect(mixed.attempts.map((a) => a.error)).toEqual([expect.stringMatching(/mixed\.test resolves to fd12::7/)]);
  });
});

describe('npm run sandbox -- --webhook-private-networks', () => {
  let dir: string;
  let running: ServerProcess | undefined;
  const merchant = newMerchant('policy');
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-policy-'));
    writeFileSync(join(dir, 'merchants.json'), JSON.stringify([merchant]));
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deny: a loopback webhook URL is a 400; anything but allow or deny (option or SANDBOX_WEBHOOK_PRIVATE_NETWORKS) fails with one line', async () => {
    running = await startSandboxProcess({
      database: ':memory:',
      merchantsFile: join(dir, 'merchants.json'),
      extra: ['--webhook-private-networks', 'deny'],
    });
    const created = await fetch(`${running.baseUrl}/api/v2/payments`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        transId: transId('POL-CLI'),
        amount: { value: 100, currency: 'EUR' },
        urls: { webhook: 'http://127.0.0.1:3000/hooks' },
      }),
    });
    expect(created.status).toBe(400);
    expect(((await created.json()) as { errors: Record<string, string[]> }).errors['urls.webhook']![0]).toMatch(
      /loopback address/,
    );

    for (const [args, env] of [
      [['--webhook-private-networks', 'maybe'], {}],
      [[], { SANDBOX_WEBHOOK_PRIVATE_NETWORKS: 'sometimes' }],
    ] as const) {
      const { code, stderr } = await runSandboxCommand([...args, '--db', ':memory:'], 20_000, env);
      expect(code).toBe(1);
      expect(stderr).toMatch(
        /^sandbox: --webhook-private-networks \(or SANDBOX_WEBHOOK_PRIVATE_NETWORKS\) must be allow or deny, got (maybe|sometimes)\n$/,
      );
    }
  }, 60_000);
});
