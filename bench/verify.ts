// The contract verifier as its users get and run it: `npm run pack:verify` into a temporary folder,
// the tarball installed alone into a project made by `npm init -y` (npm's cache preferred; the
// packages it brings counted, its node_modules measured with du), then `npx payment-verify` from that
// project, RUNS times, each against a fresh sandbox process (`npm run sandbox` on a SQLite file of its
// own, with two merchants and their webhook secrets) with what a full run takes: both merchants, the
// first one's webhook secret, --hosted, the live root and a JSON report. Each run's wall clock is the
// whole command (npx and Node's start-up included); its own duration, requests, verdicts and coverage
// come from its report. Every process runs in a group of its own and is stopped at the end.
// Called by scripts/bench.ts; alone: `npx tsx bench/verify.ts`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../generator/support/paths.js';
import { killGroup } from '../tooling/process/groups.js';
import { startSandboxProcess } from '../tooling/process/sandbox-command.js';

export const RUNS = 3;

export interface VerifyRun {
  /** The whole command, from spawning npx to its exit. */
  wallMs: number;
  /** The run's own duration, from its report (the checks alone). */
  durationMs: number;
  exitCode: number | null;
  requests: number;
  passed: number;
  failed: number;
  skipped: number;
  coveragePercent: number;
  /** (operation, status) pairs seen, of those a client can provoke. */
  covered: number;
  reachable: number;
  missing: string[];
  /** Each check that sends requests, with the time from its start to the next one's (its progress lines). */
  stages: Array<{ check: string; ms: number }>;
}

export interface VerifyFigures {
  tarballKb: number;
  /** Packages a consumer's `npm install <tarball>` adds, the verifier included. */
  packages: number;
  /** `du -sk node_modules` of that project, in MB. */
  installMb: number;
  installMs: number;
  runs: VerifyRun[];
}

const ENV = { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false' };

/** `command args…` to its end, in a group of its own; `onLine` sees each line of its stdout as it comes. */
function run(
  command: string,
  args: string[],
  cwd: string,
  onLine: (line: string) => void = () => {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', fail);
    child.on('close', (code) => {
      killGroup(child.pid!, 'SIGKILL');
      done({ code, out });
    });
  });
}

async function must(command: string, args: string[], cwd: string): Promise<string> {
  const { code, out } = await run(command, args, cwd);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}\n${out.slice(-2000)}`);
  return out;
}

const merchant = (name: string) => ({
  merchantId: `bench_${name}`,
  apiKey: `sk_test_${randomBytes(16).toString('hex')}`,
  webhookSecret: `whsec_${randomBytes(16).toString('hex')}`,
});

export async function benchVerify(runs = RUNS): Promise<VerifyFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-verify-'));
  try {
    const packed = JSON.parse(
      await must('npm', ['run', '--silent', 'pack:verify', '--', '--json', '--destination', dir], REPO_ROOT),
    ) as Array<{ filename: string }>;
    const tarball = join(dir, packed[0]!.filename);
    const project = join(dir, 'project');
    mkdirSync(project);
    await must('npm', ['init', '-y'], project);
    const t0 = performance.now();
    await must('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], project);
    const installMs = performance.now() - t0;
    const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const du = await must('du', ['-sk', 'node_modules'], project);
    const figures: VerifyFigures = {
      tarballKb: Math.round(statSync(tarball).size / 1024),
      packages: Object.keys(lock.packages).filter(Boolean).length,
      installMb: Math.round(Number.parseInt(du, 10) / 102.4) / 10,
      installMs,
      runs: [],
    };
    const [a, b] = [merchant('a'), merchant('b')];
    const merchants = join(dir, 'merchants.json');
    writeFileSync(merchants, JSON.stringify([a, b]));
    for (let i = 0; i < runs; i++) {
      const sandbox = await startSandboxProcess({ database: join(dir, `sandbox-${i}.db`), merchantsFile: merchants });
      try {
        const report = join(dir, `report-${i}.json`);
        const started = performance.now();
        const marks: Array<{ check: string; at: number }> = [];
        const { code, out } = await run(
          'npx',
          [
            'payment-verify',
            ...['--base-url', `${sandbox.baseUrl}/api/v2`, '--live-base-url', `${sandbox.baseUrl}/live/api/v2`],
            ...['--merchant-id', a.merchantId, '--api-key', a.apiKey],
            ...['--second-merchant-id', b.merchantId, '--second-api-key', b.apiKey],
            ...['--webhook-secret', a.webhookSecret, '--hosted', '--json', report],
          ],
          project,
          (line) => {
            const stage = /^([a-z-]+)…$/.exec(line)?.[1];
            if (stage) marks.push({ check: stage, at: performance.now() });
            else if (line.startsWith('check ') && marks.length > 0)
              marks.push({ check: '(end)', at: performance.now() });
          },
        );
        const wallMs = performance.now() - started;
        let parsed: {
          summary: { durationMs: number; requests: number; passed: number; failed: number; skipped: number };
          coverage: { percent: number; reachable: string[]; missing: string[] };
        };
        try {
          parsed = JSON.parse(readFileSync(report, 'utf8'));
        } catch {
          throw new Error(`payment-verify exited with ${code} and wrote no report\n${out.slice(-2000)}`);
        }
        const { summary, coverage } = parsed;
        figures.runs.push({
          wallMs,
          durationMs: summary.durationMs,
          exitCode: code,
          requests: summary.requests,
          passed: summary.passed,
          failed: summary.failed,
          skipped: summary.skipped,
          coveragePercent: coverage.percent,
          covered: coverage.reachable.length - coverage.missing.length,
          reachable: coverage.reachable.length,
          missing: coverage.missing,
          stages: marks.slice(0, -1).map((m, k) => ({ check: m.check, ms: marks[k + 1]!.at - m.at })),
        });
      } finally {
        await sandbox.stop();
      }
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Each stage's median time over the runs, slowest first. */
function stageMedians(f: VerifyFigures): string {
  const checks = [...new Set(f.runs.flatMap((r) => r.stages.map((s) => s.check)))];
  return checks
    .map((check) => ({
      check,
      ms: median(f.runs.map((r) => r.stages.find((s) => s.check === check)?.ms ?? 0)),
    }))
    .sort((x, y) => y.ms - x.ms)
    .map(({ check, ms }) => `${check} ${(ms / 1000).toFixed(1)} s`)
    .join(', ');
}

/** The lines `npm run bench` prints. */
export function formatVerifyBench(f: VerifyFigures): string {
  const last = f.runs.at(-1)!;
  const wall = median(f.runs.map((r) => r.wallMs));
  return [
    `  package: tarball ${f.tarballKb} kB; npm install <tarball> into a fresh project: ${f.packages} packages (the verifier and its dependencies), ${f.installMb} MB node_modules, ${(f.installMs / 1000).toFixed(1)} s`,
    `  a whole run (both merchants, webhook secret, --hosted, live root), median of ${f.runs.length}: ${(wall / 1000).toFixed(1)} s wall clock (target < 30 s: ${wall < 30_000 ? 'met' : 'not met'}), checks ${(median(f.runs.map((r) => r.durationMs)) / 1000).toFixed(1)} s`,
    `  each: ${f.runs.map((r) => `${(r.wallMs / 1000).toFixed(1)} s (exit ${r.exitCode}, ${r.requests} requests, ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped)`).join('; ')}`,
    `  where a run's time goes (median): ${stageMedians(f)}`,
    `  coverage: ${last.coveragePercent} % (${last.covered} of ${last.reachable} (operation, status) pairs a client can provoke); not seen: ${last.missing.join(', ') || 'none'}`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log('payment-verify (npm run pack:verify, installed alone, npx payment-verify against a fresh sandbox)');
  console.log(formatVerifyBench(await benchVerify()));
}
