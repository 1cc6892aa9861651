// The sandbox as processes, the way `npm run sandbox` runs it: two processes on one PostgreSQL
// database agree on an Idempotency-Key; `kill -9` in the middle of a load of creates loses no payment
// whose 2xx reached the client and leaves none half-written (SQLite file and PostgreSQL); the command
// fails with one line on bad options or an unreachable database; a webhook notification survives
// kill -9 during its delivery, and two processes on one PostgreSQL deliver each notification once.
// Processes run in their own process groups and are always stopped by the test
// (tooling/process/server-process.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../sandbox/store/index.js';
import { killGroup } from '../../tooling/process/groups.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { postgresDatabase } from '../support/postgres.js';
import { callSandbox, checkConformance, newMerchant, payOnHostedPage } from '../support/sandbox.js';
import { holdingReceiver, runSandboxCommand, startSandboxProcess } from '../support/sandbox-process.js';

const merchant = newMerchant('proc');
const basic = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
let dir: string;
let merchantsFile: string;
const running: ServerProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-proc-'));
  merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify([merchant]));
}, 60_000);
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function sandboxProcess(database: string, extra: string[] = []): Promise<ServerProcess> {
  const process = await startSandboxProcess({ database, merchantsFile, extra });
  running.push(process);
  return process;
}

const create = async (baseUrl: string, transId: string, key?: string) => {
  const response = await fetch(`${baseUrl}/api/v2/payments`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({
      transId,
      amount: { value: 1234, currency: 'EUR' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    }),
  });
  await checkConformance('createPayment', response);
  return {
    status: response.status,
    body: (await response.json()) as { payId?: string },
    replayed: response.headers.get('idempotent-replayed'),
  };
};

describe('two sandbox processes on one PostgreSQL database', () => {
  it('50 concurrent requests with one Idempotency-Key, split across both, create exactly one payment', async () => {
    const database = await postgresDatabase();
    const [a, b] = await Promise.all([sandboxProcess(database), sandboxProcess(database)]);
    const key = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create(i % 2 === 0 ? a.baseUrl : b.baseUrl, 'RACE-1', key)),
    );
    const statuses = answers.map((x) => x.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).toBe(true);
    const payIds = new Set(answers.filter((x) => x.status === 201).map((x) => x.body.payId));
    expect(payIds.size).toBe(1);
    expect(answers.filter((x) => x.status === 201 && x.replayed === null)).toHaveLength(1);
    // a retry after the dust settled replays on either process
    for (const p of [a, b]) expect((await create(p.baseUrl, 'RACE-1', key)).replayed).toBe('true');
    // and the database holds one payment for the transId
    const store = await openStore({ database });
    try {
      const scope = { merchantId: merchant.merchantId, environment: 'test' as const };
      expect(
        await store.transaction((tx) =>
          tx.payments.findDuplicates(scope, {
            amountValue: 1234,
            currency: 'EUR',
            transId: 'RACE-1',
            since: '2000-01-01T00:00:00.000Z',
          }),
        ),
      ).toHaveLength(1);
    } finally {
      await store.close();
    }
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe.each(['sqlite', 'postgres'] as const)('kill -9 during a load of creates (%s)', (kind) => {
  it('loses no acknowledged payment and leaves none half-written', async () => {
    const database = kind === 'sqlite' ? join(dir, `kill-${Date.now()}.db`) : await postgresDatabase();
    const victim = await sandboxProcess(database);
    // One card stored on file: its number must be nowhere in the database files afterwards.
    const stored = await fetch(`${victim.baseUrl}/api/v2/payments`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({
        transId: 'KILL-CARD',
        amount: { value: 990, currency: 'EUR' },
        customerInfo: { merchantCustomerId: 'c-1' },
        credentialOnFile: { type: 'UNSCHEDULED', initialPayment: true, unscheduled: { subType: 'MIT' } },
        paymentMethods: {
          integrationType: 'DIRECT',
          type: 'CARD',
          card: { cardNumber: '4111111111111111', expiryDate: '202912' },
        },
      }),
    });
    expect(stored.status).toBe(201);
    const acknowledged: string[] = [];
    let sent = 0;
    let stop = false;
    const failures: unknown[] = [];
    const worker = async (w: number) => {
      while (!stop) {
        const transId = `KILL-${w}-${sent++}`;
        try {
          const answer = await create(victim.baseUrl, transId, `k-${transId}`);
          if (answer.status === 201) acknowledged.push(answer.body.payId!);
          else failures.push(answer);
        } catch (err) {
          if (!stop) failures.push(err); // before the kill, nothing may fail
          return;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    while (acknowledged.length < 150 && failures.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(failures).toEqual([]);
    stop = true;
    process.kill(-victim.pid, 'SIGKILL');
    await load;
    expect((await victim.exited).signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const store = await openStore({ database });
    try {
      const scope = { merchantId: merchant.merchantId, environment: 'test' as const };
      const documents = new Map<string, string | undefined>();
      for (const payId of acknowledged) documents.set(payId, await store.paymentDocument(scope, payId));
      for (const [payId, document] of documents) expect(document, payId).toBeDefined();
      // Not half-written: every payment has its operations, and its document agrees with them.
      // (No store call inside the transaction: SQLite has one connection, which the transaction holds.)
      await store.transaction(async (tx) => {
        for (const payId of acknowledged) {
          const payment = await tx.payments.get(scope, payId);
          const operations = await tx.operations.listByPayment(scope, payId);
          expect(payment?.state).toBe('AUTHORIZED');
          expect(operations.map((o) => o.xId)).toEqual(
            JSON.parse(documents.get(payId)!).operations.map((o: { xId: string }) => o.xId),
          );
        }
      });
    } finally {
      await store.close();
    }
    // The sandbox starts again on the same data and serves it.
    const again = await sandboxProcess(database);
    const first = await fetch(`${again.baseUrl}/api/v2/payments/getByPayId/${acknowledged[0]}`, {
      headers: { authorization: basic },
    });
    expect(first.status).toBe(200);
    await again.stop();
    if (kind === 'sqlite') {
      const files = [database, `${database}-wal`].filter((f) => existsSync(f));
      expect(
        files.some((f) => readFileSync(f).includes(Buffer.from('411111111111'))),
        'the card number in the database',
      ).toBe(false);
      expect(
        files.some((f) => readFileSync(f).includes(Buffer.from('KILL-CARD'))),
        'the scan sees the data',
      ).toBe(true);
    }
  });
});

describe('npm run sandbox fails with one line', () => {
  it.each([
    [['--port', 'eighty'], /^sandbox: --port must be a port number, got eighty\n$/],
    [['--colour'], /^sandbox: Unknown option '--colour'.*--help lists the options\)\n$/],
    [['--merchants', '/nonexistent.json'], /^sandbox: cannot read --merchants \/nonexistent\.json: ENOENT/],
    [
      ['--db', 'postgres://nobody:secret@127.0.0.1:1/none'],
      /^sandbox: cannot connect to PostgreSQL at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: /,
    ],
    [['--db', '/dev/null/x.db'], /^sandbox: cannot open the SQLite database at \/dev\/null\/x\.db: /],
  ])('%j', async (args, message) => {
    const { code, stderr } = await runSandboxCommand(args);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

/** Creates a HOSTED payment and pays it on the hosted page: its notification goes to `webhook`. */
const payOnProcessPage = (baseUrl: string, id: string, webhook: string) =>
  payOnHostedPage(
    (method: string, path: string, opts?: Parameters<typeof callSandbox>[4]) =>
      callSandbox(baseUrl, basic, method, path, opts),
    {
      transId: id,
      webhook,
      amount: { value: 500, currency: 'EUR' },
    },
  );

/** Polls `check` until it holds; on a timeout the error ends with what the sandbox processes printed. */
async function until(what: string, check: () => boolean, processes: ServerProcess[], timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}; the sandbox printed:\n${processes.map((p) => p.output().slice(-2000)).join('\n---\n')}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook delivery across processes', () => {
  it('kill -9 while a notification is being delivered: after a restart it arrives', async () => {
    const receiver = await holdingReceiver({ hold: 1 });
    try {
      const database = join(dir, `webhook-kill-${Date.now()}.db`);
      // The first attempt is held for 3 s before the sandbox gives up on it: the kill lands within it.
      const options = ['--webhook-timeout-ms', '3000', '--webhook-retry-ms', '100'];
      const victim = await sandboxProcess(database, options);
      const payId = await payOnProcessPage(victim.baseUrl, `KILL-HOOK-${Date.now()}`, receiver.url);
      await until('the first attempt', () => receiver.received.length >= 1, [victim]);
      killGroup(victim.pid, 'SIGKILL');
      expect(receiver.received, 'attempts before the kill: the first, still held').toHaveLength(1);
      await victim.exited;
      // The outbox row survived; the restarted sandbox takes it once the dead process's hold ends.
      const restarted = await sandboxProcess(database, options);
      await until('the delivery after the restart', () => receiver.received.length >= 2, [victim, restarted]);
      expect(receiver.received.map((r) => r.payId)).toEqual([payId, payId]);
      await restarted.stop();
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('two processes on one PostgreSQL database deliver each notification once', async () => {
    const receiver = await holdingReceiver({ hold: 0 });
    try {
      const database = await postgresDatabase();
      const [a, b] = await Promise.all([sandboxProcess(database), sandboxProcess(database)]);
      const payIds: string[] = [];
      for (let i = 0; i < 10; i++)
        payIds.push(
          await payOnProcessPage(i % 2 === 0 ? a.baseUrl : b.baseUrl, `TWO-HOOK-${Date.now()}-${i}`, receiver.url),
        );
      await until('ten deliveries', () => receiver.received.length >= 10, [a, b]);
      await new Promise((r) => setTimeout(r, 1_000)); // a duplicate would arrive meanwhile
      expect(receiver.received.map((r) => r.payId).sort()).toEqual([...payIds].sort());
      await Promise.all([a.stop(), b.stop()]);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
