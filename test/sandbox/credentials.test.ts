// Credentials across processes and restarts, the way `npm run sandbox` runs: an API key rotated
// through the admin API is refused by every process on one PostgreSQL within the credential cache's
// lifetime; the demo merchant's credentials persist with the data (a restart shows the same ones, a
// reset of its data makes new ones, written to the CLI config); `npm run sandbox -- env` prints them
// as export lines.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliConfig } from '../../sandbox/cli/config.js';
import { CREDENTIAL_CACHE_MS } from '../../sandbox/http/auth.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { postgresDatabase } from '../support/postgres.js';
import { newMerchant } from '../support/sandbox.js';
import { runCliInProcess, startSandboxProcess } from '../support/sandbox-process.js';

const ADMIN_KEY = 'sbx_admin_credentials_test_0123456789abcdef';
let dir: string;
const running: ServerProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-credentials-'));
}, 60_000);
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function sandboxProcess(database: string, options: { merchantsFile?: string; extra?: string[] } = {}) {
  const started = await startSandboxProcess({
    database,
    ...(options.merchantsFile ? { merchantsFile: options.merchantsFile } : {}),
    extra: ['--admin-key', ADMIN_KEY, ...(options.extra ?? [])],
  });
  running.push(started);
  return started;
}

const basic = (merchantId: string, apiKey: string) =>
  `Basic ${Buffer.from(`${merchantId}:${apiKey}`).toString('base64')}`;
const status = (base: string, authorization: string) =>
  fetch(`${base}/api/v2/customers`, { headers: { authorization } }).then((r) => r.status);
const admin = (base: string, method: string, path: string) =>
  fetch(`${base}/_sandbox${path}`, { method, headers: { authorization: `Bearer ${ADMIN_KEY}` } });

describe('an API key rotated through the admin API', () => {
  it('is refused by this process at once and by another on the same PostgreSQL within the cache lifetime', async () => {
    const merchant = newMerchant('rotate');
    const merchantsFile = join(dir, 'rotate.json');
    writeFileSync(merchantsFile, JSON.stringify([merchant]));
    const database = await postgresDatabase();
    const [a, b] = [
      await sandboxProcess(database, { merchantsFile }),
      await sandboxProcess(database, { merchantsFile }),
    ];
    const old = basic(merchant.merchantId, merchant.apiKey);
    // Both processes have verified (and cached) the old key.
    expect([await status(a.baseUrl, old), await status(b.baseUrl, old)]).toEqual([200, 200]);

    const rotated = await admin(a.baseUrl, 'POST', `/merchants/${merchant.merchantId}/api-key`);
    expect(rotated.status).toBe(200);
    const { apiKey } = (await rotated.json()) as { apiKey: string };
    expect(apiKey).not.toBe(merchant.apiKey);

    const fresh = basic(merchant.merchantId, apiKey);
    expect(await status(a.baseUrl, fresh)).toBe(200);
    const start = Date.now();
    let refused = 0;
    while (Date.now() - start < CREDENTIAL_CACHE_MS + 3_000) {
      if ((await status(b.baseUrl, old)) === 401) {
        refused = Date.now() - start;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(refused, 'the other process refused the old key').toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(CREDENTIAL_CACHE_MS + 1_000);
    expect(await status(b.baseUrl, fresh)).toBe(200);
    expect(await status(a.baseUrl, old)).toBe(401);
    expect((await admin(a.baseUrl, 'POST', '/merchants/nobody/api-key')).status).toBe(404);
  });
});

describe('the demo merchant', () => {
  it('keeps its credentials across a restart on the same data and across a reset of all data, and env prints them', async () => {
    const database = join(dir, 'demo.db');
    const config = join(dir, 'cli.json');
    const read = () => JSON.parse(readFileSync(config, 'utf8')) as CliConfig;
    const credentials = () => read().merchants![0]!;

    const first = await sandboxProcess(database, { extra: ['--cli-config', config] });
    const before = credentials();
    expect(before.merchantId).toBe('demo_merchant');
    expect(before.webhookSecret).toMatch(/^whsec_/);
    expect(await status(first.baseUrl, basic(before.merchantId, before.apiKey))).toBe(200);
    await first.stop();

    const second = await sandboxProcess(database, { extra: ['--cli-config', config] });
    expect(credentials()).toEqual(before);
    expect(await status(second.baseUrl, basic(before.merchantId, before.apiKey))).toBe(200);

    const env = await runCliInProcess(['env'], { SANDBOX_CLI_CONFIG: config });
    expect(env.code).toBe(0);
    expect(env.stdout.trim().split('\n')).toEqual([
      `export PAYMENT_API_BASE_URL='${second.baseUrl}/api/v2'`,
      `export MERCHANT_ID='demo_merchant'`,
      `export API_KEY='${before.apiKey}'`,
      `export WEBHOOK_SECRET='${before.webhookSecret}'`,
    ]);

    // A reset deletes data, never credentials (admin API 2.0.0): the next test's key still works.
    expect((await admin(second.baseUrl, 'POST', '/reset')).status).toBe(200);
    expect(await status(second.baseUrl, basic(before.merchantId, before.apiKey))).toBe(200);
    expect(credentials()).toEqual(before);
    await second.stop();
    const third = await sandboxProcess(database, { extra: ['--cli-config', config] });
    expect(credentials()).toEqual(before);
    expect(await status(third.baseUrl, basic(before.merchantId, before.apiKey))).toBe(200);
  });
});
