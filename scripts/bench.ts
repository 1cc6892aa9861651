// npm run bench: the figures docs/benchmarks.md reports, measured on this machine.
//   1. `npm run generate -- --force`: each step's time and the total, median of 5 runs (child
//      processes, exactly what a user runs, start-up included); then `npm run generate` with nothing
//      changed, served by the step cache; and the forced run on the Node.js lines the packages'
//      users run (tooling/node-lines.ts)
//   2. the Prism mock: requests per second and p99 latency (autocannon)
//   3. the sandbox beside a bare node:http server and the mock: GET and POST throughput, p99,
//      resident memory after 100 000 payments; POST beside its floor (bench/floor-server.ts)
//   4. the client SDK: per-call overhead vs raw fetch, and its minified+gzipped size
//   5. watch mode: a schema edit saved in place, by rename and by sed -i until generated/types.ts has
//      it, on an idle watcher and in saves 1–2 s apart that supersede the previous rebuild (bench/watch.ts)
//   6. payment-verify: the packed verifier installed alone (its packages and size), and a whole run of
//      it against a fresh local sandbox, 3 times: wall clock, requests, coverage (bench/verify.ts)
//   7. @payment-service/sandbox: its install beside the SDK's, and a test worker's admin calls (create
//      and delete a merchant) on native and WebAssembly SQLite (bench/sandbox-package.ts)
// Timing lives here, never in tests: a timed test fails on a busy machine for no reason.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { benchClient } from '../bench/client.js';
import { benchMock } from '../bench/mock.js';
import { benchSandbox } from '../bench/sandbox.js';
import { benchSandboxPackage, formatSandboxPackageBench } from '../bench/sandbox-package.js';
import { benchVerify, formatVerifyBench } from '../bench/verify.js';
import { benchWatch, formatWatchBench } from '../bench/watch.js';
import { REPO_ROOT } from '../generator/support/paths.js';
import { envOnLine, installNodeLines, NODE_LINES_PLATFORM, pinnedNodeLines } from '../tooling/node-lines.js';
import { environmentWith } from '../tooling/process/environment.js';

const RUNS = 5;

interface Run {
  totalMs: number;
  steps: Map<string, number>;
}

/** `npm run generate -- <args>` as a user runs it; `env`: what to change in this process's environment. */
function runGenerate(args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('npm', ['run', '-s', 'generate', '--', ...args], {
      cwd: REPO_ROOT,
      env: environmentWith(env),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const totalMs = performance.now() - t0;
      if (code !== 0) return reject(new Error(`npm run generate exited with ${code}\n${out}`));
      const steps = new Map<string, number>();
      for (const m of out.matchAll(/^✔ (\S+)\s+(\d+) ms/gm)) steps.set(m[1]!, Number(m[2]));
      resolve({ totalMs, steps });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`);

console.log(`npm run generate -- --force, median of ${RUNS} runs (steps overlap: they run concurrently)`);
const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) runs.push(await runGenerate(['--force']));
const stepNames = [...runs[0]!.steps.keys()];
for (const name of stepNames) {
  console.log(
    `  ${(name === 'done' ? 'pipeline' : name).padEnd(12)} ${String(Math.round(median(runs.map((r) => r.steps.get(name) ?? 0)))).padStart(6)} ms`,
  );
}
console.log(
  `  ${'wall clock'.padEnd(12)} ${String(Math.round(median(runs.map((r) => r.totalMs)))).padStart(6)} ms  (whole command, process start-up included; target ≤ 3000 ms)`,
);
const noOps: Run[] = [];
for (let i = 0; i < RUNS; i++) noOps.push(await runGenerate());
console.log(
  `  ${'nothing changed'.padEnd(12)} ${String(Math.round(median(noOps.map((r) => r.totalMs)))).padStart(6)} ms  (every step from the step cache; target ≤ 1000 ms)\n`,
);

// The lines the packages' users run: the generator's program is compiled per Node.js version, so
// each line's first run (not counted) compiles it.
const lines = NODE_LINES_PLATFORM ? await pinnedNodeLines(await installNodeLines()) : [];
if (lines.length > 0) console.log(`npm run generate -- --force on the other Node.js lines, median of ${RUNS} runs`);
for (const line of lines) {
  const env = envOnLine(line);
  await runGenerate(['--force'], env);
  const onLine: Run[] = [];
  for (let i = 0; i < RUNS; i++) onLine.push(await runGenerate(['--force'], env));
  console.log(
    `  Node ${line.version.padEnd(9)} ${String(Math.round(median(onLine.map((r) => r.totalMs)))).padStart(6)} ms  (whole command; pipeline ${Math.round(median(onLine.map((r) => r.steps.get('done') ?? 0)))} ms)`,
  );
}
if (lines.length > 0) console.log('');

console.log('Prism mock (autocannon, 10 connections, 10 s each)');
const mock = await benchMock();
console.log(`  GET  ${Math.round(mock.get.rps)} req/s, p99 ${mock.get.p99} ms`);
console.log(`  POST ${Math.round(mock.post.rps)} req/s, p99 ${mock.post.p99} ms (with request validation)\n`);

console.log(
  'sandbox (npm run sandbox; autocannon, 10 connections, 10 s each; GET: median of 3 rounds alternating with bare node:http)',
);
const sandbox = await benchSandbox();
const pct = (a: number, b: number) => `${Math.round((a / b) * 100)} %`;
const line = (label: string, f: { rps: number; p99: number }) =>
  `  ${label.padEnd(34)} ${String(Math.round(f.rps)).padStart(6)} req/s, p99 ${f.p99} ms`;
console.log(line('bare node:http, fixed JSON', sandbox.bare));
console.log(
  `${line('GET a payment, SQLite', sandbox.sqlite.get)}   ${pct(sandbox.sqlite.get.rps, sandbox.bare.rps)} of bare node:http (target ≥ 50 %; p99 target ≤ 5 ms)`,
);
console.log(
  `${line('POST a payment, SQLite', sandbox.sqlite.post)}   ${(sandbox.sqlite.post.rps / mock.post.rps).toFixed(1)}× Prism's POST (target ≥ 5×; p99 target ≤ 5 ms)`,
);
console.log(
  `${line('  the same without Idempotency-Key', sandbox.sqlite.postWithoutKey)}   ${(sandbox.sqlite.postWithoutKey.rps / mock.post.rps).toFixed(1)}× (what the key's claim and record cost)`,
);
console.log(
  `${line('  floor: its storage work alone', sandbox.floor)}   ${(sandbox.floor.rps / mock.post.rps).toFixed(1)}× (bench/floor-server.ts: the most a create reaches here; the sandbox's POST is ${pct(sandbox.sqlite.post.rps, sandbox.floor.rps)} of it)`,
);
if (sandbox.postgres) {
  console.log(line('GET a payment, PostgreSQL', sandbox.postgres.get));
  console.log(
    `${line('POST a payment, PostgreSQL', sandbox.postgres.post)}   ${pct(sandbox.postgres.post.rps, sandbox.sqlite.post.rps)} of SQLite's POST (target ≥ 2500 req/s and ≥ 40 %; p99 target ≤ 10 ms)`,
  );
}
console.log(
  `  resident memory after ${sandbox.sqlite.rssAfterPayments.payments} payments (SQLite): ${sandbox.sqlite.rssAfterPayments.mb} MB (target ≤ 200 MB)\n`,
);

console.log('client SDK');
const client = await benchClient();
console.log(
  `  per-call overhead vs the equivalent raw fetch (with the same timeout signal): ${client.overheadPct.toFixed(1)} % (client ${client.clientMedianUs.toFixed(0)} µs, fetch ${client.fetchMedianUs.toFixed(0)} µs median; target ≤ 5 %)`,
);
console.log(
  `  vs bare fetch without a signal: ${client.overheadVsBareFetchPct.toFixed(1)} %; with abortOnTimeout: false: ${client.noAbortOverheadPct.toFixed(1)} %`,
);
console.log(
  `  client entry, minified + gzipped: ${(client.sizeMinGzipBytes / 1024).toFixed(1)} kB besides openapi-fetch (${(client.openapiFetchMinGzipBytes / 1024).toFixed(1)} kB); target ≤ 10 kB`,
);

console.log('\nnpm run generate -- --watch (a child process on a copy of the project)');
console.log(formatWatchBench(await benchWatch(10)));

console.log('\npayment-verify (npm run pack:verify, installed alone, npx payment-verify against a fresh sandbox)');
console.log(formatVerifyBench(await benchVerify()));

console.log(
  '\n@payment-service/sandbox (npm run pack:sandbox with the SDK, installed alone; the admin calls of a test worker)',
);
console.log(formatSandboxPackageBench(await benchSandboxPackage()));
