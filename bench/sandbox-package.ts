// @payment-service/sandbox as a team's tests use it: the packed tarball (with the SDK's) installed
// into a project made by `npm init -y` (npm's cache preferred; its packages counted, node_modules
// measured with du), and the admin calls a test suite makes per worker: create a merchant (empty, or
// with the contract's examples), delete it with its data, restore a snapshot of 1,000 payments, over HTTP against an in-memory sandbox on
// each SQLite build (native better-sqlite3, and the WebAssembly one the package uses by default).
// Called by scripts/bench.ts; alone: `npx tsx bench/sandbox-package.ts`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../generator/support/paths.js';
import { createSandbox } from '../packages/sandbox/src/node-sandbox.js';
import { installPlatform } from '../sandbox/app/platform.js';
import { nodePlatform } from '../sandbox/platform/node.js';
import { startSandbox } from '../sandbox/server.js';

// The sandboxes measured here run in this process, on Node.
installPlatform(nodePlatform);

const ROUNDS = 200;
const RESTORED_PAYMENTS = 1_000;
const RESTORES = 20;

export interface AdminTimes {
  driver: 'native' | 'wasm';
  /** Median and 95th percentile, ms, of each call over HTTP. */
  create: [number, number];
  createWithExamples: [number, number];
  delete: [number, number];
  /** restoreSnapshot of a scope holding RESTORED_PAYMENTS payments (each with its operation). */
  restore: [number, number];
}

/** Payments created and read back per second, in process (createSandbox().fetch: no socket), one at a time. */
export interface InProcessRate {
  driver: 'native' | 'wasm';
  pairsPerSecond: number;
}

export interface SandboxPackageFigures {
  tarballKb: number;
  /** Packages and MB a fresh project's install of the sandbox's and the SDK's tarballs adds. */
  packages: number;
  installMb: number;
  admin: AdminTimes[];
  inProcess: InProcessRate[];
}

function must(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')}: ${err}`)),
    );
  });
}

const percentiles = (xs: number[]): [number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(s.length / 2)]!, s[Math.floor(s.length * 0.95)]!];
};

async function timed(work: () => Promise<Response>, expected: number): Promise<number> {
  const t0 = performance.now();
  const response = await work();
  await response.arrayBuffer();
  if (response.status !== expected) throw new Error(`expected ${expected}, got ${response.status}`);
  return performance.now() - t0;
}

/** A merchant with RESTORED_PAYMENTS payments, its test scope snapshotted, then restored RESTORES times. */
async function restoreTimes(url: string, headers: Record<string, string>): Promise<[number, number]> {
  const made = (await (
    await fetch(`${url}/_sandbox/merchants`, { method: 'POST', headers, body: '{"merchantId":"bench_restore"}' })
  ).json()) as { apiKey: string };
  const basic = `Basic ${Buffer.from(`bench_restore:${made.apiKey}`).toString('base64')}`;
  for (let i = 0; i < RESTORED_PAYMENTS; i++) {
    const body = JSON.stringify({ transId: `BENCH-${i}`, amount: { value: 1000 + i, currency: 'EUR' } });
    const paid = await fetch(`${url}/api/v2/payments`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body,
    });
    if (paid.status !== 201) throw new Error(`payment ${i}: ${paid.status}`);
    await paid.arrayBuffer();
  }
  const snapshot = (await (
    await fetch(`${url}/_sandbox/snapshots`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ merchantId: 'bench_restore', environment: 'test' }),
    })
  ).json()) as { snapshotId: string; rows: { payments: number } };
  if (snapshot.rows.payments !== RESTORED_PAYMENTS)
    throw new Error(`the snapshot holds ${snapshot.rows.payments} payments`);
  const times: number[] = [];
  for (let i = 0; i < RESTORES; i++)
    times.push(
      await timed(
        () =>
          fetch(`${url}/_sandbox/snapshots/${snapshot.snapshotId}/restore`, {
            method: 'POST',
            headers: { authorization: headers.authorization! },
          }),
        200,
      ),
    );
  return percentiles(times);
}

const IN_PROCESS_PAIRS = 2_000;

/** createSandbox() (the package's in-process sandbox) on `driver`: IN_PROCESS_PAIRS creates, each read back. */
async function inProcessRate(driver: InProcessRate['driver']): Promise<InProcessRate> {
  const sandbox = await createSandbox({ sqliteDriver: driver });
  try {
    const merchant = await sandbox.createMerchant();
    const authorization = `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
    const pair = async (i: number) => {
      const created = await sandbox.fetch(
        new Request(`${sandbox.baseUrl}/payments`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ transId: `RATE-${i}`, amount: { value: 1000 + i, currency: 'EUR' } }),
        }),
      );
      const { payId } = (await created.json()) as { payId: string };
      const read = await sandbox.fetch(
        new Request(`${sandbox.baseUrl}/payments/getByPayId/${payId}`, { headers: { authorization } }),
      );
      if (created.status !== 201 || read.status !== 200)
        throw new Error(`pair ${i}: ${created.status}, ${read.status}`);
      await read.arrayBuffer();
    };
    for (let i = 0; i < 200; i++) await pair(-1 - i); // warm-up
    const t0 = performance.now();
    for (let i = 0; i < IN_PROCESS_PAIRS; i++) await pair(i);
    return { driver, pairsPerSecond: Math.round(IN_PROCESS_PAIRS / ((performance.now() - t0) / 1000)) };
  } finally {
    await sandbox.close();
  }
}

/** createMerchant and deleteMerchant, ROUNDS times each (and 20 with examples), on one in-memory sandbox. */
async function adminTimes(driver: AdminTimes['driver']): Promise<AdminTimes> {
  const sandbox = await startSandbox({ database: ':memory:', port: 0, sqliteDriver: driver });
  try {
    const headers = { authorization: `Bearer ${sandbox.adminKey}`, 'content-type': 'application/json' };
    const create = (body: object) => () =>
      fetch(`${sandbox.url}/_sandbox/merchants`, { method: 'POST', headers, body: JSON.stringify(body) });
    const remove = (id: string) => () =>
      fetch(`${sandbox.url}/_sandbox/merchants/${id}`, { method: 'DELETE', headers });
    const creates: number[] = [];
    const deletes: number[] = [];
    const seeded: number[] = [];
    for (let i = 0; i < ROUNDS; i++) creates.push(await timed(create({ merchantId: `bench_${i}` }), 201));
    for (let i = 0; i < ROUNDS; i++) deletes.push(await timed(remove(`bench_${i}`), 204));
    for (let i = 0; i < 20; i++) seeded.push(await timed(create({ merchantId: `seeded_${i}`, examples: true }), 201));
    return {
      driver,
      create: percentiles(creates),
      createWithExamples: percentiles(seeded),
      delete: percentiles(deletes),
      restore: await restoreTimes(sandbox.url, headers),
    };
  } finally {
    await sandbox.close();
  }
}

export async function benchSandboxPackage(): Promise<SandboxPackageFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sandbox-package-'));
  try {
    const packed = await Promise.all(
      ['sandbox', 'sdk'].map(async (name) => {
        const out = await must(
          'npm',
          ['run', '--silent', `pack:${name}`, '--', '--json', '--destination', dir],
          REPO_ROOT,
        );
        return join(dir, (JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>)[0]!.filename);
      }),
    );
    const project = join(dir, 'project');
    mkdirSync(project);
    await must('npm', ['init', '-y'], project);
    await must(
      'npm',
      ['install', ...packed, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      project,
    );
    const ls = await must('npm', ['ls', '--all', '--parseable'], project);
    const du = await must('du', ['-sk', 'node_modules'], project);
    return {
      tarballKb: Math.round(statSync(packed[0]!).size / 1024),
      packages: ls.trim().split('\n').length - 1,
      installMb: Math.round(Number.parseInt(du, 10) / 102.4) / 10,
      admin: [await adminTimes('native'), await adminTimes('wasm')],
      inProcess: [await inProcessRate('native'), await inProcessRate('wasm')],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatSandboxPackageBench(f: SandboxPackageFigures): string {
  const ms = ([median, p95]: [number, number]) => `${median.toFixed(1)} ms (p95 ${p95.toFixed(1)})`;
  return [
    `  tarball ${f.tarballKb} kB; with the SDK's, a fresh project installs ${f.packages} packages, ${f.installMb} MB`,
    ...f.admin.map(
      (a) =>
        `  ${a.driver} SQLite, over HTTP: createMerchant ${ms(a.create)}, deleteMerchant ${ms(a.delete)}, createMerchant with the examples ${ms(a.createWithExamples)}, restoreSnapshot of ${RESTORED_PAYMENTS} payments ${ms(a.restore)}`,
    ),
    ...f.inProcess.map(
      (r) =>
        `  in process (createSandbox().fetch, ${r.driver} SQLite): ${r.pairsPerSecond} payments created and read back per second, one at a time`,
    ),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  console.log(formatSandboxPackageBench(await benchSandboxPackage()));
