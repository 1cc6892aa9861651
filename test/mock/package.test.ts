// payment-mock as a front-end team meets it: `npm run pack:mock` (which builds it and packs a staged
// copy), the tarball's exact file list, and the tarball installed alone into a project made by
// `npm init -y` (Prism and its dependencies from the registry, no package of the toolchain besides
// what Prism itself brings). Then, as the package README tells its users, `npx payment-mock --port 0`
// from that project: the first line names the address it took, an operation answers its documented
// example, a replayed Idempotency-Key gets no `Idempotent-Replayed` (as `npm run mock`:
// test/mock/headers.test.ts), a 401 names the operation's schemes, an allowed origin gets CORS;
// SIGTERM to its process group stops it and Prism's group with it. The Node API, `startMock()`,
// imported by a script that node runs in that project. The README's TypeScript compiles against the
// declarations. The install's size (packages, MB of node_modules) is printed.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengesByOperation } from '../../tooling/openapi/challenges.js';
import { deref, type JsonObject, operationById } from '../../tooling/openapi/walker.js';
import { killGroup } from '../../tooling/process/groups.js';
import { nodeLines, runOn } from '../support/node-lines.js';
import {
  compileConsumer,
  declarationImportsOutside,
  freshProject,
  installedPackages,
  packed,
  ROOT,
  type Run,
  run as runCommand,
} from '../support/packed.js';

const NAME = '@payment-service/mock';
const PRISM = '@stoplight/prism-cli';
const MANIFEST = JSON.parse(await readFile(join(ROOT, 'packages', 'mock', 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const ROOT_MANIFEST = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const LOCK = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};
const BUNDLE = await readFile(join(ROOT, 'generated', 'openapi.json'), 'utf8');
const DOC = JSON.parse(BUNDLE) as JsonObject;

/** The toolchain's own packages: none may come with the package, but those Prism itself depends on. */
const TOOLCHAIN = [
  ...Object.keys(ROOT_MANIFEST.devDependencies).filter((name) => !(name in MANIFEST.dependencies)),
  'playwright',
  '@payment-service/api-v2',
  '@payment-service/contract-verify',
];
const TOOLCHAIN_SCOPES = ['@redocly/', '@vitest/', '@biomejs/', '@esbuild/', '@stoplight/spectral-'];
/** What must never come, whatever Prism depends on: the generators, linters, bundlers, browsers, test runner. */
const NEVER = [
  'esbuild',
  'typescript',
  'tsx',
  'vitest',
  '@redocly/cli',
  '@stoplight/spectral-cli',
  '@biomejs/biome',
  'openapi-typescript',
  'playwright-core',
  '@sparticuz/chromium',
];

const ALLOWED = 'http://localhost:5173';
const basic = `Basic ${Buffer.from('merchant:key').toString('base64')}`;
const PLAN = 'pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P';

/** The first documented example of an operation's 200 (what the mock answers). */
function example(operationId: string): unknown {
  const response = deref<JsonObject>(DOC, (operationById(DOC, operationId).operation.responses as JsonObject)['200']);
  const examples = ((response.content as JsonObject)['application/json'] as JsonObject).examples as JsonObject;
  return deref<JsonObject>(DOC, Object.values(examples)[0]).value;
}

/** Without the CORS origins of the shell that runs the tests: the mock's own defaults. */
const ENV = {
  ...process.env,
  NO_COLOR: '1',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  PAYMENT_API_CORS_ORIGINS: '',
};

/** A command in the project, as test/support/packed.ts runs it, with ENV. */
const run = (command: string, args: string[], cwd: string, timeoutMs = 180_000) =>
  runCommand(command, args, cwd, { timeoutMs, env: { PAYMENT_API_CORS_ORIGINS: '' } });

/** `npx payment-mock args…` running in a process group of its own (its pid is the group's id). */
interface Command {
  pid: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match of `pattern` in stdout; rejects when the command exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

const started: Command[] = [];
function startCommand(args: string[]): Command {
  const child = spawn('npx', ['payment-mock', ...args], {
    cwd: project,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const command: Command = {
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (gone || Date.now() > deadline)
          throw new Error(`payment-mock ${gone ? 'exited' : 'timed out'} before ${pattern}:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  started.push(command);
  return command;
}

/** The processes still running from this project's copy of Prism. */
async function prismProcesses(): Promise<string[]> {
  const ps = await run('ps', ['-eo', 'pid=,args='], project);
  return ps.stdout.split('\n').filter((line) => line.includes(join(project, 'node_modules', PRISM)));
}

/** A script of the project's that drives the Node API: what it answers, as JSON on stdout. */
const API_SCRIPT = `import { startMock } from '${NAME}';

const mock = await startMock({ port: 0, corsOrigins: ['${ALLOWED}'] });
const plan = await fetch(\`\${mock.baseUrl}/payment-plans/${PLAN}\`, { headers: { authorization: '${basic}' } });
const preflight = await fetch(\`\${mock.baseUrl}/payment-intents/pi_1/confirm\`, {
  method: 'OPTIONS',
  headers: { origin: '${ALLOWED}', 'access-control-request-method': 'POST' },
});
const refused = (promise) => promise.then((other) => other.stop().then(() => 'started'), (error) => error.message);
const taken = await refused(startMock({ port: Number(new URL(mock.origin).port) }));
const wildcard = await refused(startMock({ port: 0, corsOrigins: ['*'] }));
console.log(JSON.stringify({
  node: process.version,
  origin: mock.origin,
  baseUrl: mock.baseUrl,
  status: plan.status,
  body: await plan.json(),
  preflight: [preflight.status, preflight.headers.get('access-control-allow-origin')],
  taken,
  wildcard,
}));
await mock.stop();
`;

/** What the Node API script printed: the mock answered, refused a taken port and a wildcard origin, and left nothing running. */
async function expectNodeApi(out: Run, version = process.version): Promise<void> {
  expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(0);
  const result = JSON.parse(out.stdout) as Record<string, unknown>;
  expect(result.node).toBe(version);
  expect(result.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(result.baseUrl).toBe(result.origin);
  expect(result.status).toBe(200);
  expect(result.body).toEqual(example('getPaymentPlan'));
  expect(result.preflight).toEqual([204, ALLOWED]);
  expect(result.taken).toMatch(/^cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
  expect(result.wildcard).toMatch(/wildcards are not accepted/);
  // the script ended on its own once stopped, and took Prism with it
  expect(await prismProcesses()).toEqual([]);
}

let dir: string;
let project: string;
let tarball: string;
let files: string[];
let size: { packages: number; megabytes: number; tarballKb: number; seconds: number };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-package-'));
  project = join(dir, 'project');
  const pack = await packed('mock');
  ({ tarball, files } = pack);
  const { seconds } = await freshProject(project, [tarball]);
  const du = await run('du', ['-sk', join(project, 'node_modules')], project);
  size = {
    packages: (await installedPackages(project)).length,
    megabytes: Number.parseInt(du.stdout, 10) / 1024,
    tarballKb: pack.size / 1000,
    seconds,
  };
  console.log(
    `${NAME} installed alone: ${size.packages} packages, ${size.megabytes.toFixed(1)} MB node_modules (du -sk), tarball ${size.tarballKb.toFixed(0)} kB, npm install ${size.seconds.toFixed(1)} s`,
  );
}, 300_000);

afterAll(async () => {
  for (const command of started) killGroup(command.pid, 'SIGKILL');
  await Promise.all(started.map((command) => command.exited));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed mock', () => {
  it('holds the bundled command and library, the declarations, the contract, README and LICENSE, and nothing of src/', async () => {
    expect(files).toEqual(
      [
        'LICENSE',
        'README.md',
        'package.json',
        'dist/cli.js',
        'dist/cli.d.ts',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/openapi.json',
      ].sort(),
    );
    const readme = await run('tar', ['-xzf', tarball, '-O', 'package/README.md'], dir);
    expect(readme.code, readme.stderr).toBe(0);
    expect(readme.stdout).toBe(await readFile(join(ROOT, 'packages', 'mock', 'README.md'), 'utf8'));
    expect(readme.stdout).toMatch(/^# @payment-service\/mock\n/);
  });

  it('ships declarations that import only one another and its declared packages', async () => {
    expect(await declarationImportsOutside(project, NAME, files)).toEqual([]);
  });

  it('installs alone from the tarball: Prism from the registry, none of the toolchain but what Prism depends on', async () => {
    const installed = join(project, 'node_modules');
    const lock = JSON.parse(await readFile(join(installed, '.package-lock.json'), 'utf8')) as {
      packages: Record<
        string,
        {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
        }
      >;
    };
    const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    /** The installed package `name` as Node resolves it from the package at `from`. */
    const resolveFrom = (from: string, name: string): string | undefined => {
      for (let base = from; ; ) {
        const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
        if (lock.packages[candidate]) return candidate;
        if (!base) return undefined;
        const at = base.lastIndexOf('/node_modules/');
        base = at < 0 ? '' : base.slice(0, at);
      }
    };
    // Prism and everything it depends on, as installed
    const prism = new Set<string>();
    const queue = [`node_modules/${PRISM}`];
    while (queue.length > 0) {
      const path = queue.pop()!;
      if (prism.has(path)) continue;
      prism.add(path);
      const entry = lock.packages[path] ?? {};
      for (const name of Object.keys({
        ...entry.dependencies,
        ...entry.optionalDependencies,
        ...entry.peerDependencies,
      })) {
        const resolved = resolveFrom(path, name);
        if (resolved) queue.push(resolved);
      }
    }
    const paths = Object.keys(lock.packages).filter(Boolean);
    const names = paths.map(nameOf);
    expect(names).toContain(NAME);
    expect(names).toContain(PRISM);
    // nothing but the package itself and Prism's tree
    expect(paths.filter((path) => !prism.has(path) && nameOf(path) !== NAME)).toEqual([]);
    const toolchain = paths.filter((path) => {
      const name = nameOf(path);
      return TOOLCHAIN.includes(name) || TOOLCHAIN_SCOPES.some((scope) => name.startsWith(scope));
    });
    expect(toolchain.filter((path) => !prism.has(path))).toEqual([]);
    for (const name of NEVER) expect(names, name).not.toContain(name);

    const manifest = JSON.parse(await readFile(join(installed, NAME, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ 'payment-mock': './dist/cli.js' });
    // Prism exactly as the repository's own mock runs it
    expect(manifest.dependencies).toEqual({ [PRISM]: LOCK.packages[`node_modules/${PRISM}`]!.version });
    const installedPrism = JSON.parse(await readFile(join(installed, PRISM, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(installedPrism.version).toBe(LOCK.packages[`node_modules/${PRISM}`]!.version);
    // the contract as the repository bundled it, and its version the package's
    const contract = await readFile(join(installed, NAME, 'dist', 'openapi.json'), 'utf8');
    expect(contract).toBe(BUNDLE);
    expect(manifest.version).toBe((JSON.parse(contract) as { info: { version: string } }).info.version);
    expect(readdirSync(join(installed, '.bin'))).toContain('payment-mock');
    expect(size.packages).toBe(paths.length);
  });

  it('npx payment-mock --port 0: the first line names the address, it answers as npm run mock does, and SIGTERM to its group stops Prism too', async () => {
    const command = startCommand(['--port', '0', '--cors-origin', ALLOWED]);
    const [, origin] = await command.waitFor(/^Payment Service API v2 mock at (http:\/\/127\.0\.0\.1:\d+) /);
    // the address is on the first line of stdout, before anything Prism prints
    expect(command.stdout().split('\n')[0]).toMatch(
      /^Payment Service API v2 mock at http:\/\/127\.0\.0\.1:\d+ \(@payment-service\/mock, contract 2\.0\.0, documented examples\)$/,
    );
    await command.waitFor(/^mock ready at /m);
    const [, prismPort] = await command.waitFor(/Prism is listening on http:\/\/127\.0\.0\.1:(\d+)/);
    expect(Number(prismPort)).not.toBe(Number(new URL(origin!).port));

    // an operation answers its documented example
    const plan = await fetch(`${origin}/payment-plans/${PLAN}`, { headers: { authorization: basic } });
    expect(plan.status).toBe(200);
    expect(await plan.json()).toEqual(example('getPaymentPlan'));
    // the contract's paths hang from the root
    expect((await fetch(`${origin}/api/v2/payment-plans/${PLAN}`, { headers: { authorization: basic } })).status).toBe(
      404,
    );

    // a replayed Idempotency-Key: the mock keeps no state, so no answer carries the replay marker
    const session = () =>
      fetch(`${origin}/payments/sessions`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
        body: JSON.stringify({
          transId: 't-1',
          amount: { value: 100, currency: 'EUR' },
          urls: {
            return: 'https://shop.example/r',
            cancel: 'https://shop.example/c',
            webhook: 'https://shop.example/w',
          },
        }),
      });
    for (const answer of [await session(), await session()]) {
      expect(answer.status).toBe(202);
      expect(answer.headers.has('idempotent-replayed')).toBe(false);
    }

    // a 401 names the schemes of the operation called
    const unauthorized = await fetch(`${origin}/customers`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBe(challengesByOperation(DOC).get('listCustomers'));

    // CORS for the allowed origin, on the operation a browser may call; nothing for another origin
    const preflight = await fetch(`${origin}/payment-intents/pi_1/confirm`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    const confirm = (from: string) =>
      fetch(`${origin}/payment-intents/pi_1/confirm`, {
        method: 'POST',
        headers: { origin: from, authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify({ integrationType: 'DIRECT', type: 'CARD' }),
      });
    const confirmed = await confirm(ALLOWED);
    expect(confirmed.status).toBe(201);
    expect(confirmed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(confirmed.headers.get('access-control-expose-headers')).toContain('Idempotent-Replayed');
    expect((await confirm('http://localhost:5174')).headers.get('access-control-allow-origin')).toBeNull();
    const customers = await fetch(`${origin}/customers`, { headers: { origin: ALLOWED, authorization: basic } });
    expect(customers.status).toBe(200);
    expect(customers.headers.get('access-control-allow-origin')).toBeNull();

    expect(await prismProcesses()).toHaveLength(1);
    killGroup(command.pid, 'SIGTERM');
    await command.exited;
    // Prism's own group went with it: nothing listens on its port, no process of it is left
    await expect(fetch(`http://127.0.0.1:${prismPort}/`)).rejects.toThrow();
    expect(await prismProcesses()).toEqual([]);
    await expect(fetch(`${origin}/customers`)).rejects.toThrow();
  }, 120_000);

  it('payment-mock --version, --help, and exit 2 on an origin that is not one', async () => {
    const version = await run('npx', ['payment-mock', '--version'], project);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const help = await run('npx', ['payment-mock', '--help'], project);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: payment-mock \[--port 4010\]/);
    expect(help.stdout).toContain('0 for a free one');
    const bad = await run('npx', ['payment-mock', '--port', '0', '--cors-origin', '*'], project);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--cors-origin: \*: wildcards are not accepted/);
  }, 60_000);

  it('the Node API: startMock({ port: 0 }) from a script in the project answers, refuses a taken port and a bad origin, and stop() leaves nothing running', async () => {
    await writeFile(join(project, 'api.mjs'), API_SCRIPT);
    await expectNodeApi(await run(process.execPath, ['api.mjs'], project, 60_000));
  }, 90_000);

  for (const line of nodeLines())
    it(`the Node API on Node ${line.version}, a line its users run: the same script, the same answers`, async () => {
      await writeFile(join(project, 'api.mjs'), API_SCRIPT);
      const out = await runOn(line, 'node', ['api.mjs'], project, {
        timeoutMs: 60_000,
        env: { PAYMENT_API_CORS_ORIGINS: '' },
      });
      await expectNodeApi(out, line.version);
    }, 90_000);

  it("compiles a TypeScript consumer and the package README's example with --strict (module nodenext)", async () => {
    const readme = await readFile(join(project, 'node_modules', NAME, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const sources: Record<string, string> = {
      'consumer.mts': `import { type RunningMock, type StartMockOptions, startMock } from '${NAME}';

const options: StartMockOptions = { port: 0, host: '127.0.0.1', dynamic: false, corsOrigins: ['${ALLOWED}'], log: (line: string) => void line };
export async function base(): Promise<string> {
  const mock: RunningMock = await startMock(options);
  await mock.stop();
  return mock.baseUrl;
}
// @ts-expect-error a port is a number
export const wrong: StartMockOptions = { port: '4010' };
`,
      ...Object.fromEntries(blocks.map((block, i) => [`readme-${i}.mts`, `${block}\nexport {};\n`])),
    };
    const compile = await compileConsumer(project, join(dir, 'typescript'), sources);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.code).toBe(0);
  }, 60_000);
});
