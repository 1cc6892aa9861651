// An A/B comparison of the sandbox's create (POST /payments with an Idempotency-Key, as in
// bench/sandbox.ts), or of its read of a payment (`--request get`), between this checkout and another
// one: the way to judge what a change to the sandbox buys. Single runs on these machines vary widely, so the two run interleaved, the order
// swapped every round, and the medians of each side are compared.
//   npx tsx bench/ab.ts <other checkout> [--runs 5] [--store sqlite|postgres] [--request post|get]
// The other checkout runs with this one's node_modules when it has none of its own (a git worktree).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EmbeddedPostgresServer, startPostgres } from '../tooling/process/postgres.js';
import { startSandboxProcess } from '../tooling/process/sandbox-command.js';
import { REPO_ROOT } from '../tooling/repository.js';
import { type Figures, measure } from './load.js';
import { createdPayment, createRequest, getRequest, MERCHANT } from './sandbox.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '5' },
    store: { type: 'string', default: 'sqlite' },
    request: { type: 'string', default: 'post' },
  },
});
const other = positionals[0];
if (!other || !existsSync(join(other, 'sandbox', 'main.ts')))
  throw new Error(
    'usage: npx tsx bench/ab.ts <other checkout of this repository> [--runs 5] [--store sqlite|postgres] [--request post|get]',
  );
if (values.store !== 'sqlite' && values.store !== 'postgres')
  throw new Error(`--store: sqlite or postgres, not ${values.store}`);
if (values.request !== 'post' && values.request !== 'get')
  throw new Error(`--request: post or get, not ${values.request}`);
const runs = Number(values.runs);
const UNIT = values.request === 'get' ? 'reads/s' : 'creates/s';
/** How a checkout's sandbox starts: its launcher, or (a checkout from before there was one) its main.ts under tsx. */
const launch = (checkout: string) =>
  existsSync(join(checkout, 'sandbox', 'launch.mjs'))
    ? { entry: join(checkout, 'sandbox', 'launch.mjs') }
    : { entry: join(checkout, 'sandbox', 'main.ts'), nodeOptions: ['--import', 'tsx'] };
const sides = { A: launch(REPO_ROOT), B: launch(resolve(other)) };

const dir = mkdtempSync(join(tmpdir(), 'bench-ab-'));
const merchantsFile = join(dir, 'merchants.json');
writeFileSync(merchantsFile, JSON.stringify([MERCHANT]));
let postgres: EmbeddedPostgresServer | undefined;
let databases = 0;

/** A fresh database for one run of one side. */
async function database(): Promise<string> {
  databases += 1;
  if (values.store === 'sqlite') return join(dir, `run-${databases}.db`);
  postgres ??= await startPostgres();
  return postgres.createDatabase(`ab_${databases}`);
}

async function measureSide(side: ReturnType<typeof launch>): Promise<Figures> {
  const server = await startSandboxProcess({ database: await database(), merchantsFile, ...side });
  try {
    const requests = values.request === 'get' ? getRequest(await createdPayment(server)) : [createRequest()];
    return await measure(server.baseUrl, requests);
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const results: Record<'A' | 'B', Figures[]> = { A: [], B: [] };
try {
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    for (const side of order) {
      const figures = await measureSide(sides[side]);
      results[side].push(figures);
      console.log(`round ${round + 1} ${side}: ${Math.round(figures.rps)} ${UNIT}, p99 ${figures.p99} ms`);
    }
  }
  const summary = (side: 'A' | 'B') => ({
    rps: median(results[side].map((f) => f.rps)),
    p99: median(results[side].map((f) => f.p99)),
  });
  const a = summary('A');
  const b = summary('B');
  const what = values.request === 'get' ? 'GET /payments/getByPayId/{payId}' : 'POST /payments';
  console.log(`\n${values.store}, ${what}, medians of ${runs} interleaved runs each`);
  console.log(`  A ${REPO_ROOT}: ${Math.round(a.rps)} ${UNIT}, p99 ${a.p99} ms`);
  console.log(`  B ${resolve(other)}: ${Math.round(b.rps)} ${UNIT}, p99 ${b.p99} ms`);
  console.log(`  A/B: ${((a.rps / b.rps - 1) * 100).toFixed(1)} % ${UNIT}`);
} finally {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
}
