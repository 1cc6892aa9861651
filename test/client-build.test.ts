// The package build: `tsc -p tsconfig.build.json` emits ESM JavaScript and .d.ts where package.json
// `exports` points, and the built client works when imported; and the client stays web-standard
// (no Node built-in imported anywhere under src/client).
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../generator/process.js';

const ROOT = join(import.meta.dirname, '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const CLIENT_DIR = join(ROOT, 'src/client');

describe('npm run build', () => {
  let outDir: string;
  beforeAll(async () => {
    // Inside the repository (test-output/ is git-ignored) so that the built files resolve openapi-fetch from node_modules.
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    outDir = await mkdtemp(join(ROOT, 'test-output', 'build-'));
    const build = await runNode(TSC, ['-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT });
    expect(build.stdout + build.stderr, 'tsc output').toBe('');
    expect(build.code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('emits JS and .d.ts where package.json exports point', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string; import?: string }> };
    for (const key of ['.', './webhooks', './types']) {
      for (const target of [pkg.exports[key]!.types!, pkg.exports[key]!.import!]) {
        const built = join(outDir, relative('dist', target));
        expect(existsSync(built), `${key} → ${target}`).toBe(true);
      }
    }
    expect(existsSync(join(outDir, 'generated/operations.js'))).toBe(true);
  });

  it('the built client is ESM that creates a working client', async () => {
    const built = (await import(pathToFileURL(join(outDir, 'src/client/index.js')).href)) as typeof import('../src/client/index.js');
    const fakeFetch = (async () => new Response(JSON.stringify({ id: 'pp_1' }), { status: 200, headers: { 'Content-Type': 'application/json' } })) as typeof fetch;
    const client = built.createPaymentClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9', fetch: fakeFetch });
    expect(await client.paymentPlans.retrieve('pp_1')).toEqual({ id: 'pp_1' });
    expect(new built.PaymentApiError(400, {}, new Headers())).toBeInstanceOf(built.PaymentError);
  });

  it('the built webhooks entry signs and verifies', async () => {
    const built = (await import(pathToFileURL(join(outDir, 'src/webhooks/index.js')).href)) as typeof import('../src/webhooks/index.js');
    const body = '{"payId":"2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c"}';
    const header = await built.signWebhook(body, 'whsec_test');
    await expect(built.verifyWebhookSignature(body, { [built.WEBHOOK_SIGNATURE_HEADER]: header }, 'whsec_test')).resolves.toHaveProperty('timestamp');
    await expect(built.verifyWebhookSignature(body + ' ', { [built.WEBHOOK_SIGNATURE_HEADER]: header }, 'whsec_test')).rejects.toBeInstanceOf(built.WebhookSignatureError);
  });

  it('the client declarations need no Node types', () => {
    for (const file of readdirSync(join(outDir, 'src/client')).filter((f) => f.endsWith('.d.ts'))) {
      expect(readFileSync(join(outDir, 'src/client', file), 'utf8'), file).not.toMatch(/reference types="node"|from 'node:/);
    }
  });
});

// Its imports (relative modules and openapi-fetch only) are held by test/architecture.test.ts.
describe('src/client uses no Node.js globals', () => {
  const files = readdirSync(CLIENT_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

  it.each(files)('%s', (file) => {
    expect(readFileSync(join(CLIENT_DIR, file), 'utf8'), file).not.toMatch(/\b(Buffer|process|require|__dirname)\s*[.(]/);
  });
});
