// The SDK as a merchant meets it: `npm run pack:sdk` (which builds it and packs a staged copy), the
// tarball's exact file list, and the tarball installed alone (once, its node_modules shared by the
// projects) into fresh projects that call a local server through it: a
// project made by `npm init -y` importing it from an .mjs file, one using require() (both on the
// suite's Node and on Node 22 and 24, the lines its users run), TypeScript with
// `module: nodenext` and with `moduleResolution: bundler` (compiled with --strict, declarations
// checked too), a CommonJS TypeScript project, and TypeScript's old `node10` resolution (types
// through typesVersions). The consumer README is the tarball's README; errors by meaning and the
// response metadata reach a consumer project.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApi, reply, startFakeApi } from '../support/fake-api.js';
import { nodeLines, runOn } from '../support/node-lines.js';
import {
  CHECK_DECLARATIONS,
  declarationImportsOutside,
  freshProject,
  npm,
  npmInit,
  packed,
  ROOT,
  type Run,
  run,
  runTsc,
} from '../support/packed.js';

const NAME = '@payment-service/api-v2';

let dir: string;
let tarball: string;
let files: string[];
let api: FakeApi;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-package-'));
  ({ tarball, files } = await packed('sdk'));
  api = await startFakeApi((req) =>
    req.path === '/payment-plans/pp_1'
      ? reply(
          200,
          { id: 'pp_1', planStatus: 'ACTIVE', auth: String(req.headers.authorization) },
          { 'X-Request-Id': 'req-1' },
        )
      : req.path === '/payment-plans/pp_invalid'
        ? reply(400, { title: 'One or more validation errors occurred.', errors: { paymentPlanId: ['bad id'] } })
        : reply(404, { title: 'no' }),
  );
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let installed: Promise<string> | undefined;

/**
 * The tarball installed alone (with its one dependency) into a project made by `npm init -y`, once
 * per file: its node_modules, which every project below shares.
 */
function installation(): Promise<string> {
  installed ??= (async () => {
    const cwd = join(dir, 'installed');
    await freshProject(cwd, [tarball]);
    return join(cwd, 'node_modules');
  })();
  return installed;
}

/** A fresh project as `npm init -y` makes it (with `extra` in its package.json), the tarball installed. */
async function project(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const cwd = join(dir, name);
  await mkdir(cwd);
  await npmInit(cwd, extra);
  await symlink(await installation(), join(cwd, 'node_modules'), 'dir');
  return cwd;
}

/**
 * The Node a consumer's script runs on: the suite's own, then the other lines its users run
 * (test/support/node-lines.ts), each calling the local server.
 */
const NODES: Array<{ version: string; run(script: string, cwd: string): Promise<Run> }> = [
  {
    version: process.version,
    run: (script, cwd) => run(process.execPath, [script], cwd, { env: { BASE_URL: api.baseUrl } }),
  },
  ...nodeLines().map((line) => ({
    version: line.version,
    run: (script: string, cwd: string) => runOn(line, 'node', [script], cwd, { env: { BASE_URL: api.baseUrl } }),
  })),
];

const CALL = (imports: string) => `${imports}
const client = createPaymentClient({ apiKey: 'key-1', baseUrl: process.env.BASE_URL });
const plan = await client.paymentPlans.retrieve('pp_1');
const header = await signWebhook('{"payId":"x"}', 'whsec_1');
console.log(JSON.stringify({ plan, signed: header.startsWith('t=') }));
`;

// Its TypeScript compilations are CPU-bound: on a loaded machine one takes several times its idle
// time, and only a hang should fail it.
describe('the packed SDK', { timeout: 120_000 }, () => {
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
      'dist/openapi.json',
      ...built('src/client'),
      ...built('src/webhooks'),
      ...['types', 'operations', 'resources'].flatMap((f) => [`dist/generated/${f}.js`, `dist/generated/${f}.d.ts`]),
    ].sort();
    expect(files).toEqual(expected);
    expect(files.some((f) => /test|sandbox|openapi\/|generator|scripts/.test(f))).toBe(false);
  });

  it('ships declarations that import only one another and its declared packages', async () => {
    const modules = await installation();
    expect(await declarationImportsOutside(dirname(modules), NAME, files)).toEqual([]);
  });

  it.each(NODES)('works from an .mjs file of a project made by npm init -y (Node $version)', async (node) => {
    const cwd = await project(`esm-${node.version}`);
    await writeFile(
      join(cwd, 'index.mjs'),
      `${CALL(`import { createPaymentClient } from '${NAME}';\nimport { signWebhook } from '${NAME}/webhooks';`)}console.log(process.version);\n`,
    );
    const out = await node.run('index.mjs', cwd);
    expect(out.stderr).toBe('');
    const [result, version] = out.stdout.trim().split('\n');
    expect(version).toBe(node.version);
    expect(JSON.parse(result!)).toEqual({
      plan: { id: 'pp_1', planStatus: 'ACTIVE', auth: 'undefined' },
      signed: true,
    });
    expect(api.to('/payment-plans/pp_1').at(-1)!.headers['x-api-key']).toBe('key-1');
    // the contract ships with it, under its export
    const contract = createRequire(join(cwd, 'index.mjs')).resolve(`${NAME}/openapi.json`);
    expect(JSON.parse(await readFile(contract, 'utf8')).info.version).toBe('2.0.0');
  });

  it('has the consumer README as its README; a plain npm pack of the repository is refused', async () => {
    const readme = await run('tar', ['-xzf', tarball, '-O', 'package/README.md'], dir);
    expect(readme.code, readme.stderr).toBe(0);
    expect(readme.stdout).toBe(await readFile(join(ROOT, 'packages', 'sdk', 'README.md'), 'utf8'));
    expect(readme.stdout).toMatch(/^# @payment-service\/api-v2\n/);
    expect(readme.stdout).toContain('ValidationError');
    expect(await readFile(join(ROOT, 'README.md'), 'utf8')).toMatch(
      /^# Payment Service API v2 — contract and toolchain\n/,
    );
    const plain = await npm(['pack', '--dry-run'], ROOT);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('npm run pack:sdk');
  });

  it("compiles the package README's TypeScript examples with --strict against the packed package", async () => {
    const cwd = await project('readme', { type: 'module' });
    const readme = await readFile(join(cwd, 'node_modules', NAME, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    // What an example takes from the code around it.
    const context: Record<string, string> = {
      client: 'PaymentClient',
      payId: 'string',
      orderId: 'string',
      request: 'RefundRequest',
      rawBody: 'string',
      headers: 'Headers',
    };
    const files = blocks.map((block, i) => {
      const declared = (name: string) => new RegExp(`\\b(const|let|import)\\b[^;=]*\\b${name}\\b`).test(block);
      const prelude = [
        `import type { PaymentClient } from '${NAME}';`,
        `import type { RefundRequest } from '${NAME}/types';`,
        'declare const process: { env: Record<string, string | undefined> };',
        ...Object.entries(context)
          .filter(([name]) => new RegExp(`\\b${name}\\b`).test(block) && !declared(name))
          .map(([name, type]) => `declare const ${name}: ${type};`),
      ];
      return { name: `example-${i}.ts`, text: `${prelude.join('\n')}\n${block}\nexport {};\n` };
    });
    for (const file of files) await writeFile(join(cwd, file.name), file.text);
    const tsconfig = {
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        strict: true,
        noEmit: true,
        ...CHECK_DECLARATIONS,
        lib: ['es2023', 'dom'],
        types: [],
      },
      files: files.map((f) => f.name),
    };
    await writeFile(join(cwd, 'tsconfig.json'), JSON.stringify(tsconfig));
    const compile = await runTsc(['-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.code).toBe(0);
  });

  it('rejects with errors by meaning and gives the response metadata of a success', async () => {
    const cwd = await project('errors');
    await writeFile(
      join(cwd, 'index.mjs'),
      `import { createPaymentClient, NotFoundError, PaymentApiError, responseOf, ValidationError } from '${NAME}';
const client = createPaymentClient({ apiKey: 'key-1', baseUrl: process.env.BASE_URL });
const caught = async (promise) => promise.then(() => 'resolved', (e) => ({
  name: e.name, status: e.status, api: e instanceof PaymentApiError,
  notFound: e instanceof NotFoundError, validation: e instanceof ValidationError, fieldErrors: e.fieldErrors,
}));
const plan = await client.paymentPlans.retrieve('pp_1');
const { status, requestId, replayed } = responseOf(plan);
console.log(JSON.stringify({
  missing: await caught(client.paymentPlans.retrieve('pp_missing')),
  invalid: await caught(client.paymentPlans.retrieve('pp_invalid')),
  metadata: { status, requestId, replayed },
  stringified: JSON.stringify(plan),
}));
`,
    );
    const out = await run(process.execPath, ['index.mjs'], cwd, { env: { BASE_URL: api.baseUrl } });
    expect(out.stderr).toBe('');
    const result = JSON.parse(out.stdout);
    expect(result.missing).toEqual({
      name: 'NotFoundError',
      status: 404,
      api: true,
      notFound: true,
      validation: false,
      fieldErrors: {},
    });
    expect(result.invalid).toEqual({
      name: 'ValidationError',
      status: 400,
      api: true,
      notFound: false,
      validation: true,
      fieldErrors: { paymentPlanId: ['bad id'] },
    });
    expect(result.metadata).toEqual({ status: 200, requestId: 'req-1', replayed: false });
    expect(JSON.parse(result.stringified)).toEqual({ id: 'pp_1', planStatus: 'ACTIVE', auth: 'undefined' });
  });

  it('compiles in a CommonJS TypeScript project as the README says: TS1309 for top-level await, fine in a function', async () => {
    const cwd = await project('ts-commonjs');
    expect(JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    const tsconfig = {
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        strict: true,
        outDir: 'out',
        ...CHECK_DECLARATIONS,
        lib: ['es2023', 'dom'],
        types: [],
      },
      files: ['index.ts'],
    };
    await writeFile(join(cwd, 'tsconfig.json'), JSON.stringify(tsconfig));
    const imports = `import { createPaymentClient, NotFoundError } from '${NAME}';\ndeclare const process: { env: Record<string, string> };\nconst client = createPaymentClient({ apiKey: 'key-1', baseUrl: process.env.BASE_URL });\n`;
    await writeFile(join(cwd, 'index.ts'), `${imports}console.log((await client.paymentPlans.retrieve('pp_1')).id);\n`);
    const topLevel = await runTsc(['-p', '.'], cwd);
    expect(topLevel.stdout).toContain('TS1309');
    await writeFile(
      join(cwd, 'index.ts'),
      `${imports}async function main(): Promise<void> {
  console.log((await client.paymentPlans.retrieve('pp_1')).id);
  await client.paymentPlans.retrieve('pp_missing').catch((e: unknown) => console.log(e instanceof NotFoundError));
}
void main();
`,
    );
    const compile = await runTsc(['-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    const out = await run(process.execPath, [join('out', 'index.js')], cwd, { env: { BASE_URL: api.baseUrl } });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('pp_1\ntrue\n');
  });

  it.each(NODES)('works with require() (Node $version loads the ES module)', async (node) => {
    const cwd = await project(`cjs-${node.version}`);
    await writeFile(
      join(cwd, 'index.cjs'),
      `const { createPaymentClient } = require('${NAME}');\nconst { signWebhook } = require('${NAME}/webhooks');\n(async () => {${CALL('').replace(/\n/g, '\n  ')}console.log(process.version);\n})();\n`,
    );
    const out = await node.run('index.cjs', cwd);
    expect(out.code, out.stderr).toBe(0);
    const [result, version] = out.stdout.trim().split('\n');
    expect(version).toBe(node.version);
    expect(JSON.parse(result!).plan.id).toBe('pp_1');
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
        ...CHECK_DECLARATIONS,
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
    const compile = await runTsc(['-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.code).toBe(0);
    const out = await run(process.execPath, [join('out', 'index.js')], cwd, { env: { BASE_URL: api.baseUrl } });
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
          // what this project proves is that the types resolve; the declarations are checked above
          skipLibCheck: true,
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
    const compile = await runTsc(['-p', '.'], cwd);
    expect(compile.stdout + compile.stderr).toBe('');
    expect(existsSync(join(cwd, 'node_modules', NAME, 'dist', 'src', 'webhooks', 'index.d.ts'))).toBe(true);
  });
});
