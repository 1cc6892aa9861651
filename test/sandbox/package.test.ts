// @payment-service/sandbox as a front-end or back-end team meets it, from its own repository:
// `npm run pack:sandbox` and `npm run pack:sdk`, both tarballs installed alone into a project made by
// `npm init -y` outside this repository (their dependencies from the registry; no toolchain package,
// no native SQLite build, no PostgreSQL driver among them). Then, as the package README tells:
// `npx payment-sandbox --port 0` serves on the port it took and `npx payment-sandbox trigger
// checkout.paid` plays a checkout against it; a Vitest suite of the project's own (vitest installed
// there) whose global setup runs `startSandbox()` and whose four files, in four workers at once, each
// create a merchant through `connectSandbox()` and drive it with the SDK: the same transId in every
// worker is a new payment (no worker sees another's data), created, captured and refunded; and a
// TypeScript consumer compiles against the declarations with --strict; in process, a Vitest file of
// the project (msw installed there), under Node's globals and under jsdom's, drives createSandbox()
// behind msw/node with the SDK, creating, capturing and refunding a payment and receiving a
// checkout's signed webhook, with listening and connecting made to throw; in a Chromium page, the same behind msw/browser's service worker with
// the package's browser build (bundled by esbuild as a team's bundler would, SQLite's WebAssembly
// fetched by the page); and payment-verify, installed from its own tarball, passes against a
// startSandbox() with two merchants. One pack each, one install.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killGroup } from '../../tooling/process/groups.js';
import { connectBrowser } from '../support/browser.js';
import { nodeLines, runOn } from '../support/node-lines.js';
import {
  CHECK_DECLARATIONS,
  declarationImportsOutside,
  freshProject,
  installedPackages,
  npm,
  packed,
  ROOT,
  type Run,
  run,
  runTsc,
  toolchainAmong,
} from '../support/packed.js';

const NAME = '@payment-service/sandbox';
const MANIFEST = JSON.parse(await readFile(join(ROOT, 'packages', 'sandbox', 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const VITEST = (
  JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies.vitest!;
const MSW = (
  JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies.msw!;
/** The DOM a component test runs under (the consumer's own; not a dependency of this repository). */
const JSDOM = '26.1.0';

let dir: string;
let project: string;
let files: string[];
/** The packages the two tarballs brought, before the project added vitest of its own. */
let installed: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-package-'));
  project = join(dir, 'project');
  const [sandbox, sdk, verify] = await Promise.all([packed('sandbox'), packed('sdk'), packed('verify')]);
  files = sandbox.files;
  await freshProject(project, [sandbox.tarball, sdk.tarball], { type: 'module' });
  installed = await installedPackages(project);
  const size = await run('du', ['-sm', join(project, 'node_modules')], project);
  console.log(`${NAME} with the SDK: ${installed.length} packages, ${size.stdout.split('\t')[0]} MB`);
  const dev = await npm(
    ['install', '--save-dev', `vitest@${VITEST}`, `msw@${MSW}`, `jsdom@${JSDOM}`, verify.tarball],
    project,
    180_000,
  );
  expect(dev.code, dev.stderr).toBe(0);
  await writeProjectFiles();
}, 400_000);

/** The project's own tests and scripts (the Vitest suites, payment-verify's run), as a team writes them. */
async function writeProjectFiles(): Promise<void> {
  const texts: Record<string, string> = {
    'vitest.config.mjs': VITEST_CONFIG,
    'global-setup.mjs': GLOBAL_SETUP,
    'merchant-per-worker.mjs': MERCHANT_PER_WORKER,
    'vitest.in-process.config.mjs': IN_PROCESS_CONFIG,
    'no-sockets.mjs': NO_SOCKETS,
    'in-process.test.mjs': IN_PROCESS_TEST,
    'verified.mjs': VERIFIED,
  };
  for (const n of [1, 2, 3, 4]) texts[`checkout-${n}.test.mjs`] = `import './merchant-per-worker.mjs';\n`;
  for (const [name, text] of Object.entries(texts)) await writeFile(join(project, name), text);
}

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed sandbox', () => {
  it('holds the bundled command and Node API, their declarations, the two documents, the data file schema and SQLite in WebAssembly, and nothing of src/', () => {
    for (const file of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/cli.js',
      'dist/cli.d.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/browser.d.ts',
      'dist/types.d.ts',
      'dist/openapi.json',
      'dist/admin-openapi.yaml',
      'dist/admin-openapi.json',
      'dist/data.schema.json',
      'dist/sql-wasm.wasm',
    ])
      expect(files).toContain(file);
    expect(
      files.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f)),
    ).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs alone next to the SDK: its dependencies from the registry, none of the toolchain, no native SQLite, no pg', async () => {
    expect(installed).toContain(NAME);
    expect(installed).toContain('@payment-service/api-v2');
    for (const dependency of Object.keys(MANIFEST.dependencies)) expect(installed).toContain(dependency);
    expect(await toolchainAmong(installed, Object.keys(MANIFEST.dependencies))).toEqual([]);
    expect(installed).not.toContain('better-sqlite3');
    expect(installed).not.toContain('pg');
    const manifest = JSON.parse(await readFile(join(project, 'node_modules', NAME, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ 'payment-sandbox': './dist/cli.js' });
    expect(manifest.version).toBe(MANIFEST.version);
  });

  it('npx payment-sandbox --port 0 serves on the port it took (in memory, nothing written but its CLI file), trigger checkout.paid plays a checkout against it, and seed --data loads a data file (a bad one named at its line)', async () => {
    const server = spawn('npx', ['payment-sandbox', '--port', '0'], {
      cwd: project,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const closed = new Promise((r) => server.once('close', r));
    try {
      let out = '';
      server.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      server.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      const deadline = Date.now() + 60_000;
      while (!/Ctrl-C stops it/.test(out) && server.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const root = /test root {4}(http:\/\/127\.0\.0\.1:(\d+)\/api\/v2)/.exec(out);
      expect(root, out).not.toBeNull();
      expect(Number(root![2])).toBeGreaterThan(0);
      expect(out).toMatch(/database {5}:memory: \(sqlite\), secret from this process/);
      expect(out).toMatch(/\(payment-sandbox seed \| reset/);
      expect((await fetch(`${root![1]}/customers`)).status).toBe(401);

      const trigger = await run('npx', ['payment-sandbox', 'trigger', 'checkout.paid'], project);
      expect(trigger.code, trigger.stderr).toBe(0);
      expect(trigger.stdout).toMatch(/CAPTURED/);
      const json = await run('npx', ['payment-sandbox', 'trigger', 'payment.refunded', '--json'], project);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ event: 'payment.refunded' });

      // A team's own fixtures: the example data file loads; a bad one is named at its line, exit 1.
      await copyFile(join(ROOT, 'sandbox', 'admin', 'examples', 'data.yaml'), join(project, 'data.yaml'));
      const seeded = await run('npx', ['payment-sandbox', 'seed', '--data', 'data.yaml'], project);
      expect(seeded.code, seeded.stderr).toBe(0);
      expect(seeded.stdout).toMatch(/ORDER-2001/);
      await writeFile(
        join(project, 'bad.yaml'),
        'payments:\n  - amount: { value: 1, currency: eur }\n    state: CAPTURED\n',
      );
      const refused = await run('npx', ['payment-sandbox', 'seed', '--data', 'bad.yaml'], project);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/bad\.yaml:2:\d+ \/payments\/0\/amount\/currency: must match pattern/);
    } finally {
      killGroup(server.pid!, 'SIGTERM');
      await closed;
    }
    expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))).not.toHaveProperty('scripts.sandbox');
  }, 120_000);

  it("a Vitest suite of the project's own: startSandbox() in its global setup, a merchant per worker through connectSandbox(), four workers at once, none sees another's data", async () => {
    const suite = await run('npx', ['vitest', 'run', '--reporter', 'verbose'], project, { timeoutMs: 120_000 });
    expect(suite.code, `${suite.stdout}\n${suite.stderr}`).toBe(0);
    expect(suite.stdout).toMatch(/Test Files {2}4 passed \(4\)/);
    expect(suite.stdout).toMatch(/Tests {2}12 passed \(12\)/);
    // Four workers ran at once: each file printed its worker id, and they differ.
    const workers = new Set(
      [...suite.stdout.matchAll(/worker (\d+) merchant (merchant_[0-9a-f]{16})/g)].map((m) => m[1]),
    );
    expect(workers.size).toBe(4);
  }, 180_000);

  it('createSandbox() behind msw/node with the SDK (its client made before MSW started), under Node and under jsdom: a payment created, captured and refunded and a checkout’s signed webhook received, no socket opened', async () => {
    expectInProcessSuite(
      await run('npx', ['vitest', 'run', '--config', 'vitest.in-process.config.mjs'], project, { timeoutMs: 120_000 }),
    );
  }, 180_000);

  it('createSandbox() in a Chromium page behind msw/browser (its service worker), with the SDK made before the worker started: a payment created, captured and refunded and a checkout’s signed webhook received', async () => {
    const www = join(project, 'www');
    await mkdir(www, { recursive: true });
    await writeFile(join(project, 'page.mjs'), BROWSER_PAGE);
    // As a team's bundler builds the page: the packages' `browser` conditions, everything bundled.
    await build({
      entryPoints: [join(project, 'page.mjs')],
      outfile: join(www, 'page.js'),
      absWorkingDir: project,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      logLevel: 'error',
    });
    const modules = join(project, 'node_modules');
    await copyFile(join(modules, NAME, 'dist', 'browser', 'sql-wasm-browser.wasm'), join(www, 'sql-wasm-browser.wasm'));
    await copyFile(join(modules, 'msw', 'lib', 'mockServiceWorker.js'), join(www, 'mockServiceWorker.js'));
    await writeFile(
      join(www, 'index.html'),
      '<!doctype html><title>checkout</title><script type="module" src="/page.js"></script>',
    );
    const server = await serveStatic(www);
    const browser = await connectBrowser();
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => (globalThis as { result?: unknown }).result !== undefined, undefined, {
        timeout: 60_000,
      });
      const result = await page.evaluate(() => (globalThis as { result?: Record<string, unknown> }).result);
      expect(result).toEqual({
        controlled: true,
        created: 'AUTHORIZED',
        refunded: 'PARTIALLY_REFUNDED',
        notified: 'CAPTURED',
        refusedStatus: 422,
      });
    } finally {
      await browser.close();
      server.close();
    }
  }, 120_000);

  it('payment-verify (its own tarball) passes against startSandbox() with two merchants: every check, exit 0', async () => {
    expectVerified(await run(process.execPath, ['verified.mjs'], project, { timeoutMs: 150_000 }));
  }, 180_000);

  for (const line of nodeLines())
    describe(`on Node ${line.version}, a line its users run`, () => {
      it('createSandbox() behind msw/node with the SDK, under Node and under jsdom: the same suite passes', async () => {
        const versions = await runOn(line, 'npx', ['--no-install', 'node', '--version'], project);
        expect(versions.stdout.trim(), 'npx runs the line’s node').toBe(line.version);
        expectInProcessSuite(
          await runOn(line, 'npx', ['vitest', 'run', '--config', 'vitest.in-process.config.mjs'], project, {
            timeoutMs: 120_000,
          }),
        );
      }, 180_000);

      it(`payment-verify passes against startSandbox() (its process on this Node too): ${LINE_CHECKS}, exit 0`, async () => {
        const out = await runOn(line, 'node', ['verified.mjs'], project, {
          timeoutMs: 150_000,
          env: { VERIFY_CHECKS: LINE_CHECKS },
        });
        expectVerified(out, line.version);
      }, 180_000);
    });

  it('startSandbox({ seed, now }) twice: the same demo merchant, the same created merchant, the clock at the instant', async () => {
    await writeFile(join(project, 'seeded.mjs'), SEEDED);
    const out = await run(process.execPath, ['seeded.mjs'], project, { timeoutMs: 60_000 });
    expect(out.code, out.stderr).toBe(0);
    const [first, second] = JSON.parse(out.stdout) as Array<{
      merchants: unknown;
      created: unknown;
      clock: { now: string };
    }>;
    expect(second).toEqual(first);
    expect(first!.merchants).toEqual([expect.objectContaining({ merchantId: 'demo_merchant' })]);
    expect(first!.created).toMatchObject({ merchantId: expect.stringMatching(/^merchant_[0-9a-f]{16}$/) });
    expect(first!.clock.now).toBe('2026-03-01T09:00:00.000Z');
  }, 90_000);

  /**
   * tsc --strict with `flags` on `text` written to `file` in the project: its exit code and output.
   * The installed packages' declarations are checked too, as in every package test
   * (CHECK_DECLARATIONS: TypeScript's default), TypeScript's own lib files not.
   */
  const typeCheck = (flags: string[]) => async (file: string, text: string) => {
    await writeFile(join(project, file), text);
    const declarations = Object.entries(CHECK_DECLARATIONS).flatMap(([option, on]) => [`--${option}`, String(on)]);
    const strict = ['--strict', '--noEmit', ...declarations, '--target', 'es2022'];
    return runTsc([...strict, ...flags, file], project);
  };

  it('ships declarations that import only one another and its declared packages', async () => {
    expect(await declarationImportsOutside(project, NAME, files)).toEqual([]);
  });

  it('compiles a TypeScript consumer with --strict against its declarations', async () => {
    const check = typeCheck(['--module', 'nodenext', '--moduleResolution', 'nodenext']);
    const compiled = await check('consumer.ts', TS_CONSUMER);
    expect(compiled.code, compiled.stdout).toBe(0);
    const refused = await check(
      'wrong.ts',
      `${TS_CONSUMER}\nconst wrong: string = (await startSandbox()).merchants;\n`,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(/wrong\.ts.*TS2322/);
  }, 60_000);

  it("types a page's code by the browser build's declarations under the browser condition: no startSandbox there", async () => {
    const check = typeCheck([
      ...['--lib', 'es2023,dom,dom.iterable', '--module', 'esnext', '--moduleResolution', 'bundler'],
      ...['--customConditions', 'browser'],
    ]);
    const compiled = await check('page.ts', PAGE_CONSUMER);
    expect(compiled.code, compiled.stdout).toBe(0);
    const refused = await check(
      'page-node-only.ts',
      `import { startSandbox } from '@payment-service/sandbox';\nexport const started = startSandbox;\n`,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(
      /page-node-only\.ts.*TS2305: Module '"@payment-service\/sandbox"' has no exported member 'startSandbox'/,
    );
  }, 60_000);
});

/**
 * The verifier's checks on the other Node lines: the sandbox's process and the verifier's code on that
 * Node through a payment's life, its webhooks (signed, the hosted page paid) and two merchants kept
 * apart; every check runs once, on the suite's Node.
 */
const LINE_CHECKS = 'lifecycle,webhooks,isolation';

/** The project's in-process suite (vitest.in-process.config.mjs): its four tests passed. */
function expectInProcessSuite(suite: Run): void {
  expect(suite.code, `${suite.stdout}\n${suite.stderr}`).toBe(0);
  expect(suite.stdout).toMatch(/Tests {2}4 passed \(4\)/);
}

/** verified.mjs's report: payment-verify passed every check against startSandbox() on the `node` it ran on. */
function expectVerified(out: Run, node = process.version): void {
  expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(0);
  const report = JSON.parse(out.stdout) as { node: string; sandboxNode: string; code: number; summary: string };
  expect(report.code, report.summary).toBe(0);
  expect(report.summary).toMatch(/^# payment-verify: ✅ the server keeps the contract/);
  expect([report.node, report.sandboxNode]).toEqual([node, node]);
}

const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./global-setup.mjs'],
    include: ['checkout-*.test.mjs'],
    pool: 'forks',
    maxWorkers: 4,
  },
});
`;

const GLOBAL_SETUP = `import { startSandbox } from '@payment-service/sandbox';

export default async function setup(project) {
  const sandbox = await startSandbox();
  project.provide('sandbox', { origin: sandbox.origin, adminKey: sandbox.adminKey });
  return () => sandbox.stop();
}
`;

const MERCHANT_PER_WORKER = `import { createPaymentClient } from '@payment-service/api-v2';
import { connectSandbox } from '@payment-service/sandbox';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

const { origin, adminKey } = inject('sandbox');
const admin = connectSandbox({ origin, adminKey });
let merchant;
let client;

beforeAll(async () => {
  merchant = await admin.createMerchant();
  console.log(\`worker \${process.env.VITEST_POOL_ID} merchant \${merchant.merchantId}\`);
  client = createPaymentClient({ merchantId: merchant.merchantId, apiKey: merchant.apiKey, baseUrl: \`\${origin}/api/v2\` });
});
afterAll(() => admin.deleteMerchant(merchant.merchantId));

// The same transId in every worker: with a merchant each, each is a new payment.
const transId = 'ORD-2026-000123';

it('creates, captures and refunds a payment of its own merchant', async () => {
  const payment = await client.payments.create({
    transId,
    amount: { value: 11900, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  });
  expect((await client.payments.retrieve(payment.payId)).state).toBe('AUTHORIZED');
  await client.payments.capture(payment.payId, { transId: \`\${transId}-CAP1\`, amount: { value: 11900, currency: 'EUR' } });
  await client.payments.refund(payment.payId, { transId: \`\${transId}-RFD1\`, amount: { value: 2500, currency: 'EUR' } });
  const details = await client.payments.retrieveByTransId(transId);
  expect(details.payId).toBe(payment.payId);
  expect(details.state).toBe('PARTIALLY_REFUNDED');
});

it('restores its snapshot: the payment as it was before the capture', async () => {
  const payment = await client.payments.create({
    transId: 'ORD-2026-000200',
    amount: { value: 4990, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  });
  const snapshotId = await admin.snapshot({ merchantId: merchant.merchantId, environment: 'test' });
  await client.payments.capture(payment.payId, { transId: 'ORD-2026-000200-CAP1', amount: { value: 4990, currency: 'EUR' } });
  expect((await client.payments.retrieve(payment.payId)).state).toBe('CAPTURED');
  await admin.restore(snapshotId);
  expect((await client.payments.retrieve(payment.payId)).state).toBe('AUTHORIZED');
});

it('starts empty and sees nothing of the demo merchant or the other workers', async () => {
  const customers = await client.customers.list();
  expect(customers.totalNumberOfItems).toBe(0);
  const demoPayment = await client.payments.retrieve('2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c').catch((e) => e);
  expect(demoPayment.status).toBe(404);
});
`;

// The verifier as the team that implements the service runs it, here against the packaged sandbox.
const VERIFIED = `import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startSandbox } from '@payment-service/sandbox';

const merchant = (name) => ({
  merchantId: name,
  apiKey: \`sk_test_\${randomBytes(16).toString('hex')}\`,
  webhookSecret: \`whsec_\${randomBytes(16).toString('hex')}\`,
});
const [a, b] = [merchant('verify_a'), merchant('verify_b')];
const sandbox = await startSandbox({ merchants: [a, b] });
try {
  // the Node the sandbox's process runs on: the first word of its command line
  const children = spawnSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout;
  const sandboxExe = children.split('\\n').find((line) => line.includes('cli.js'))?.split(' ')[0];
  const sandboxNode = sandboxExe && spawnSync(sandboxExe, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const run = spawnSync(
    'npx',
    [
      'payment-verify',
      '--base-url', sandbox.baseUrl,
      '--merchant-id', a.merchantId, '--api-key', a.apiKey,
      '--second-merchant-id', b.merchantId, '--second-api-key', b.apiKey,
      '--webhook-secret', a.webhookSecret, '--hosted',
      '--markdown', 'verify.md',
      ...(process.env.VERIFY_CHECKS ? ['--checks', process.env.VERIFY_CHECKS] : []),
    ],
    { encoding: 'utf8' },
  );
  const summary = run.status === null ? run.stderr : readFileSync('verify.md', 'utf8');
  console.log(JSON.stringify({ node: process.version, sandboxNode, code: run.status, summary }));
} finally {
  await sandbox.stop();
}
`;

const SEEDED = `import { startSandbox } from '@payment-service/sandbox';

const runs = [];
for (const round of [1, 2]) {
  const sandbox = await startSandbox({ seed: 42, now: '2026-03-01T09:00:00Z' });
  try {
    const created = await sandbox.createMerchant();
    const clock = await fetch(\`\${sandbox.origin}/_sandbox/clocks/\${created.merchantId}/test\`, {
      headers: { authorization: \`Bearer \${sandbox.adminKey}\` },
    }).then((r) => r.json());
    runs.push({ merchants: sandbox.merchants, created, clock: { now: clock.now } });
  } finally {
    await sandbox.stop();
  }
}
console.log(JSON.stringify(runs));
`;

const IN_PROCESS_CONFIG = `import { defineConfig } from 'vitest/config';

// The same file under Node's globals and under jsdom's (a component test's environment).
const project = (environment) => ({
  test: { name: environment, environment, include: ['in-process.test.mjs'], setupFiles: ['./no-sockets.mjs'] },
});
export default defineConfig({ test: { projects: [project('node'), project('jsdom')] } });
`;

// What "no socket" means, held in the consumer's own suite: listening or connecting throws.
const NO_SOCKETS = `import net from 'node:net';

net.Server.prototype.listen = () => {
  throw new Error('a socket was opened: listen');
};
net.Socket.prototype.connect = () => {
  throw new Error('a socket was opened: connect');
};
`;

const IN_PROCESS_TEST = `import { createPaymentClient } from '@payment-service/api-v2';
import { constructEnhancedNotification } from '@payment-service/api-v2/webhooks';
import { createSandbox } from '@payment-service/sandbox';
import { sandboxHandlers } from '@payment-service/sandbox/msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';

let sandbox;
let merchant;
let client;
let server;
beforeAll(async () => {
  sandbox = await createSandbox();
  merchant = await sandbox.createMerchant();
  client = createPaymentClient({ ...merchant, baseUrl: sandbox.baseUrl });
  server = setupServer(...sandboxHandlers(sandbox));
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(async () => {
  server.close();
  await sandbox.close();
});

it('creates, captures and refunds a payment', async () => {
  const payment = await client.payments.create({
    transId: 'ORD-2026-000123',
    amount: { value: 11900, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  });
  await client.payments.capture(payment.payId, { transId: 'ORD-2026-000123-CAP1', amount: { value: 11900, currency: 'EUR' } });
  await client.payments.refund(payment.payId, { transId: 'ORD-2026-000123-RFD1', amount: { value: 2500, currency: 'EUR' } });
  expect((await client.payments.retrieve(payment.payId)).state).toBe('PARTIALLY_REFUNDED');
});

it('receives the signed webhook of a checkout paid on the hosted page', async () => {
  const received = new Promise((resolve) => {
    sandbox.onWebhook(async (request) => {
      resolve(await constructEnhancedNotification(await request.text(), request.headers, merchant.webhookSecret));
    });
  });
  const session = await client.checkoutSessions.create({
    transId: 'ORD-2026-000124',
    amount: { value: 4990, currency: 'EUR' },
    urls: { return: 'https://shop.test/ok', cancel: 'https://shop.test/cancel', webhook: 'https://shop.test/hooks' },
  });
  await sandbox.hosted.pay(session._links.redirect.href);
  const notification = await received;
  expect((await client.payments.retrieve(notification.payId)).state).toBe('CAPTURED');
});
`;

/** Serves `dir` on 127.0.0.1 and a free port: the page, its bundle, SQLite's WebAssembly, MSW's worker. */
function serveStatic(dir: string): Promise<Server> {
  const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', wasm: 'application/wasm' };
  const server = createServer(async (request, response) => {
    const name = new URL(request.url ?? '/', 'http://page').pathname.slice(1) || 'index.html';
    try {
      if (!/^[\w.-]+$/.test(name)) throw new Error('not a file of the page');
      const body = await readFile(join(dir, name));
      response.writeHead(200, { 'content-type': types[name.split('.').pop()!] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const BROWSER_PAGE = `import { createPaymentClient } from '@payment-service/api-v2';
import { constructEnhancedNotification } from '@payment-service/api-v2/webhooks';
import { createSandbox } from '@payment-service/sandbox';
import { sandboxHandlers } from '@payment-service/sandbox/msw';
import { setupWorker } from 'msw/browser';

async function checkout() {
  // The page's own origin: the sandbox answers there, through the service worker.
  const sandbox = await createSandbox({ origin: location.origin, sqlWasmUrl: '/sql-wasm-browser.wasm' });
  const merchant = await sandbox.createMerchant();
  const client = createPaymentClient({ ...merchant, baseUrl: sandbox.baseUrl, maxAttempts: 1 });
  const worker = setupWorker(...sandboxHandlers(sandbox));
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'error', quiet: true });
  const payment = await client.payments.create({
    transId: 'ORD-2026-000125',
    amount: { value: 11900, currency: 'EUR' },
    captureMethod: { type: 'MANUAL' },
    paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
  });
  const created = (await client.payments.retrieve(payment.payId)).state;
  await client.payments.capture(payment.payId, { transId: 'ORD-2026-000125-CAP1', amount: { value: 11900, currency: 'EUR' } });
  await client.payments.refund(payment.payId, { transId: 'ORD-2026-000125-RFD1', amount: { value: 2500, currency: 'EUR' } });
  const refunded = (await client.payments.retrieve(payment.payId)).state;
  const refused = await client.payments
    .refund(payment.payId, { transId: 'ORD-2026-000125-RFD2', amount: { value: 20000, currency: 'EUR' } })
    .catch((error) => error);
  const received = new Promise((resolve) =>
    sandbox.onWebhook(async (request) =>
      resolve(await constructEnhancedNotification(await request.text(), request.headers, merchant.webhookSecret)),
    ),
  );
  const session = await client.checkoutSessions.create({
    transId: 'ORD-2026-000126',
    amount: { value: 4990, currency: 'EUR' },
    urls: { return: location.origin + '/ok', cancel: location.origin + '/cancel', webhook: 'https://shop.test/hooks' },
  });
  await sandbox.hosted.pay(session._links.redirect.href);
  const notification = await received;
  const notified = (await client.payments.retrieve(notification.payId)).state;
  return { controlled: navigator.serviceWorker.controller !== null, created, refunded, notified, refusedStatus: refused.status };
}

checkout().then(
  (result) => (globalThis.result = result),
  (error) => (globalThis.result = { error: String(error && error.stack ? error.stack : error) }),
);
`;

/** A page's code: the browser build's createSandbox with its WebAssembly's URL, served by msw/browser's worker. */
const PAGE_CONSUMER = `import { connectSandbox, createSandbox, type InProcessSandbox } from '@payment-service/sandbox';
import { sandboxHandlers } from '@payment-service/sandbox/msw';

export async function inPage(): Promise<number> {
  const sqlWasmUrl = new URL('/sql-wasm-browser.wasm', location.href).href;
  const sandbox: InProcessSandbox = await createSandbox({ seed: 1, sqlWasmUrl });
  const handlers = sandboxHandlers(sandbox);
  const admin = connectSandbox({ origin: sandbox.origin, adminKey: 'key' });
  return handlers.length + (typeof admin.createMerchant === 'function' ? 1 : 0);
}
`;

const TS_CONSUMER = `import { connectSandbox, createSandbox, type InProcessSandbox, type RunningSandbox, type SandboxAdmin, SandboxAdminError, startSandbox } from '@payment-service/sandbox';
import { sandboxHandlers } from '@payment-service/sandbox/msw';

export async function inProcess(): Promise<number> {
  const sandbox: InProcessSandbox = await createSandbox({ seed: 1, now: '2026-03-01T09:00:00Z' });
  const stop = sandbox.onWebhook(async (request: Request) => void (await request.text()));
  stop();
  const answer: Response = await sandbox.fetch(new Request(\`\${sandbox.baseUrl}/customers\`));
  await sandbox.hosted.decline('cs_0123456789abcdef').catch(() => undefined);
  await sandbox.close();
  return sandboxHandlers(sandbox, { baseUrl: sandbox.baseUrl }).length + answer.status;
}

export async function workerMerchant(origin: string, adminKey: string) {
  const admin: SandboxAdmin = connectSandbox({ origin, adminKey });
  const merchant = await admin.createMerchant({ examples: false });
  await admin.advanceClock({ merchantId: merchant.merchantId }, { seconds: 3600 });
  await admin.reset({ merchantId: merchant.merchantId, environment: 'test' }, { examples: true });
  const snapshotId: string = await admin.snapshot({ merchantId: merchant.merchantId });
  await admin.restore(snapshotId);
  return merchant.apiKey.length;
}

export async function started(): Promise<string> {
  const sandbox: RunningSandbox = await startSandbox({ port: 0 });
  try {
    return sandbox.baseUrl + sandbox.merchants[0]!.webhookSecret;
  } catch (err) {
    if (err instanceof SandboxAdminError) return String(err.status);
    throw err;
  } finally {
    await sandbox.stop();
  }
}
`;
