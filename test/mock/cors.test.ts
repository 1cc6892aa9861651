// CORS on `npm run mock` (mock/launch.mjs running scripts/mock.ts as a process: Prism behind the front that applies the
// rule of tooling/openapi/cors.ts): closed by default, Prism's own CORS included; with
// `--cors-origin`, preflights answered for the operations a browser may call only, with the mock's
// `Prefer` allowed and `sl-violations` exposed; bad origins refused before anything starts. The
// same rule in Chromium: test/e2e/cors.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { corsHeaders, preflight } from '../support/cors.js';
import { MOCK_ENTRY, startMockCommand } from '../support/prism.js';
import { runCommand } from '../support/sandbox-process.js';

const allowed = 'http://localhost:5173';
/** The docs console's origin (docs console mode, on the same mock as `allowed`). */
const docsConsole = 'http://127.0.0.1:8080';
let closed: ServerProcess | undefined;
let open: ServerProcess | undefined;
beforeAll(async () => {
  const started = await Promise.allSettled([
    startMockCommand(),
    startMockCommand(['--cors-origin', allowed, '--docs-console-origin', docsConsole]),
  ]);
  [closed, open] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}, 90_000);
afterAll(async () => {
  await Promise.all([closed?.stop(), open?.stop()]);
});

const confirm = (base: string, origin: string, body: unknown = { integrationType: 'DIRECT', type: 'CARD' }) =>
  fetch(`${base}/payment-intents/pi_1/confirm`, {
    method: 'POST',
    headers: { origin, authorization: 'Bearer any', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('npm run mock: CORS', () => {
  it('is closed by default: no preflight answered, no Access-Control-* header on any operation', async () => {
    const base = closed!.baseUrl;
    for (const path of ['/payment-intents/pi_1/confirm', '/payments/sessions', '/customers', '/anything']) {
      const r = await preflight(base, path, allowed);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(corsHeaders(r), path).toEqual([]);
    }
    await vi.waitFor(() =>
      expect(closed!.output()).toContain(
        `CORS: ${allowed} asked to call confirmPaymentIntent from a browser; CORS is closed: allow the origin with --cors-origin or PAYMENT_API_CORS_ORIGINS`,
      ),
    );
    const confirmed = await confirm(base, allowed);
    expect(confirmed.status).toBe(201);
    expect(corsHeaders(confirmed)).toEqual([]);
    const customers = await fetch(`${base}/customers`, {
      headers: { origin: allowed, authorization: 'Basic bTprZXk=' },
    });
    expect(customers.status).toBe(200);
    expect(corsHeaders(customers)).toEqual([]);
  });

  it('with --cors-origin: the preflight of confirmPaymentIntent only, its headers, and Prefer and sl-violations for the mock', async () => {
    const base = open!.baseUrl;
    const ok = await preflight(
      base,
      '/payment-intents/pi_1/confirm',
      allowed,
      'POST',
      'authorization,content-type,prefer',
    );
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    expect(ok.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, Prefer');
    const other = await preflight(base, '/payment-intents/pi_1/confirm', 'http://localhost:5174');
    expect(other.status).toBe(403);
    expect(corsHeaders(other)).toEqual([]);
    for (const path of ['/payments/sessions', '/payment-intents', '/payment-intents/pi_1', '/customers']) {
      const r = await preflight(base, path, allowed);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(corsHeaders(r), path).toEqual([]);
    }
    // the console says why, for the preflights Prism refuses and those the rule refuses
    await vi.waitFor(() =>
      expect(open!.output()).toContain(
        `CORS: ${allowed} asked to call createCheckoutSession from a browser; it takes merchant credentials, which stay on servers: call it from your back end`,
      ),
    );
    await vi.waitFor(() =>
      expect(open!.output()).toContain(
        'CORS: refused the preflight of POST /payment-intents/pi_1/confirm from http://localhost:5174',
      ),
    );
    const invalid = await confirm(base, allowed, {});
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(invalid.headers.get('access-control-expose-headers')).toBe(
      'Idempotent-Replayed, WWW-Authenticate, Retry-After, sl-violations',
    );
    expect(invalid.headers.get('sl-violations')).toMatch(/integrationType/);
    expect(corsHeaders(await confirm(base, 'http://localhost:5174'))).toEqual([]);
    const session = await fetch(`${base}/customers`, { headers: { origin: allowed, authorization: 'Basic bTprZXk=' } });
    expect(session.status).toBe(200);
    expect(corsHeaders(session)).toEqual([]);
  });

  it('with --docs-console-origin: that origin may call every operation, the others as before', async () => {
    const base = open!.baseUrl;
    const ok = await preflight(base, '/customers', docsConsole, 'GET', 'authorization');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(docsConsole);
    const customers = await fetch(`${base}/customers`, {
      headers: { origin: docsConsole, authorization: 'Basic bTprZXk=' },
    });
    expect(customers.status).toBe(200);
    expect(customers.headers.get('access-control-allow-origin')).toBe(docsConsole);
    // the app's origin still reaches only the bearer operation
    const fromApp = await fetch(`${base}/customers`, { headers: { origin: allowed, authorization: 'Basic bTprZXk=' } });
    expect(fromApp.headers.get('access-control-allow-origin')).toBeNull();
    expect(open!.output()).toContain(`docs console ${docsConsole}`);
  });

  it('refuses an origin that is not one, before starting Prism (exit 2, the problem named)', async () => {
    for (const [args, env, message] of [
      [['--cors-origin', '*'], {}, /--cors-origin: \*: wildcards are not accepted/],
      [['--cors-origin', 'http://localhost:5173/app'], {}, /--cors-origin: .*no path \(drop \/app\)/],
      [
        [],
        { PAYMENT_API_CORS_ORIGINS: 'http://localhost:5173,localhost:3000' },
        /PAYMENT_API_CORS_ORIGINS: localhost:3000 is not an origin/,
      ],
    ] as const) {
      const run = await runCommand(process.execPath, [MOCK_ENTRY, '--port', '1', ...args], {
        env,
        timeoutMs: 20_000,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });
});
