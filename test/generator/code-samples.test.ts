// The code samples (generator/steps/code-samples.ts → generated/samples/, and the docs' x-codeSamples) do
// what their labels say: every TypeScript sample type-checks against the SDK (one tsc run, with two
// broken copies that must fail), every sample — curl and TypeScript — runs verbatim against a fresh
// sandbox and gets the status its label names, and the docs page carries every sample under a tab
// Redoc shows.
//
// Each run gets a merchant of its own, given the contract's examples through the admin API
// (POST /_sandbox/merchants/{merchantId}/examples: the objects the examples name, under their own
// ids, in the states their operations need), so that a run starts from fresh state (a capture
// consumes its authorized payment). The sample runs as committed: the file in generated/samples/,
// with its ids and its idempotency key, only the environment (base URL, merchant, key, token) set.
// The samples reach the sandbox through a small proxy that holds every response to the contract
// (conformingFetch) and records which statuses each run received. A curl sample runs in bash; a
// TypeScript sample is imported in this process, one at a time (it reads process.env and prints),
// with the package name resolved as the samples' tsconfig maps it (vitest.config.ts).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from 'vitest';
import {
  type CodeSample,
  codeSamples,
  PACKAGE_NAME,
  SAMPLE_ENV,
  SAMPLES_DIR,
  type SampleCase,
  sampleCases,
} from '../../generator/steps/code-samples.js';
import type { MerchantCredentials } from '../../sandbox/server.js';
import { createPaymentClient } from '../../src/client/index.js';
import { deref, operationById, operations } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import {
  conformingFetch,
  newMerchant,
  operationOf,
  seedExamples,
  startTestSandbox,
  type TestSandbox,
} from '../support/sandbox.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GENERATED_SAMPLES = join(ROOT, 'generated', SAMPLES_DIR);
const bundle = loadBundle();
const samples = codeSamples(bundle);
const caseOf = new Map(sampleCases(bundle).map((c) => [`${c.operationId}.${c.example}`, c]));

/**
 * The rules the contract does not exercise today, on a copy of it: a request example meant to fail
 * (simulationMode DECLINED: labelled and answered 422), one named like a response example (its
 * status), and an operation that accepts the API key alone (X-API-Key, a client without merchant id).
 */
function fixtureDocument(): JsonObject {
  const doc = structuredClone(bundle) as JsonObject;
  const capture = operationById(doc, 'capturePayment').operation as JsonObject;
  const media = deref<JsonObject>(doc, capture.requestBody).content as Record<string, JsonObject>;
  const json = media['application/json']!;
  json.examples = {
    ...(json.examples as JsonObject),
    declinedCapture: {
      summary: 'A capture the provider declines',
      value: { transId: 'ORD-2026-000123-CAP2', amount: { value: 11900, currency: 'EUR' }, simulationMode: 'DECLINED' },
    },
    declined: {
      summary: 'Named like the 422 example',
      value: {
        transId: 'ORD-2026-000123-CAP3',
        amount: { value: 100, currency: 'EUR' },
        simulationMode: 'INSUFFICIENT_FUNDS',
      },
    },
  };
  (operationById(doc, 'getPaymentPlan').operation as JsonObject).security = [{ apiKeyAuth: [] }];
  return doc;
}
const fixture: JsonObject = fixtureDocument();
const fixtureCases = new Map(sampleCases(fixture).map((c) => [`${c.operationId}.${c.example}`, c]));
const fixtureSamples: CodeSample[] = codeSamples(fixture).filter((s) =>
  ['capturePayment.declinedCapture', 'capturePayment.declined', 'getPaymentPlan.default'].includes(
    `${s.operationId}.${s.example}`,
  ),
);
/** The comment lines a sample file starts with (what it is, that it is generated), which the docs leave out. */
const HEADER = /^(?:(?:#|\/\/) .*\n)+/;

// ---------------------------------------------------------------------------------------------
// The sandbox, a merchant per run, and the proxy the samples call

let t: TestSandbox;
let proxy: Server;
let proxyUrl: string;
let workDir: string;
/** Per run: the requests it made (operation and status) and any response that broke the contract. */
const received = new Map<string, { operationId: string | undefined; status: number }[]>();
const violations = new Map<string, string[]>();
const merchants = new Map<string, MerchantCredentials>();
const runId = (s: CodeSample) => `${s.operationId}.${s.example}.${s.lang === 'curl' ? 'sh' : 'ts'}`;
const fixtureRunId = (s: CodeSample) => `fixture.${runId(s)}`;
let typecheck: Promise<{ code: number | null; output: string }>;

const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'expect',
  'upgrade',
]);

function startProxy(): Promise<void> {
  proxy = createServer(async (req, res) => {
    const m = /^\/runs\/([^/]+)(\/.*)$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    const [, run, rest] = m as unknown as [string, string, string];
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (!HOP_BY_HOP.has(k) && typeof v === 'string') headers.set(k, v);
    const url = `${t.url}${rest}`;
    try {
      const response = await conformingFetch(url, {
        method: req.method!,
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      received.get(run)?.push({ operationId: operationOf(url, req.method!)?.operationId, status: response.status });
      const out: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        if (!HOP_BY_HOP.has(k)) out[k] = v;
      });
      res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      violations.get(run)?.push(String((error as Error).message));
      res.writeHead(502).end(String(error));
    }
  });
  return new Promise((ready) =>
    proxy.listen(0, '127.0.0.1', () => {
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      ready();
    }),
  );
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

let running: Promise<unknown> = Promise.resolve();

/**
 * A TypeScript sample as its own program would run: imported here with `env` in process.env, what it
 * prints to console.log and console.error captured, its exit code the process.exitCode it sets (1
 * when it throws). One at a time: the environment, the console and the exit code are this process's.
 */
function runHere(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = running.then(async () => {
    const saved = { env: { ...process.env }, log: console.log, error: console.error, exitCode: process.exitCode };
    let stdout = '';
    let stderr = '';
    Object.assign(process.env, env);
    console.log = (...args: unknown[]) => {
      stdout += `${format(...args)}\n`;
    };
    console.error = (...args: unknown[]) => {
      stderr += `${format(...args)}\n`;
    };
    process.exitCode = undefined;
    try {
      await import(file);
      return { code: Number(process.exitCode ?? 0), stdout, stderr };
    } catch (error) {
      return { code: 1, stdout, stderr: `${stderr}${(error as Error).stack ?? String(error)}\n` };
    } finally {
      process.env = saved.env;
      console.log = saved.log;
      console.error = saved.error;
      process.exitCode = saved.exitCode;
    }
  });
  running = run.catch(() => undefined);
  return run;
}

beforeAll(async () => {
  await mkdir(join(ROOT, 'test-output'), { recursive: true });
  // Inside the repository, so that tsc and tsx find node_modules (test-output/ is git-ignored).
  workDir = await mkdtemp(join(ROOT, 'test-output', 'code-samples-'));
  for (const s of samples) merchants.set(runId(s), newMerchant('sample'));
  for (const s of fixtureSamples) merchants.set(fixtureRunId(s), newMerchant('fixture'));

  // One tsc run, started now, over every TypeScript sample and two broken copies of one.
  const checkDir = join(workDir, 'typecheck');
  await mkdir(checkDir);
  await writeFile(
    join(checkDir, 'tsconfig.json'),
    JSON.stringify({ extends: join(GENERATED_SAMPLES, 'tsconfig.json'), include: ['*.ts'] }),
  );
  for (const s of samples.filter((x) => x.lang === 'TypeScript'))
    await writeFile(join(checkDir, s.file.split('/').pop()!), readFileSync(join(ROOT, 'generated', s.file), 'utf8'));
  for (const [name, text] of Object.entries(brokenCopies())) await writeFile(join(checkDir, name), text);
  typecheck = run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(checkDir, 'tsconfig.json'),
      '--pretty',
      'false',
    ],
    {},
  ).then((r) => ({ code: r.code, output: r.stdout + r.stderr }));

  t = await startTestSandbox({ merchants: [...merchants.values()] });
  await startProxy();
}, 60_000);

afterAll(async () => {
  await typecheck?.catch(() => undefined);
  await new Promise((done) => (proxy ? proxy.close(done) : done(undefined)));
  await t?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The first TypeScript sample with a body, with a method that does not exist, and with a misspelt field. */
function brokenCopies(): Record<string, string> {
  const victim = samples.find(
    (s) => s.lang === 'TypeScript' && caseOf.get(`${s.operationId}.${s.example}`)!.body !== undefined,
  )!;
  const text = readFileSync(join(ROOT, 'generated', victim.file), 'utf8');
  const c = caseOf.get(`${victim.operationId}.${victim.example}`)!;
  const field = Object.keys(c.body as object)[0]!;
  return {
    'broken.method.ts': text.replace(`client.${c.info.sdkMethod}(`, `client.${c.info.sdkMethod}Typo(`),
    'broken.field.ts': text.replace(new RegExp(`^(\\s+)${field}:`, 'm'), `$1${field}Typo:`),
  };
}

// ---------------------------------------------------------------------------------------------

describe('the samples on disk', () => {
  it('are one .sh and one .ts for every request example of every operation, as generate writes them', () => {
    const onDisk = readdirSync(GENERATED_SAMPLES)
      .filter((f) => /\.(sh|ts)$/.test(f))
      .sort();
    expect(onDisk, 'generated/samples/ is stale: run npm run generate').toEqual(
      samples.map((s) => s.file.split('/').pop()!).sort(),
    );
    for (const s of samples) expect(readFileSync(join(ROOT, 'generated', s.file), 'utf8')).toBe(s.content);
    const withSamples = new Set(samples.map((s) => s.operationId));
    expect(
      operations(bundle, ['paths'])
        .map((o) => String(o.operation.operationId))
        .filter((id) => !withSamples.has(id)),
    ).toEqual([]);
  });

  it('name the status in their label, and import the SDK by its package name', () => {
    for (const s of samples) {
      expect(s.label).toMatch(new RegExp(`^(curl|TypeScript \\(SDK\\))( \\([^)]+\\))? → ${s.status} [A-Z]`));
      if (s.lang === 'TypeScript') expect(s.source).toContain(`from '${PACKAGE_NAME}'`);
    }
  });
});

describe('the TypeScript samples', () => {
  it('type-check against the SDK (one tsc run), and a wrong method or field fails it', async () => {
    const { code, output } = await typecheck;
    const errorsIn = (file: string) =>
      output.split('\n').filter((l) => l.includes(`${file}(`) && / error TS\d+/.test(l));
    const elsewhere = output.split('\n').filter((l) => / error TS\d+/.test(l) && !l.includes('broken.'));
    expect(elsewhere, 'type errors in the samples').toEqual([]);
    expect(errorsIn('broken.method.ts').join('\n')).toMatch(/TS2551|TS2339/); // property does not exist
    expect(errorsIn('broken.field.ts').join('\n')).toMatch(/TS2353|TS2561|TS2345/); // unknown / missing property
    expect(code).not.toBe(0);
  }, 60_000);
});

/**
 * Runs one sample file as it is against the sandbox, for its own merchant given the contract's
 * examples; asserts the status (curl's own -w; for TypeScript, the last answer to its operation at
 * the proxy), the exit code and that every response kept to the contract.
 */
async function runSample(id: string, s: CodeSample, c: SampleCase, file: string, expect: ExpectStatic): Promise<void> {
  const merchant = merchants.get(id)!;
  await seedExamples(t, merchant.merchantId);
  const output = join(workDir, `${id}.out`);

  received.set(id, []);
  violations.set(id, []);
  const env: Record<string, string> = {
    [SAMPLE_ENV.baseUrl]: `${proxyUrl}/runs/${id}/api/v2`,
    [SAMPLE_ENV.merchantId]: merchant.merchantId,
    [SAMPLE_ENV.apiKey]: merchant.apiKey,
  };
  if (c.auth === 'bearer') {
    const client = createPaymentClient({
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
      baseUrl: t.baseUrl,
      fetch: conformingFetch,
      maxAttempts: 1,
    });
    env[SAMPLE_ENV.accessToken] = (
      await client.authorization.createToken({ grant_type: 'client_credentials' })
    ).access_token;
  }

  if (s.lang === 'curl') {
    // The sample as written, with curl made to print the status (-w) instead of the response.
    const wrapper = `curl() { /usr/bin/curl --silent --show-error --output "$SAMPLE_OUTPUT" --write-out '%{http_code}' "$@"; }; source "$0"`;
    const result = await run('bash', ['-c', wrapper, file], { ...env, SAMPLE_OUTPUT: output });
    const body = existsSync(output) ? readFileSync(output, 'utf8') : '';
    expect(result.code, `${id}: ${result.stderr}\n${body}`).toBe(0);
    expect(Number(result.stdout.trim()), `${id}: ${body}`).toBe(s.status);
  } else {
    const result = await runHere(file, env);
    const status = received
      .get(id)!
      .filter((r) => r.operationId === s.operationId)
      .at(-1)?.status;
    expect(status, `${id}:\n${result.stdout}\n${result.stderr}`).toBe(s.status);
    // The SDK resolves on a 2xx (and the sample prints it); anything else is a PaymentApiError (exit code 1).
    expect(result.code, result.stderr).toBe(s.status < 300 ? 0 : 1);
    if (s.status < 300 && s.status !== 204) expect(() => JSON.parse(result.stdout)).not.toThrow();
  }
  expect(violations.get(id), 'responses that break the contract').toEqual([]);
  expect(
    received.get(id)!.some((r) => r.operationId === s.operationId),
    'the sample called its operation',
  ).toBe(true);
}

describe.concurrent("every sample, verbatim, against a sandbox with the contract's examples", () => {
  it.for(samples.map((s) => [runId(s), s] as const))(
    '%s returns its documented status',
    { timeout: 30_000 },
    async ([id, s], { expect }) => {
      // The committed file itself: its ids are the examples', which the merchant's data holds.
      const file = join(ROOT, 'generated', s.file);
      expect(readFileSync(file, 'utf8')).toBe(s.content);
      await runSample(id, s, caseOf.get(`${s.operationId}.${s.example}`)!, file, expect);
    },
  );
});

describe.concurrent('the rules the contract does not exercise yet (on a copy of it)', () => {
  it('labels an example meant to fail with its real status, and one named like a response example with that status', () => {
    const labels = Object.fromEntries(fixtureSamples.map((s) => [runId(s), s.label]));
    expect(labels).toMatchObject({
      'capturePayment.declinedCapture.sh': 'curl (declinedCapture) → 422 Unprocessable Entity',
      'capturePayment.declinedCapture.ts': 'TypeScript (SDK) (declinedCapture) → 422 Unprocessable Entity',
      'capturePayment.declined.sh': 'curl (declined) → 422 Unprocessable Entity',
      'getPaymentPlan.default.sh': 'curl → 200 OK',
    });
    const apiKeyOnly = fixtureSamples.filter((s) => s.operationId === 'getPaymentPlan');
    expect(apiKeyOnly.find((s) => s.lang === 'curl')!.source).toContain('-H "X-API-Key: $API_KEY"');
    expect(apiKeyOnly.find((s) => s.lang === 'TypeScript')!.source).not.toContain('merchantId');
  });

  it.for(fixtureSamples.map((s) => [fixtureRunId(s), s] as const))(
    '%s returns its documented status',
    { timeout: 30_000 },
    async ([id, s], { expect }) => {
      const file = join(workDir, id);
      await writeFile(file, s.content);
      await runSample(id, s, fixtureCases.get(`${s.operationId}.${s.example}`)!, file, expect);
    },
  );
});

describe('the docs page (generated/docs/index.html)', () => {
  const html = readFileSync(join(ROOT, 'generated', 'docs', 'index.html'), 'utf8');
  const embedded = (name: string) => {
    const m = new RegExp(`const ${name} = (\\{.*?\\});\\n`, 's').exec(html);
    if (!m) throw new Error(`${name} is not in the page`);
    return JSON.parse(m[1]!) as Record<string, any>;
  };

  it('shows every operation its samples (source and status label), each under a tab Redoc renders', () => {
    const definition = embedded('__redoc_definition');
    const options = embedded('__redoc_options');
    const tabs = new Set(
      ((options.codeSamples?.languages ?? []) as { label?: string; lang: string }[]).map((l) =>
        (l.label ?? l.lang).toLowerCase(),
      ),
    );
    for (const { operation } of operations(definition, ['paths'])) {
      const expected = samples.filter((s) => s.operationId === operation.operationId);
      const shown = (operation as Record<string, unknown>)['x-codeSamples'] as
        | { lang: string; label: string; source: string }[]
        | undefined;
      expect(shown, `${operation.operationId} has no code samples in the docs`).toBeDefined();
      expect(new Set(shown!.map((x) => x.label))).toEqual(new Set(expected.map((s) => s.label)));
      for (const s of expected) {
        const entry = shown!.find((x) => x.label === s.label)!;
        // The docs show the file's sample, without its header comment.
        expect(entry.source).toBe(
          readFileSync(join(ROOT, 'generated', s.file), 'utf8')
            .replace(HEADER, '')
            .trimEnd(),
        );
        expect(entry.label).toContain(`→ ${s.status} `);
        // Redoc CE 3 shows a sample only when its label is one of the configured languages.
        expect(tabs.has(s.label.toLowerCase()), `no Redoc tab for "${s.label}"`).toBe(true);
      }
    }
  });

  it('leaves the contract and its bundle without samples (they are derived)', () => {
    for (const file of ['openapi.json', 'openapi.yaml', 'docs/openapi.json', 'docs/openapi.yaml']) {
      expect(readFileSync(join(ROOT, 'generated', file), 'utf8')).not.toContain('x-codeSamples');
    }
    expect(JSON.stringify(bundle)).not.toContain('x-codeSamples');
  });
});
