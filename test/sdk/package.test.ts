// The SDK as a merchant meets it: `npm pack` (which builds it, prepack), the tarball's exact file
// list, and the tarball installed into fresh projects that call a local server through it: a
// project made by `npm init -y` importing it from an .mjs file, one using require(), TypeScript with
// `module: nodenext` and with `moduleResolution: bundler` (compiled with --strict, declarations
// checked too), and TypeScript's old `node10` resolution (types through typesVersions).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApi, reply, startFakeApi } from '../support/fake-api.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const NAME = '@payment-service/api-v2';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);

let dir: string;
let tarball: string;
let files: string[];
let api: FakeApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-package-'));
  const pack = await npm(['pack', '--json', '--pack-destination', dir], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  const [result] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(dir, result!.filename);
  files = result!.files.map((f) => f.path).sort();
  api = await startFakeApi((req) =>
    req.path === '/payment-plans/pp_1'
      ? reply(200, { id: 'pp_1', planStatus: 'ACTIVE', auth: String(req.headers.authorization) })
      : reply(404, { title: 'no' }),
  );
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh project made by `npm init -y`, with the tarball installed. */
async function project(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const cwd = join(dir, name);
  await mkdir(cwd);
  expect((await npm(['init', '-y'], cwd)).code).toBe(0);
  if (Object.keys(extra).length > 0) {
    const pkg = JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ ...pkg, ...extra }, null, 2));
  }
  const install = await npm(['install', tarball, '--prefer-offline'], cwd);
  expect(install.code, install.stderr).toBe(0);
  return cwd;
}

const CALL = (imports: string) => `${imports}
const client = createPaymentClient({ apiKey: 'key-1', baseUrl: process.env.BASE_URL });
const plan = await client.paymentPlans.retrieve('pp_1');
const header = await signWebhook('{"payId":"x"}', 'whsec_1');
console.log(JSON.stringify({ plan, signed: header.startsWith('t=') }));
`;

describe('the packed SDK', () => {
  it('holds the built SDK, its declarations, the contract, README and license, and nothing else', () => {
    const built = (folder: string) =>
      readdirSync(join(ROOT, folder))
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => [
          `dist/${folder}/${f.replace(/\.ts$/, '.js')}`,
          `dist/${folder}/${f.replace(/\.ts$/, '.d.ts')}`,
        ]);
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'generated/openapi.json',
      ...built('src/client'),
      ...built('src/webhooks'),
      ...['types', 'operations', 'resources'].flatMap((f) => [`dist/generated/${f}.js`, `dist/generated/${f}.d.ts`]),
    ].sort();
    expect(files).toEqual(expected);
    expect(files.some((f) => /test|sandbox|openapi\/|generator|scripts/.test(f))).toBe(false);
  });

  it('works from an .mjs file of a project made by npm init -y', async () => {
    const cwd = await project('esm');
    await writeFile(
      join(cwd, 'index.mjs'),
      CALL(`import { createPaymentClient } from '${NAME}';\nimport { signWebhook } from '${NAME}/webhooks';`),
    );
    const out = await run(process.execPath, ['index.mjs'], cwd, { BASE_URL: api.baseUrl });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({
      plan: { id: 'pp_1', planStatus: 'ACTIVE', auth: 'undefined' },
      signed: true,
    });
    expect(api.to('/payment-plans/pp_1').at(-1)!.headers['x-api-key']).toBe('key-1');
    // the contract ships with it
    expect(
      JSON.parse(await readFile(join(cwd, 'node_modules', NAME, 'generated', 'openapi.json'), 'utf8')).info.version,
    ).toBe('2.0.0');
  });

  it('works with require() (Node ≥ 20.19 loads the ES module)', async () => {
    const cwd = await project('cjs');
    await writeFile(
      join(cwd, 'index.cjs'),
      `const { createPaymentClient } = require('${NAME}');\nconst { signWebhook } = require('${NAME}/webhooks');\n(async () => {${CALL('').replace(/\n/g, '\n  ')}})();\n`,
    );
    const out = await run(process.execPath, ['index.cjs'], cwd, { BASE_URL: api.baseUrl });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).plan.id).toBe('pp_1');
  });

  it.each([
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }, { type: 'module' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, { type: 'module' }],
  ])('compiles with --strict and runs in a TypeScript project (moduleResolution %s)', async (name, settings, pkg) => {
    const cwd = await project(`ts-${name}`, pkg);
    const tsconfig = {
      compilerOptions: {
        target: 'es2022',
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        lib: ['es2023', 'dom'],
        types: [],
        ...settings,
      },
      files: ['index.ts'],
    };
    await writeFile(join(cwd, 'tsconfig.json'), JSON.stringify(tsconfig));
    await writeFile(
      join(cwd, 'index.ts'),
      `${CALL(`import { createPaymentClient, type PaymentClient } from '${NAME}';\nimport { signWebhook } from '${NAME}/webhooks';\nimport type { PaymentPlan } from '${NAME}/types';\ndeclare const process: { env: Record<string, string> };`)}
const typed: PaymentPlan = plan;
const c: PaymentClient = client;
void typed;
void c;
// @ts-expect-error the types reject a number where the contract says string
export const neverCalled = () => client.paymentPlans.retrieve(42);
`,
    );
    const compile = await run(process.execPath, [TSC, '-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.code).toBe(0);
    const out = await run(process.execPath, [join('out', 'index.js')], cwd, { BASE_URL: api.baseUrl });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).signed).toBe(true);
  });

  it('resolves its types under the old node10 resolution too (typesVersions)', async () => {
    const cwd = await project('ts-node10');
    await writeFile(
      join(cwd, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          strict: true,
          noEmit: true,
          lib: ['es2023', 'dom'],
          types: [],
          ignoreDeprecations: '5.0',
        },
        files: ['index.ts'],
      }),
    );
    await writeFile(
      join(cwd, 'index.ts'),
      `import type { PaymentClient } from '${NAME}';\nimport type { WebhookSignatureError } from '${NAME}/webhooks';\nimport type { PaymentDetails } from '${NAME}/types';\nexport type T = [PaymentClient, WebhookSignatureError, PaymentDetails];\n`,
    );
    const compile = await run(process.execPath, [TSC, '-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(existsSync(join(cwd, 'node_modules', NAME, 'dist', 'src', 'webhooks', 'index.d.ts'))).toBe(true);
  });
});
