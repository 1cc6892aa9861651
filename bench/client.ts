// The client SDK's cost, measured (run alone: `npx tsx bench/client.ts`; also part of `npm run bench`):
//   1. per-call overhead of a client GET (`client.paymentPlans.retrieve(id)`, Basic auth, default
//      settings: 30 s deadline that aborts, retries armed) vs the least a caller writes with raw
//      fetch (same URL and Authorization header, `res.ok` check, `res.json()`), against a local node:http server
//      (same process) that answers a fixed JSON body. Each round times a batch of every variant in
//      rotating order, so that drift (JIT, GC, CPU frequency, other processes) hits all alike;
//      every call is timed on its own and the figures are medians over all calls of a variant.
//      The like-for-like baseline is fetch with the same 30 s AbortSignal.timeout the client uses;
//      bare fetch without a signal, and the client with `abortOnTimeout: false`, are reported too.
//   2. the minified + gzipped size of the client entry bundled by esbuild with openapi-fetch
//      external, and openapi-fetch's own size, separately.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { createPaymentClient } from '../src/client/index.js';

export interface ClientBenchResult {
  /**
   * The client (default settings: a 30 s timeout that aborts) vs the equivalent raw fetch (same
   * request, `AbortSignal.timeout(30 s)`): (median client call / median fetch call − 1), in %.
   */
  overheadPct: number;
  /** The client vs bare fetch without any signal: includes Node's cost of an AbortSignal. */
  overheadVsBareFetchPct: number;
  /** The client with `abortOnTimeout: false` (no signal handed to fetch) vs bare fetch. */
  noAbortOverheadPct: number;
  clientMedianUs: number;
  fetchMedianUs: number;
  sizeMinGzipBytes: number;
  openapiFetchMinGzipBytes: number;
}

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = 100;
const CALLS_PER_BATCH = 100;
const WARM_UP_CALLS = 2_000;

const BODY = JSON.stringify({
  id: 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P',
  paymentPlanType: 'RECURRING',
  planStatus: 'ACTIVE',
  merchantCustomerId: 'CUST-88412',
  description: 'Monthly subscription',
  amount: { value: 1000, currency: 'EUR' },
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function startServer(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Times `calls` sequential calls one by one, appending each duration (µs) to `into`. */
async function timeBatch(call: () => Promise<unknown>, calls: number, into: number[] = []): Promise<number[]> {
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call();
    into.push((performance.now() - start) * 1000);
  }
  return into;
}

async function measureOverhead(): Promise<
  Pick<
    ClientBenchResult,
    'overheadPct' | 'overheadVsBareFetchPct' | 'noAbortOverheadPct' | 'clientMedianUs' | 'fetchMedianUs'
  >
> {
  const { server, baseUrl } = await startServer();
  try {
    const merchantId = 'merchant-4711';
    const apiKey = 'bench-api-key';
    const client = createPaymentClient({ merchantId, apiKey, baseUrl });
    const nonAbortingClient = createPaymentClient({ merchantId, apiKey, baseUrl, abortOnTimeout: false });
    const authorization = `Basic ${btoa(`${merchantId}:${apiKey}`)}`;
    const planId = 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P';
    const url = `${baseUrl}/payment-plans/${planId}`;

    const variants = {
      fetch: async () => {
        const res = await fetch(url, { headers: { Authorization: authorization } });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json();
      },
      fetchWithTimeout: async () => {
        const res = await fetch(url, {
          headers: { Authorization: authorization },
          signal: AbortSignal.timeout(30_000),
        });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json();
      },
      client: () => client.paymentPlans.retrieve(planId),
      nonAbortingClient: () => nonAbortingClient.paymentPlans.retrieve(planId),
    };
    const names = Object.keys(variants) as (keyof typeof variants)[];

    const checked = (await variants.client()) as { id?: string };
    if (checked.id !== planId) throw new Error('the client did not return the server body');
    for (const name of names) await timeBatch(variants[name], WARM_UP_CALLS);

    const perCallUs = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<
      keyof typeof variants,
      number[]
    >;
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order, so that a trend within a round favours none of them.
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length]!;
        await timeBatch(variants[name], CALLS_PER_BATCH, perCallUs[name]);
      }
    }
    // Medians of the single calls: a burst of other work on the machine slows a minority of calls
    // and moves a median little, where it would move a mean (or a batch) a lot.
    const fetchMedianUs = median(perCallUs.fetchWithTimeout);
    const vs = (name: keyof typeof variants, base: keyof typeof variants) =>
      (median(perCallUs[name]) / median(perCallUs[base]) - 1) * 100;
    return {
      overheadPct: vs('client', 'fetchWithTimeout'),
      overheadVsBareFetchPct: vs('client', 'fetch'),
      noAbortOverheadPct: vs('nonAbortingClient', 'fetch'),
      clientMedianUs: median(perCallUs.client),
      fetchMedianUs,
    };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function minGzipBytes(options: {
  entryPoints?: string[];
  stdin?: { contents: string; resolveDir: string };
  external?: string[];
}): Promise<number> {
  const result = await build({
    ...options,
    bundle: true,
    minify: true,
    format: 'esm',
    // browser: a Node built-in anywhere in the bundle fails the build.
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

export async function benchClient(): Promise<ClientBenchResult> {
  const sizeMinGzipBytes = await minGzipBytes({
    entryPoints: [join(REPO_ROOT, 'src/client/index.ts')],
    external: ['openapi-fetch'],
  });
  const openapiFetchMinGzipBytes = await minGzipBytes({
    stdin: {
      contents: "export * from 'openapi-fetch'; export { default } from 'openapi-fetch';",
      resolveDir: REPO_ROOT,
    },
  });
  const overhead = await measureOverhead();
  return { ...overhead, sizeMinGzipBytes, openapiFetchMinGzipBytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchClient();
  console.log(
    `per-call overhead vs the equivalent raw fetch (same request, 30 s timeout signal): ${r.overheadPct.toFixed(1)} % (client ${r.clientMedianUs.toFixed(1)} µs, fetch ${r.fetchMedianUs.toFixed(1)} µs, medians of ${ROUNDS * CALLS_PER_BATCH} calls each; target ≤ 5 %)`,
  );
  console.log(
    `  vs bare fetch without a signal: ${r.overheadVsBareFetchPct.toFixed(1)} %; client with abortOnTimeout: false vs bare fetch: ${r.noAbortOverheadPct.toFixed(1)} %`,
  );
  console.log(
    `client entry, minified + gzipped, openapi-fetch external: ${r.sizeMinGzipBytes} B (${(r.sizeMinGzipBytes / 1024).toFixed(1)} kB; target ≤ 10 kB)`,
  );
  console.log(
    `openapi-fetch itself, minified + gzipped: ${r.openapiFetchMinGzipBytes} B (${(r.openapiFetchMinGzipBytes / 1024).toFixed(1)} kB)`,
  );
}
