// A request must not make hidden classes (V8 maps) of its own. Maps live in old space: a request
// whose objects each got new ones (on Node 20, an object that gains keys after a spread does) kept
// its rows and JSON alive until a full GC, which under load cost a 4 ms mark-compact four times a
// second. Counted, not timed: V8's map log (`--log-maps`) of a sandbox process after warm-up.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess } from '../../tooling/process/sandbox-command.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'hidden-classes-'));
const mapLog = join(dir, 'maps.log');
const merchant = { merchantId: 'maps_merchant', apiKey: 'sk_test_maps', webhookSecret: 'whsec_maps' };
const headers = {
  authorization: `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`,
  'content-type': 'application/json',
};
/** Kysely's transaction object makes three maps per database transaction; a request adds none. */
const MAPS_PER_WRITE = 4;
const WRITES_PER_FLOW = 3;

let sandbox: ServerProcess;
beforeAll(async () => {
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify([merchant]));
  sandbox = await startSandboxProcess({
    database: join(dir, 'sandbox.db'),
    merchantsFile: join(dir, 'merchants.json'),
    nodeOptions: ['--log-maps', '--no-log-maps-details', `--logfile=${mapLog}`, '--no-logfile-per-isolate'],
  });
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown, key: string): Promise<{ payId?: string }> {
  const response = await fetch(`${sandbox.baseUrl}/api/v2${path}`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  expect(response.status, `${path}: ${await response.clone().text()}`).toBeLessThan(300);
  return (await response.json()) as { payId?: string };
}

/** Create (manual capture), capture part, refund part of it, read it back: three writes and a read. */
async function flows(count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const transId = `MAPS-${tag}-${i}`;
    const amount = (value: number) => ({ value, currency: 'EUR' });
    const { payId } = await post(
      '/payments',
      {
        transId,
        amount: amount(2500),
        captureMethod: { type: 'MANUAL' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        customerInfo: { firstName: 'Lena', lastName: 'Schmidt' },
      },
      transId,
    );
    await post(`/payments/${payId}/captures`, { transId: `${transId}-C`, amount: amount(1000) }, `${transId}-C`);
    await post(`/payments/${payId}/refunds`, { transId: `${transId}-R`, amount: amount(500) }, `${transId}-R`);
    expect((await fetch(`${sandbox.baseUrl}/api/v2/payments/getByTransId/${transId}`, { headers })).status).toBe(200);
  }
}

/** Where the log's new maps came from: the function (from its code-creation line), the position, the key added. */
function sites(lines: string[], all: string[]): string[] {
  const code = all
    .filter((l) => l.startsWith('code-creation,'))
    .map((l) => l.split(','))
    .map((f) => ({ start: parseInt(f[4]!, 16), size: Number(f[5]), name: f.slice(6, -2).join(',') }));
  const named = (pc: number) => code.findLast((c) => c.start <= pc && pc < c.start + c.size)?.name ?? '(unknown code)';
  const counts = new Map<string, number>();
  for (const fields of lines.filter((l) => l.startsWith('map,Transition,')).map((l) => l.split(','))) {
    const site = `${named(parseInt(fields[5]!, 16))} at ${fields[6]}:${fields[7]} adds ${fields.at(-1)}`;
    counts.set(site, (counts.get(site) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([site, n]) => `${n}× ${site}`);
}

describe('hidden classes per request (V8 map log)', () => {
  it('creating, capturing, refunding and reading payments makes no maps per request once warm', async () => {
    await flows(150, 'warm');
    const mark = statSync(mapLog).size;
    const measured = 150;
    await flows(measured, 'measured');
    await sandbox.stop(); // flushes the log
    const all = readFileSync(mapLog, 'utf8').split('\n');
    const after = readFileSync(mapLog).subarray(mark).toString('utf8').split('\n');
    expect(all.filter((l) => l.startsWith('map-create,')).length, 'the map log records map creations').toBeGreaterThan(
      1_000,
    );
    const created = after.filter((l) => l.startsWith('map-create,')).length;
    expect(
      created / (measured * WRITES_PER_FLOW),
      `maps made per write; where they come from:\n${sites(after, all).join('\n')}`,
    ).toBeLessThanOrEqual(MAPS_PER_WRITE);
  }, 120_000);
});
