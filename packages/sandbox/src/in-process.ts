// createSandbox(): the sandbox in this process, without a socket, for unit tests (Vitest, jsdom,
// Storybook's test runner under Node) and Mock Service Worker: the same Fastify application as
// `payment-sandbox` serves (routing, validation, auth, rules, problems, idempotency, the clock, every
// answer held to the contract), answering through Fastify's inject instead of a listening server,
// with its data in memory. Webhooks go to the listeners of onWebhook as the signed Request a receiver
// would get, instead of onto the wire.
import { randomBytes } from 'node:crypto';
import { seededStream, withRandom } from '../../../sandbox/app/random.js';
import type { PostResult } from '../../../sandbox/jobs/webhook-post.js';
import { type Sandbox, startSandbox as startServer } from '../../../sandbox/server.js';
import { connectSandbox } from './admin.js';
import type { InProcessOptions, InProcessSandbox, WebhookListener } from './types.js';

const DEFAULT_ORIGIN = 'http://sandbox.payment-service.test';

/** A Request answered by the application: its method, path, headers and body, as a socket would carry them. */
async function inject(sandbox: Sandbox, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const answer = await sandbox.app.inject({
    method: request.method as 'GET',
    url: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(request.headers),
    ...(body !== undefined ? { payload: body } : {}),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  const empty = answer.statusCode === 204 || answer.statusCode === 304 || request.method === 'HEAD';
  return new Response(empty ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers });
}

/** Hands an attempt to the listeners: 200 when every one returned, 500 when one threw (a failed delivery, retried). */
function webhookPost(listeners: Set<WebhookListener>) {
  return async (url: string, headersOf: () => Promise<Record<string, string>>, body: string): Promise<PostResult> => {
    if (listeners.size === 0) return { error: 'no in-process webhook listener (InProcessSandbox.onWebhook)' };
    const headers = await headersOf();
    try {
      for (const listener of [...listeners])
        await listener(
          new Request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body }),
        );
      return { statusCode: 200 };
    } catch {
      return { statusCode: 500 };
    }
  };
}

/** The hosted page of a session, link or HOSTED payment: its URL as given, or found by its id. */
async function hostedPage(sandbox: Sandbox, origin: string, idOrUrl: string): Promise<string> {
  if (/^https?:\/\//.test(idOrUrl)) return idOrUrl;
  for (const merchant of await sandbox.store.merchants.list())
    for (const environment of ['test', 'live'] as const) {
      const scope = { merchantId: merchant.merchantId, environment };
      const found = await sandbox.store.transaction(async (tx) => {
        if (await tx.sessions.get(scope, idOrUrl)) return 'sessions';
        if (await tx.links.get(scope, idOrUrl)) return 'links';
        return (await tx.payments.get(scope, idOrUrl)) ? 'payments' : undefined;
      });
      if (found)
        return `${origin}/hosted/${found}/${environment}/${encodeURIComponent(merchant.merchantId)}/${idOrUrl}`;
    }
  throw new Error(`no checkout session, payment link or HOSTED payment ${idOrUrl} in this sandbox`);
}

/**
 * A sandbox in this process: `fetch(request)` answers as the HTTP sandbox does, with no socket; its
 * data in memory. With `seed`, its ids and keys follow from it (each sandbox draws from its own
 * stream, whatever others run beside it); with `now`, every clock starts there and stays until advanced.
 */
export async function createSandbox(options: InProcessOptions = {}): Promise<InProcessSandbox> {
  const stream = options.seed !== undefined ? seededStream(options.seed) : undefined;
  const origin = new URL(options.origin ?? DEFAULT_ORIGIN).origin;
  const listeners = new Set<WebhookListener>();
  const adminKey = `sbx_admin_${randomBytes(24).toString('base64url')}`;
  // Its start, its jobs (the timers it sets up keep the context) and each of its requests draw from its stream.
  const sandbox = await withRandom(stream, () =>
    startServer({
      database: ':memory:',
      sqliteDriver: options.sqliteDriver,
      listen: false,
      publicUrl: origin,
      adminKey,
      now: options.now === undefined ? undefined : new Date(options.now),
      // Retries a second apart, not the wire's: a listener that throws is tried again soon.
      webhooks: { post: webhookPost(listeners), retryBaseMs: 1_000, pollMs: 50 },
    }),
  );
  const fetch = (request: Request) => withRandom(stream, () => inject(sandbox, request));
  const choose = (decision: 'pay' | 'decline' | 'cancel') => async (idOrUrl: string) => {
    const page = await hostedPage(sandbox, origin, idOrUrl);
    const form = new URLSearchParams(decision === 'pay' ? { decision, method: 'CARD' } : { decision });
    const answer = await fetch(
      new Request(page, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    );
    if (answer.status !== 303 && answer.status !== 200)
      throw new Error(`the hosted page at ${page} refused ${decision}: ${answer.status} ${await answer.text()}`);
  };
  return {
    ...connectSandbox({ origin, adminKey, fetch }),
    origin,
    baseUrl: `${origin}/api/v2`,
    liveBaseUrl: `${origin}/live/api/v2`,
    adminKey,
    fetch,
    onWebhook(listener) {
      listeners.add(listener);
      sandbox.deliverer.kick();
      return () => listeners.delete(listener);
    },
    hosted: { pay: choose('pay'), decline: choose('decline'), cancel: choose('cancel') },
    close: () => sandbox.close(),
  };
}
