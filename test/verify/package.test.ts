import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../packages/verify/src/types.js';
import { startSandboxProcess } from '../../tooling/process/sandbox-command.js';
import { freePort, type ServerProcess } from '../../tooling/process/server-process.js';
import {
  compileConsumer,
  declarationImportsOutside,
  freshProject,
  installedPackages,
  packed,
  ROOT,
  run,
  toolchainAmong,
} from '../support/packed.js';
import { sharedMockCommand } from '../support/prism.js';

const NAME = '@payment-service/contract-verify';
const MANIFEST = JSON.parse(await readFile(join(ROOT, 'packages', 'verify', 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const CHECKS: readonly string[] = CHECK_NAMES;

const merchant = (name: string) => ({
  merchantId: `verify_${name}`,
  apiKey: `sk_test_${randomBytes(16).toString('hex')}`,
  webhookSecret: `whsec_${randomBytes(16).toString('hex')}`,
});
const A = merchant('a');
const B = merchant('b');
const SECRETS = [A.apiKey, B.apiKey, A.webhookSecret, B.webhookSecret].flatMap((s) => [
  s,
  Buffer.from(`verify_a:${s}`).toString('base64'),
  Buffer.from(`verify_b:${s}`).toString('base64'),
]);

const verifyIn = (cwd: string, args: string[]) => run('npx', ['payment-verify', ...args], cwd);

let dir: string;
let project: string;
let tarball: string;
let files: string[];
let sandbox: ServerProcess | undefined;
/** The run's `npm run mock`: the verifier only sends it requests. */
const mockBaseUrl = await sharedMockCommand();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-package-'));
  project = join(dir, 'project');
  const merchants = join(dir, 'merchants.json');
  await writeFile(merchants, JSON.stringify([A, B]));
  const installed = (async () => {
    ({ tarball, files } = await packed('verify'));
    await freshProject(project, [tarball]);
  })();
  // Started while it packs; stopped in afterAll whatever happened here.
  const server = startSandboxProcess({ database: ':memory:', merchantsFile: merchants }).then((s) => (sandbox = s));
  const settled = await Promise.allSettled([installed, server]);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
}, 240_000);

afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed verifier', () => {
  it('holds the bundled command and library, their declarations, the contract and its workflows, README and LICENSE, and nothing of src/', async () => {
    const workflows = readdirSync(join(ROOT, 'arazzo'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `dist/arazzo/${f}`);
    expect(workflows.length).toBeGreaterThanOrEqual(5);
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/cli.js',
      'dist/cli.d.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/types.d.ts',
      'dist/reports.d.ts',
      'dist/openapi.json',
      ...workflows,
    ].sort();
    expect(files).toEqual(expected);
    const readme = await run('tar', ['-xzf', tarball, '-O', 'package/README.md'], dir);
    expect(readme.code, readme.stderr).toBe(0);
    expect(readme.stdout).toBe(await readFile(join(ROOT, 'packages', 'verify', 'README.md'), 'utf8'));
    expect(readme.stdout).toMatch(/^# @payment-service\/contract-verify\n/);
  });

  it('ships declarations that import only one another and its declared packages', async () => {
    expect(await declarationImportsOutside(project, NAME, files)).toEqual([]);
  });

  it('installs alone from the tarball: its dependencies from the registry, none of the toolchain', async () => {
    const installed = join(project, 'node_modules');
    const names = await installedPackages(project);
    expect(names).toContain(NAME);
    for (const dependency of Object.keys(MANIFEST.dependencies)) expect(names).toContain(dependency);
    // none of the toolchain's packages (the verifier's own dependencies aside), nor the SDK
    expect(await toolchainAmong(names, Object.keys(MANIFEST.dependencies))).toEqual([]);
    expect(names).not.toContain('@payment-service/api-v2');
    const manifest = JSON.parse(await readFile(join(installed, NAME, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ 'payment-verify': './dist/cli.js' });
    // its version is the version of the contract it carries
    const contract = JSON.parse(await readFile(join(installed, NAME, 'dist', 'openapi.json'), 'utf8')) as {
      info: { version: string };
    };
    expect(manifest.version).toBe(contract.info.version);
    expect(readdirSync(join(installed, '.bin'))).toContain('payment-verify');
  });

  it.concurrent('npx payment-verify against a fresh sandbox with two merchants and a webhook secret: every check runs and passes, both reports written, no credential in them', async ({
    expect,
  }) => {
    const out = await verifyIn(project, [
      ...['--base-url', `${sandbox!.baseUrl}/api/v2`],
      ...['--merchant-id', A.merchantId, '--api-key', A.apiKey],
      ...['--second-merchant-id', B.merchantId, '--second-api-key', B.apiKey],
      ...['--webhook-secret', A.webhookSecret, '--hosted'],
      ...['--junit', 'r.xml', '--markdown', 'r.md'],
    ]);
    expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(0);
    expect(out.stderr).not.toContain('payment-verify:');
    expect(out.stdout).toMatch(/^coverage: [\d.]+ % of \d+ \(operation, status\) pairs/m);
    const junit = await readFile(join(project, 'r.xml'), 'utf8');
    const markdown = await readFile(join(project, 'r.md'), 'utf8');
    expect(junit).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="payment-verify" tests="\d+" failures="0"/,
    );
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).toEqual(CHECKS);
    expect(markdown).toMatch(/^# payment-verify: ✅ the server keeps the contract\n/);
    // every check ran: each passed at least once, none failed
    const rows = Object.fromEntries(
      [...markdown.matchAll(/^\| `([a-z-]+)` \| (\d+) \| (\d+) \|/gm)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
    );
    expect(Object.keys(rows)).toEqual(CHECKS);
    for (const [check, [passed, failed]] of Object.entries(rows)) {
      expect(passed, check).toBeGreaterThan(0);
      expect(failed, check).toBe(0);
    }
    for (const text of [junit, markdown, out.stdout, out.stderr])
      for (const secret of SECRETS) expect(text).not.toContain(secret);
  }, 180_000);

  it.concurrent('npx payment-verify against npm run mock: exit 1, and stderr says why in words', async ({ expect }) => {
    const out = await verifyIn(project, [
      ...['--base-url', mockBaseUrl],
      ...['--merchant-id', A.merchantId, '--api-key', A.apiKey],
      ...['--second-merchant-id', B.merchantId, '--second-api-key', B.apiKey],
      ...['--markdown', 'mock.md'],
    ]);
    expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(1);
    // A mock answers from examples: it keeps no state, takes any key and refuses nothing the examples cover.
    expect(out.stderr).toMatch(
      /^payment-verify: the server breaks the contract: \d+ failed \((?=.*\bisolation \d+)(?=.*\bnegative-rejection \d+)[^)]*\)$/m,
    );
    expect(await readFile(join(project, 'mock.md'), 'utf8')).toMatch(
      /^# payment-verify: ❌ the server breaks the contract\n/,
    );
  }, 180_000);

  it.concurrent('exits 2 on bad arguments and when nothing answers, saying which', async ({ expect }) => {
    const missing = await verifyIn(project, ['--merchant-id', A.merchantId, '--api-key', A.apiKey]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('payment-verify: --base-url is required');
    const closed = `http://127.0.0.1:${await freePort()}/api/v2`;
    const silent = await verifyIn(project, [
      '--base-url',
      closed,
      '--merchant-id',
      A.merchantId,
      '--api-key',
      A.apiKey,
    ]);
    expect(silent.code).toBe(2);
    expect(silent.stderr).toContain(`payment-verify: no answer from ${closed}`);
  });

  it.concurrent("compiles a TypeScript consumer and the package README's example with --strict (module nodenext)", async ({
    expect,
  }) => {
    const readme = await readFile(join(project, 'node_modules', NAME, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const sources: Record<string, string> = {
      'consumer.mts': `import { verify, type VerifyReport } from '${NAME}';
import { CHECK_NAMES, type CheckResult, type VerifyOptions, VerifyUsageError } from '${NAME}';

const options: VerifyOptions = { baseUrl: 'http://127.0.0.1:4020/api/v2', merchantId: 'shop_a', apiKey: 'key', checks: ['auth'] };
export async function failures(): Promise<CheckResult[] | 'usage'> {
  try {
    const report: VerifyReport = await verify(options);
    return report.summary.exitCode === 0 ? [] : report.results.filter((r) => r.outcome === 'failed');
  } catch (error) {
    if (error instanceof VerifyUsageError) return 'usage';
    throw error;
  }
}
export const checks: readonly string[] = CHECK_NAMES;
// @ts-expect-error a check the verifier does not know
export const wrong: VerifyOptions = { ...options, checks: ['no-such-check'] };
`,
      ...Object.fromEntries(
        blocks.map((block, i) => [
          `readme-${i}.mts`,
          `declare const process: { env: Record<string, string | undefined> };\n${block}\nexport {};\n`,
        ]),
      ),
    };
    const compile = await compileConsumer(project, join(dir, 'typescript'), sources);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.code).toBe(0);
  }, 120_000);
});
