// Throughput and p99 latency of the Prism mock (`npm run mock`), with autocannon: 10 connections
// for 10 s (after 2 s of warm-up) against one GET (getPaymentPlan) and one POST with request
// validation (createCheckoutSession with its documented example); any non-2xx answer fails the
// run. Prism runs quietly (-v error) on a free port and is stopped afterwards.
// Called by scripts/bench.ts; alone: `npx tsx bench/mock.ts`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../generator/support/paths.js';
import { startPrism } from '../mock/prism.js';
import { deref, type JsonObject, operationById } from '../tooling/openapi/walker.js';
import { CONNECTIONS, DURATION_S, type Figures, type LoadRequest, measure } from './load.js';

const SPEC = join(REPO_ROOT, 'generated', 'openapi.json');

/** An operation of the bundle: its path, lowest 2xx and first JSON request example. */
function operation(doc: JsonObject, operationId: string): { path: string; status: number; body: unknown } {
  const entry = operationById(doc, operationId);
  const status = Math.min(
    ...Object.keys(entry.operation.responses ?? {})
      .filter((c) => /^2\d\d$/.test(c))
      .map(Number),
  );
  const body = entry.operation.requestBody ? deref<JsonObject>(doc, entry.operation.requestBody) : undefined;
  const media = (body?.content as Record<string, { examples?: Record<string, unknown> }> | undefined)?.[
    'application/json'
  ];
  const example = Object.values(media?.examples ?? {})[0];
  return { path: entry.key, status, body: example === undefined ? undefined : deref<JsonObject>(doc, example).value };
}

/** One request first, to see it answered with the operation's documented status, then the load. */
async function measureOperation(baseUrl: string, request: LoadRequest, expected: number): Promise<Figures> {
  const res = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  await res.arrayBuffer();
  if (res.status !== expected)
    throw new Error(`${request.method} ${request.path} answered ${res.status}, expected ${expected}`);
  return measure(baseUrl, [request]);
}

export async function benchMock(): Promise<{ get: Figures; post: Figures }> {
  if (!existsSync(SPEC)) throw new Error(`${SPEC} is missing: run \`npm run generate\` first`);
  const doc = JSON.parse(readFileSync(SPEC, 'utf8')) as JsonObject;
  const plan = operation(doc, 'getPaymentPlan');
  const session = operation(doc, 'createCheckoutSession');
  if (session.body === undefined) throw new Error('createCheckoutSession has no JSON request example');
  const authorization = `Basic ${Buffer.from('merchant:key').toString('base64')}`;
  const prism = await startPrism({ specPath: SPEC, logLevel: 'error' });
  try {
    const planPath = plan.path.replace('{paymentPlanId}', 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P');
    const get = await measureOperation(
      prism.baseUrl,
      { method: 'GET', path: planPath, headers: { authorization } },
      plan.status,
    );
    const post = await measureOperation(
      prism.baseUrl,
      {
        method: 'POST',
        path: session.path,
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(session.body),
      },
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
