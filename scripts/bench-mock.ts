// Throughput and p99 latency of the Prism mock (`npm run mock`), with autocannon: 10 connections
// for 10 s (after 2 s of warm-up) against one GET (getPaymentPlan) and one POST with request
// validation (createCheckoutSession with its documented example); any non-2xx answer fails the
// run. Prism runs quietly (-v error) on a free port and is stopped afterwards.
// Called by scripts/bench.ts; alone: `npx tsx scripts/bench-mock.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../generator/paths.js';
import { deref, operationById, type JsonObject } from '../src/openapi/walker.js';
import { startPrism } from './prism.js';

export interface MockFigures {
  /** requests per second (mean of the per-second samples) */
  rps: number;
  /** 99th percentile latency, ms */
  p99: number;
}

// autocannon ships no type declarations; the part used here.
interface AutocannonOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  duration?: number;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

const SPEC = join(REPO_ROOT, 'generated', 'openapi.json');
const CONNECTIONS = 10;
const DURATION_S = 10;
const WARM_UP_S = 2;

/** An operation of the bundle: its path, lowest 2xx and first JSON request example. */
function operation(doc: JsonObject, operationId: string): { path: string; status: number; body: unknown } {
  const entry = operationById(doc, operationId);
  const status = Math.min(...Object.keys(entry.operation.responses ?? {}).filter((c) => /^2\d\d$/.test(c)).map(Number));
  const body = entry.operation.requestBody ? deref<JsonObject>(doc, entry.operation.requestBody) : undefined;
  const media = (body?.content as Record<string, { examples?: Record<string, unknown> }> | undefined)?.['application/json'];
  const example = Object.values(media?.examples ?? {})[0];
  return { path: entry.key, status, body: example === undefined ? undefined : deref<JsonObject>(doc, example).value };
}

async function measure(options: AutocannonOptions, expected: number): Promise<MockFigures> {
  const res = await fetch(options.url, { method: options.method, headers: options.headers, body: options.body });
  await res.arrayBuffer();
  if (res.status !== expected) throw new Error(`${options.method} ${options.url} answered ${res.status}, expected ${expected}`);
  // Warm-up, not measured: Prism compiles each validator on first use, and the JIT needs a moment.
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARM_UP_S });
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION_S });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) throw new Error(`${options.method} ${options.url}: ${failed} of ${result.requests.total} requests failed or were not 2xx`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

export async function benchMock(): Promise<{ get: MockFigures; post: MockFigures }> {
  if (!existsSync(SPEC)) throw new Error(`${SPEC} is missing: run \`npm run generate\` first`);
  const doc = JSON.parse(readFileSync(SPEC, 'utf8')) as JsonObject;
  const plan = operation(doc, 'getPaymentPlan');
  const session = operation(doc, 'createCheckoutSession');
  if (session.body === undefined) throw new Error('createCheckoutSession has no JSON request example');
  const authorization = `Basic ${Buffer.from('merchant:key').toString('base64')}`;
  const prism = await startPrism({ specPath: SPEC, logLevel: 'error' });
  try {
    const planUrl = `${prism.baseUrl}${plan.path.replace('{paymentPlanId}', 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P')}`;
    const get = await measure({ url: planUrl, method: 'GET', headers: { authorization } }, plan.status);
    const post = await measure(
      { url: `${prism.baseUrl}${session.path}`, method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(session.body) },
      session.status,
    );
    return { get, post };
  } finally {
    await prism.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { get, post } = await benchMock();
  console.log(`Prism mock, autocannon ${CONNECTIONS} connections × ${DURATION_S} s`);
  console.log(`  GET  /payment-plans/{id}      ${Math.round(get.rps)} req/s, p99 ${get.p99} ms`);
  console.log(`  POST /payments/sessions       ${Math.round(post.rps)} req/s, p99 ${post.p99} ms (request validated)`);
}
