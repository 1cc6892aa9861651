// Bounded floods of each hostile pattern against a sandbox child process run as `npm run sandbox`
// runs it (its Node options: a 160 MB old space): after each flood the process is still up, answers
// a normal request, and its resident memory (VmRSS) stayed under RSS_LIMIT_MB, sampled every 50 ms
// during the flood. The figures measured are printed. The floods run on SQLite and on PostgreSQL (an
// unknown client's key is looked up in the store while its 1 MiB body arrives), but for the trickled
// headers, which never reach a store: on the HTTP-level stores (HTTP_STORES).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_LIMITS, METADATA_LIMIT_BYTES } from '../../sandbox/http/limits.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { databases, HTTP_STORES, STORES } from '../support/postgres.js';
import { head, rawExchange } from '../support/raw-http.js';
import { startSandboxProcess } from '../support/sandbox-process.js';

/** The resident memory a sandbox process stays under, whatever it is sent. */
const RSS_LIMIT_MB = 250;

const dbs = databases();
const dir = mkdtempSync(join(tmpdir(), 'sandbox-floods-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const merchant = { merchantId: 'flood_merchant', apiKey: 'sk_test_flood', webhookSecret: 'whsec_flood' };
const authorization = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
writeFileSync(join(dir, 'merchants.json'), JSON.stringify([merchant]));

/** The process's resident memory, in MB (/proc/<pid>/status). */
function rssMb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? Number.NaN) / 1024;
}

/**
 * Requests at once in the large-body floods (each body near the whole budget of bodies in flight):
 * with the idle keep-alive sockets a previous flood left in the client's pool, still under the cap of
 * connections per client address, over which connections are refused.
 */
const AT_ONCE = Math.floor(DEFAULT_SERVER_LIMITS.maxConnectionsPerAddress / 2) - 8;

/** Runs `tasks` with at most `concurrency` at once. */
async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** A padding of open fields (the contract lets objects carry unknown keys) that makes a stored document `bytes` large. */
const padding = (bytes: number) => ({
  order: { items: Array.from({ length: 8 }, (_, i) => ({ name: `item ${i}`, note: 'n'.repeat(bytes / 8) })) },
});

describe.each(STORES)('floods against a sandbox process (%s)', (kind) => {
  let sandbox: ServerProcess;
  const figures: string[] = [];
  beforeAll(async () => {
    const database = kind === 'sqlite' ? join(dir, `${kind}.db`) : await dbs.database('postgres');
    sandbox = await startSandboxProcess({ database, merchantsFile: join(dir, 'merchants.json') });
  }, 120_000);
  afterAll(async () => {
    console.log(`sandbox process on ${kind}, resident memory (MB):\n  ${figures.join('\n  ')}`);
    await sandbox?.stop();
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.baseUrl}/api/v2${path}`, {
      ...init,
      headers: { authorization, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });

  /**
   * Runs `flood`, sampling the resident memory every 50 ms; then the process must be up, answer a
   * normal request, and have stayed under RSS_LIMIT_MB. Returns the statuses the flood saw.
   */
  async function flooded(name: string, flood: () => Promise<number[]>): Promise<number[]> {
    const before = rssMb(sandbox.pid);
    let peak = before;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssMb(sandbox.pid));
      } catch {
        // the process is gone: the checks below say so
      }
    }, 50);
    let statuses: number[];
    try {
      statuses = await flood();
    } catch (err) {
      // A flood that killed the process says so, with the end of what it printed (V8's heap report).
      const exited = await Promise.race([sandbox.exited, new Promise((r) => setTimeout(() => r(undefined), 500))]);
      if (exited)
        throw new Error(
          `${name}: the sandbox process died (${JSON.stringify(exited)}):\n${sandbox.output().slice(-1500)}`,
        );
      throw err;
    } finally {
      clearInterval(sampler);
    }
    const normal = await api('/customers');
    expect(normal.status, `${name}: a normal request afterwards`).toBe(200);
    const after = rssMb(sandbox.pid);
    figures.push(`${name}: before ${before.toFixed(0)}, peak ${peak.toFixed(0)}, after ${after.toFixed(0)}`);
    expect(peak, `${name}: peak resident memory (MB)`).toBeLessThan(RSS_LIMIT_MB);
    expect(
      statuses.filter((s) => s >= 500),
      `${name}: no 5xx`,
    ).toEqual([]);
    return statuses;
  }

  it('200 payments with maximal metadata and large documents, each read back by payId and transId', async () => {
    const metadata = { blob: 'm'.repeat(METADATA_LIMIT_BYTES - '{"blob":""}'.length) };
    const statuses = await flooded('200 large documents read back', () =>
      pool(200, 4, async (i) => {
        const transId = `FLOOD-DOC-${i}`;
        const created = await api('/payments', {
          method: 'POST',
          body: JSON.stringify({
            transId,
            amount: { value: 100, currency: 'EUR' },
            captureMethod: { type: 'MANUAL' },
            paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
            metadata,
            ...padding(400_000),
          }),
        });
        const { payId } = (await created.json()) as { payId: string };
        const byPayId = await api(`/payments/getByPayId/${payId}`);
        const byTransId = await api(`/payments/getByTransId/${transId}`);
        await Promise.all([byPayId.arrayBuffer(), byTransId.arrayBuffer()]);
        return Math.max(created.status === 201 ? 0 : created.status, byPayId.status, byTransId.status);
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    // read again: answered (from the cache or the store) the same
    const again = await pool(200, 8, async (i) => {
      const response = await api(`/payments/getByTransId/FLOOD-DOC-${i}`);
      await response.arrayBuffer(); // an unread body would hold its connection
      return response.status;
    });
    expect(new Set(again)).toEqual(new Set([200]));
  }, 240_000);

  it('thousands of requests with keys named like Object.prototype members', async () => {
    const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];
    const statuses = await flooded('3000 prototype-named keys', () =>
      pool(3000, 16, async (i) => {
        const name = names[i % names.length]!;
        const kind = i % 3;
        const response =
          kind === 0
            ? await api(`/customers?${name}=1`)
            : kind === 1
              ? await api('/payments', { method: 'POST', body: `{"${name}":{"${name}":1},"metadata":{"${name}":1}}` })
              : await api('/authorization/oauth/token', {
                  method: 'POST',
                  headers: { 'content-type': 'application/x-www-form-urlencoded' },
                  body: `grant_type=client_credentials&${name}=1`,
                });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([400, 200]));
  }, 240_000);

  it('deep bodies and text PostgreSQL cannot store', async () => {
    const deep = `{"transId":"DEEP","amount":{"value":1,"currency":"EUR"},"metadata":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const statuses = await flooded('1000 deep bodies (100 000 levels) and NUL/surrogate text', () =>
      pool(1000, 16, async (i) => {
        const response =
          i % 4 === 0
            ? await api('/payments', { method: 'POST', body: deep, headers: { 'idempotency-key': `deep-${i}` } })
            : i % 4 === 1
              ? await api(`/payments/getByPayId/pay%00${i}`)
              : i % 4 === 2
                ? await api('/payments', {
                    method: 'POST',
                    body: `{"transId":"N\\u0000${i}","metadata":{"a\\ud800":1}}`,
                  })
                : await api(`/customers?MerchantCustomerId=%00${i}`);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([400]));
  }, 240_000);

  it('oversized headers (431) and bodies (413), and 1 MiB bodies from unknown clients (401)', async () => {
    const statuses = await flooded('1000 oversized headers and bodies', () =>
      pool(1000, 16, async (i) => {
        if (i % 2 === 0) {
          const answer = await rawExchange(sandbox.port, [
            head(['GET /api/v2/customers HTTP/1.1', 'Host: x', `X-Padding: ${'p'.repeat(20_000)}`]),
          ]);
          return answer.status ?? 0;
        }
        const response = await api('/payments', {
          method: 'POST',
          headers: i % 4 === 1 ? {} : { authorization: 'Basic bm9ib2R5Om5vcGU=' },
          body: JSON.stringify({ metadata: { blob: 'b'.repeat(i % 4 === 1 ? 1_100_000 : 1_000_000) } }),
        }).catch(() => undefined); // the sandbox may answer 401 before the body is sent, and close
        await response?.arrayBuffer().catch(() => undefined);
        return response?.status ?? 401;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([431, 413, 401]));
  }, 240_000);

  it(`${AT_ONCE} requests at once with bodies of almost 1 MiB, and ${AT_ONCE} concurrent reads of documents too large to cache`, async () => {
    const items = Array.from({ length: 500 }, (_, i) => ({
      id: String(i),
      name: 'n'.repeat(200),
      note: 'e'.repeat(1_700),
    }));
    const body = JSON.stringify({ transId: 'X', amount: { value: 1, currency: 'EUR' }, order: { items } });
    const statuses = await flooded(`${5 * AT_ONCE} bodies of 0.97 MB, ${AT_ONCE} at once`, async () => {
      const all: number[] = [];
      for (let round = 0; round < 5; round++)
        all.push(
          ...(await pool(AT_ONCE, AT_ONCE, async () => {
            const response = await api('/payments/pay_none/captures', { method: 'POST', body });
            await response.arrayBuffer();
            return response.status;
          })),
        );
      return all;
    });
    expect(new Set(statuses)).toEqual(new Set([404]));
    for (let i = 0; i < 40; i++) {
      const created = await api('/payments', {
        method: 'POST',
        body: JSON.stringify({
          transId: `FLOOD-BIG-${i}`,
          amount: { value: 100, currency: 'EUR' },
          captureMethod: { type: 'MANUAL' },
          paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
          ...padding(880_000),
        }),
      });
      await created.arrayBuffer();
      expect(created.status).toBe(201);
    }
    const reads = await flooded(`${3 * AT_ONCE} reads of 0.88 MB documents, ${AT_ONCE} at once`, async () => {
      const all: number[] = [];
      for (let round = 0; round < 3; round++)
        all.push(
          ...(await pool(AT_ONCE, AT_ONCE, async (i) => {
            const response = await api(`/payments/getByTransId/FLOOD-BIG-${i % 40}`);
            await response.arrayBuffer();
            return response.status;
          })),
        );
      return all;
    });
    expect(new Set(reads)).toEqual(new Set([200]));
  }, 240_000);

  // Headers that never end reach no store: on the HTTP-level stores.
  it.runIf(HTTP_STORES.includes(kind))(
    'slow clients that trickle headers: the connection cap holds and the headers timeout frees it',
    async () => {
      const { maxConnections, headersTimeoutMs } = DEFAULT_SERVER_LIMITS;
      // The earlier floods' idle keep-alive sockets go first (fetch's pool closes them after 4 s idle):
      // otherwise they hold connection slots the slow clients are counted against.
      await new Promise((r) => setTimeout(r, 5_000));
      const statuses = await flooded(`${maxConnections + 50} slow clients`, async () => {
        const trickle = Array.from({ length: 100 }, (_, i) => [`${i % 10}`, { waitMs: 200 }]).flat();
        const held = Array.from({ length: maxConnections + 50 }, () =>
          rawExchange(
            sandbox.port,
            ['GET /api/v2/customers HTTP/1.1\r\nX-Slow: ', ...trickle],
            headersTimeoutMs + 10_000,
          ),
        );
        const answers = await Promise.all(held);
        const closedEarly = answers.filter((a) => a.status === undefined && (a.closedAfterMs ?? Infinity) < 2_000);
        const timedOut = answers.filter((a) => a.status === 408);
        expect(closedEarly.length, 'refused over the cap').toBeGreaterThanOrEqual(50);
        expect(timedOut.length, 'answered 408 at the headers timeout').toBeGreaterThan(0);
        for (const a of timedOut) expect(a.closedAfterMs).toBeLessThan(headersTimeoutMs + 3_000);
        return answers.map((a) => a.status ?? 0);
      });
      expect(statuses.filter((s) => s !== 0 && s !== 408)).toEqual([]);
    },
    120_000,
  );
});
