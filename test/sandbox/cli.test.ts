// The sandbox's CLI subcommands (seed | reset | clock | deliveries | trigger), run in this process as
// sandbox/main.ts dispatches them, against a sandbox on a free port: every trigger event ends in its
// state, read back through the merchant API; deliveries are listed and resent; errors are one line
// and exit 1. And `npm run sandbox` itself, as a process (detached, its process group killed when
// done): it prints the admin key and writes .sandbox/cli.json (0600) so that subcommands, spawned in
// its directory, need no flags; a bad --public-url stops it with one line.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, FIXTURES } from '../../sandbox/cli/fixtures.js';
import { killGroup } from '../../tooling/process/groups.js';
import { SANDBOX_ENTRY, sandboxNodeOptions } from '../../tooling/process/sandbox-command.js';
import { freePort } from '../../tooling/process/server-process.js';
import { eventually, Receiver } from '../support/receiver.js';
import { checkoutSession, sandboxContract, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type CommandResult, runCliInProcess } from '../support/sandbox-process.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run sandbox -- <args>` as its script does, in its own process group (killed when it ends or after `timeoutMs`). */
function run(args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  for (const name of ['SANDBOX_ADMIN_KEY', 'SANDBOX_API_KEY', 'SANDBOX_CLI_CONFIG'])
    if (!options.env?.[name]) delete env[name];
  return new Promise((done) => {
    const child = spawn(process.execPath, [...sandboxNodeOptions(), SANDBOX_ENTRY, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), options.timeoutMs ?? 60_000);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(child.pid!, 'SIGKILL');
      done({ code, stdout, stderr });
    });
  });
}

/**
 * docs/sandbox.md's table of trigger events: each event and the state it ends in (its last column:
 * `FAILED`, `plan payment CAPTURED`, or `no payment; …`).
 */
async function documentedEvents(): Promise<Record<string, string>> {
  const page = await readFile(join(ROOT, 'docs', 'sandbox.md'), 'utf8');
  const rows = [...page.matchAll(/^\| `([a-z]+\.[a-z_]+)` \|[^|\n]*\| ([^|\n]+) \|$/gm)];
  return Object.fromEntries(
    rows.map(([, event, state]) => [
      event!,
      state!.startsWith('no payment') ? 'NO_PAYMENT' : state!.split(' ').at(-1)!,
    ]),
  );
}

/** Exit 1 with exactly one line on stderr, matching `pattern`. */
function failsWith(result: Pick<CommandResult, 'code' | 'stderr'>, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('sandbox CLI against a running sandbox', () => {
  let sandbox: TestSandbox;
  let scratch: string;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    scratch = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
    // One attempt: a failed notification is dead at once, ready to be resent.
    sandbox = await startTestSandbox({ webhooks: { maxAttempts: 1, retryBaseMs: 50, timeoutMs: 2_000, pollMs: 25 } });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    await receiver.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const flags = () => ['--url', sandbox.url, '--admin-key', sandbox.sandbox.adminKey];
  const cli = (...args: string[]) => runCliInProcess([...args, ...flags()]);
  const merchantFlags = () => ['--merchant', sandbox.merchant.merchantId, '--api-key', sandbox.merchant.apiKey];

  it('trigger: every event ends in its named state, read back through the merchant API', async () => {
    // Three at a time, except those that advance the merchant's clock: they run alone afterwards,
    // since they may expire another's open checkout session.
    const trigger = (event: string) =>
      cli('trigger', event, ...merchantFlags(), '--webhook-url', `${receiver.url}/trigger`, '--json');
    const events = EVENTS.filter((e) => !FIXTURES[e]!.advancesClock);
    const results: Array<{ event: string; result: CommandResult }> = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        for (let event = events.shift(); event !== undefined; event = events.shift())
          results.push({ event, result: await trigger(event) });
      }),
    );
    for (const event of EVENTS.filter((e) => FIXTURES[e]!.advancesClock))
      results.push({ event, result: await trigger(event) });
    expect(results.map((r) => r.event).sort()).toEqual([...EVENTS].sort());
    for (const { event, result } of results) {
      expect(result.code, `${event}: ${result.stderr}`).toBe(0);
      const out = JSON.parse(result.stdout) as {
        state: string;
        payId?: string;
        transId: string;
        paymentPlanId?: string;
      };
      expect(out.state, event).toBe(FIXTURES[event]!.expected);
      if (event === 'checkout.cancelled') {
        expect((await sandbox.call('GET', `/payments/getByTransId/${out.transId}`)).status).toBe(404);
        continue;
      }
      const details = await sandbox.call('GET', `/payments/getByPayId/${out.payId}`);
      expect(details.body.state, event).toBe(FIXTURES[event]!.expected);
      if (event === 'plan.billed')
        expect((await sandbox.call('GET', `/payment-plans/${out.paymentPlanId}`)).body.lastBillingDate).toBeDefined();
    }
    // Each event ends in the state docs/sandbox.md's table of events names for it.
    expect(Object.fromEntries(EVENTS.map((e) => [e, FIXTURES[e]!.expected]))).toEqual(await documentedEvents());
    // The hosted page's results were notified at the webhook URL.
    await eventually('the checkout notifications', () => (receiver.on('/trigger').length >= 2 ? true : undefined));
  }, 180_000);

  it('trigger: human output names the payment, its state and the calls made', async () => {
    const r = await cli('trigger', 'payment.authorized', ...merchantFlags());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^payment\.authorized: payment \S+ \(transId trigger-payment-authorized-[0-9a-f]+\) is AUTHORIZED\n {2}POST \/payments → 201/,
    );
  }, 60_000);

  it("clock shows the first merchant's clock; clock advance moves it and says what ran", async () => {
    const shown = await cli('clock', '--merchant', sandbox.other.merchantId, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      scope: { merchantId: sandbox.other.merchantId, environment: 'test' },
      offsetMs: 0,
    });
    const advanced = await cli(
      'clock',
      'advance',
      '--hours',
      '2',
      '--merchant',
      sandbox.other.merchantId,
      '--environment',
      'live',
    );
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.stdout).toMatch(new RegExp(`^${sandbox.other.merchantId} \\(live\\): \\S+ → \\S+ \\(2h;`));
    expect(advanced.stdout).toContain('nothing fell due');
    const offset = (await sandbox.sandbox.clocks.get({ merchantId: sandbox.other.merchantId, environment: 'live' }))
      .offsetMs;
    expect(offset).toBeGreaterThanOrEqual(2 * 3_600_000);
    failsWith(
      await cli('clock', 'advance', '--hours', '1', '--days', '1'),
      /^sandbox clock: clock advance takes exactly one of --seconds, --hours, --days or --to$/,
    );
  }, 60_000);

  it('deliveries lists with attempts; `deliveries resend <id> --url … --admin-key …` sends a dead letter again', async () => {
    const transId = `CLI-HOOK-${Date.now()}`;
    receiver.answer(`/hooks/${transId}`, [500]);
    const created = await sandbox.call('POST', '/payments', {
      body: {
        transId,
        amount: { value: 700, currency: 'USD' },
        urls: { return: 'https://shop.example/return', webhook: `${receiver.url}/hooks/${transId}` },
      },
    });
    await fetch(created.body._links.redirect.href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=CARD&decision=pay',
      redirect: 'manual',
    });
    const payId = created.body.payId as string;
    const [dead] = await eventually('the dead letter', async () => {
      const list = await sandbox.sandbox.store.webhooks.list({ payId });
      return list[0]?.status === 'DEAD' ? list : undefined;
    });

    const json = await cli('deliveries', '--pay-id', payId, '--status', 'DEAD', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).data).toEqual([
      expect.objectContaining({
        id: dead!.id,
        status: 'DEAD',
        attempts: [expect.objectContaining({ statusCode: 500 })],
      }),
    ]);
    const table = await cli('deliveries', '--pay-id', payId);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +PAY ID +MERCHANT +STATUS +ATTEMPTS +NEXT ATTEMPT +URL$/);
    expect(table.stdout).toMatch(
      new RegExp(
        `${dead!.id} +${payId} +${sandbox.merchant.merchantId}/test +DEAD +1 +- +${receiver.url}/hooks/${transId}`,
      ),
    );
    expect(table.stdout).toMatch(/\n {4}\S+Z {2}500 {2}\d+ ms/);

    // The interface the end-to-end tests rely on, in this order.
    const resent = await runCliInProcess([
      'deliveries',
      'resend',
      dead!.id,
      '--url',
      sandbox.url,
      '--admin-key',
      sandbox.sandbox.adminKey,
    ]);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout.trim()).toBe(`resent ${dead!.id} to ${receiver.url}/hooks/${transId}: 200 → DELIVERED`);
    expect(receiver.on(`/hooks/${transId}`)).toHaveLength(2);
    expect((await sandbox.sandbox.store.webhooks.find(dead!.id))?.status).toBe('DELIVERED');
    failsWith(
      await cli('deliveries', 'resend', 'no-such-delivery'),
      /^sandbox deliveries: 404 Not found\. No webhook delivery no-such-delivery\.$/,
    );
  }, 60_000);

  it("seed gives a merchant the contract's examples and lists them; a second time is a conflict; reset --examples gives them again", async () => {
    const merchantId = `cli_examples_${Date.now().toString(36)}`;
    await sandbox.sandbox.store.merchants.upsert({
      merchantId,
      apiKeyHash: '',
      sealedWebhookSecrets: '',
      createdAt: new Date().toISOString(),
    });
    const r = await cli('seed', '--merchant', merchantId);
    expect(r.code, r.stderr).toBe(0);
    const [title, header] = r.stdout.split('\n');
    expect(title).toBe(`${merchantId} (test): the contract's examples, under their own ids`);
    expect(header).toMatch(/^ {2}KIND +ID +TRANSID +STATE$/);
    const shown = sandboxContract().examples.response<{ payId: string; transId: string; state: string }>(
      'getPaymentByPayId',
      200,
    );
    expect(r.stdout).toMatch(new RegExp(`\\n {2}payment +${shown.payId} +${shown.transId} +${shown.state}\\n`));
    failsWith(
      await cli('seed', '--merchant', merchantId),
      /^sandbox seed: 409 The scope holds data the contract's examples collide with\. .*reset the scope first/,
    );
    const reset = await cli('reset', '--merchant', merchantId, '--examples');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout.trim()).toMatch(
      new RegExp(
        `^reset ${merchantId}, test and live: deleted .*; the contract's examples given to ${merchantId} \\(test\\)$`,
      ),
    );
    const empty = await cli('reset', '--merchant', merchantId, '--environment', 'test');
    expect(empty.stdout.trim()).toMatch(new RegExp(`^reset ${merchantId}, test: deleted [^;]*$`));
    const live = await cli('seed', '--merchant', merchantId, '--environment', 'live', '--json');
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject({ merchantId, environment: 'live' });
  }, 60_000);

  it("reset deletes one scope's data and says how much", async () => {
    const created = await sandbox.call('POST', '/payments', {
      who: sandbox.other,
      body: { transId: `CLI-RESET-${Date.now()}`, amount: { value: 100, currency: 'EUR' } },
    });
    expect(created.status).toBe(201);
    const r = await cli('reset', '--merchant', sandbox.other.merchantId, '--environment', 'test');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^reset ${sandbox.other.merchantId}, test: deleted \\d+ payments, `));
    expect(
      (await sandbox.call('GET', `/payments/getByPayId/${created.body.payId}`, { who: sandbox.other })).status,
    ).toBe(404);
  }, 60_000);

  it('fails with one line and exit 1: a wrong admin key, no sandbox, an unknown event, a wrong API key, a bad option', async () => {
    failsWith(
      await runCliInProcess(['deliveries', '--url', sandbox.url, '--admin-key', 'wrong']),
      /^sandbox deliveries: the sandbox at http:\/\/127\.0\.0\.1:\d+ refused the admin key \(401\)/,
    );
    const closed = `http://127.0.0.1:${await freePort()}`;
    failsWith(
      await runCliInProcess(['clock', '--url', closed, '--admin-key', 'k']),
      new RegExp(`^sandbox clock: cannot reach the sandbox at ${closed} \\(ECONNREFUSED\\)`),
    );
    failsWith(
      await cli('trigger', 'payment.exploded'),
      new RegExp(
        `^sandbox trigger: unknown event "payment.exploded"; known events: ${EVENTS.join(', ').replace(/\./g, '\\.')}$`,
      ),
    );
    failsWith(
      await cli('trigger', 'payment.captured', '--merchant', sandbox.merchant.merchantId, '--api-key', 'sk_wrong'),
      /^sandbox trigger: the sandbox refused merchant \S+'s API key \(401\)/,
    );
    failsWith(
      await cli('trigger', 'payment.captured', '--merchant', sandbox.merchant.merchantId),
      /^sandbox trigger: no API key for merchant \S+: pass --api-key/,
    );
    failsWith(
      await cli('deliveries', '--status', 'LOST'),
      /^sandbox deliveries: --status must be PENDING, DELIVERED or DEAD, got LOST$/,
    );
    failsWith(await cli('reset', '--seconds', '5'), /^sandbox reset: --seconds is not an option of `reset`$/);
    failsWith(await runCliInProcess(['clock']), /^sandbox clock: no admin key: pass --admin-key or SANDBOX_ADMIN_KEY/);
    const badPublicUrls = ['ftp://sandbox.team.example', 'https://sandbox.team.example/api', 'not a url'];
    for (const result of await Promise.all(
      badPublicUrls.map((publicUrl) => run(['--db', ':memory:', '--public-url', publicUrl], { cwd: scratch })),
    ))
      failsWith(
        result,
        /^sandbox: --public-url \(or SANDBOX_PUBLIC_URL\) must be an http or https origin such as https:\/\/sandbox\.team\.example, got /,
      );
  }, 120_000);
});

describe('npm run sandbox and .sandbox/cli.json', () => {
  const PUBLIC_URL = 'https://sandbox.team.example:8443';
  it('prints that the admin key was given (never the key), writes .sandbox/cli.json (0600) for flag-less subcommands, removes it on SIGTERM; links go to --public-url', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'sandbox-serve-'));
    const port = await freePort();
    const adminKey = 'sbx_admin_fixed_for_this_test';
    // the default file, in a temp working directory: .sandbox/cli.json there
    const env: NodeJS.ProcessEnv = { ...process.env, SANDBOX_ADMIN_KEY: adminKey };
    delete env.SANDBOX_CLI_CONFIG;
    const child = spawn(
      process.execPath,
      [
        ...sandboxNodeOptions(),
        SANDBOX_ENTRY,
        '--port',
        String(port),
        '--db',
        ':memory:',
        '--quiet',
        '--public-url',
        PUBLIC_URL,
      ],
      {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      await eventually('the sandbox to start', () => (stdout.includes('Ctrl-C stops it.') ? true : undefined), 60_000);
      expect(stdout).toContain(`admin key    (given)   (in ${join('.sandbox', 'cli.json')})`);
      expect(stdout).not.toContain(adminKey);
      const file = join(cwd, '.sandbox', 'cli.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const config = JSON.parse(await readFile(file, 'utf8'));
      expect(config).toEqual({
        url: `http://127.0.0.1:${port}`,
        adminKey,
        merchants: [
          {
            merchantId: 'demo_merchant',
            apiKey: expect.stringMatching(/^sk_test_/),
            webhookSecret: expect.stringMatching(/^whsec_/),
          },
        ],
      });

      expect(stdout).toContain(`public URL   ${PUBLIC_URL}`);
      const { apiKey } = config.merchants[0];
      const session = await fetch(`http://127.0.0.1:${port}/api/v2/payments/sessions`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`demo_merchant:${apiKey}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(checkoutSession('PUBLIC-URL-1')),
      });
      expect(session.status).toBe(202);
      expect(((await session.json()) as { _links: { redirect: { href: string } } })._links.redirect.href).toMatch(
        new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/hosted/sessions/test/demo_merchant/`),
      );

      const clock = await run(['clock'], { cwd });
      expect(clock.code, clock.stderr).toBe(0);
      expect(clock.stdout).toMatch(/^demo_merchant \(test\): \S+, the wall clock$/m);
      const trigger = await run(['trigger', 'payment.captured', '--json'], { cwd });
      expect(trigger.code, trigger.stderr).toBe(0);
      expect(JSON.parse(trigger.stdout)).toMatchObject({ event: 'payment.captured', state: 'CAPTURED' });
    } finally {
      killGroup(child.pid!, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      killGroup(child.pid!, 'SIGKILL');
    }
    await expect(stat(join(cwd, '.sandbox', 'cli.json'))).rejects.toThrow(/ENOENT/);
    await rm(cwd, { recursive: true, force: true });
  }, 120_000);
});
