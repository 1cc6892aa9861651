// The sandbox in this process, without a socket, for unit tests (Vitest, jsdom, Storybook, a browser
// page) and Mock Service Worker: the same core as `payment-sandbox` serves on its socket
// (sandbox/http/core.ts: routing, validation, auth, rules, problems, idempotency, the clock, every
// answer held to the contract), carried a web Request by the fetch adapter instead of fastify, with
// its data in memory. Webhooks go to the listeners of onWebhook as the signed Request a receiver
// would get, instead of onto the wire. No Node API: createSandbox of node-sandbox.ts and of browser.ts give
// it the runtime's store and documents.
import { csprngBytes, seededStream, withRandom } from '../../../sandbox/app/random.js';
import { deriveSecrets, ephemeralSecret } from '../../../sandbox/app/secrets.js';
import { type ComposedSandbox, composeSandbox } from '../../../sandbox/compose.js';
import type { Contract } from '../../../sandbox/contract/contract.js';
import type { AdminDocument } from '../../../sandbox/http/admin/document.js';
import { fetchHandler } from '../../../sandbox/http/fetch-adapter.js';
import type { PostResult } from '../../../sandbox/jobs/webhook-post.js';
import type { Store } from '../../../sandbox/store/store.js';
import { connectSandbox } from './admin.js';
import type { InProcessOptions, InProcessSandbox, WebhookListener } from './types.js';

const DEFAULT_ORIGIN = 'http://sandbox.payment-service.test';

/** What the runtime gives an in-process sandbox: its store in memory and its two documents. */
export interface InProcessRuntime {
  openStore(): Promise<Store>;
  contract: Contract;
  adminDocument: AdminDocument;
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
async function hostedPage(sandbox: ComposedSandbox, origin: string, idOrUrl: string): Promise<string> {
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

/** A sandbox in this process on `runtime`'s store and documents (createSandbox of node-sandbox.ts or browser.ts). */
export async function inProcessSandbox(
  runtime: InProcessRuntime,
  options: InProcessOptions = {},
): Promise<InProcessSandbox> {
  const stream = options.seed !== undefined ? seededStream(options.seed) : undefined;
  const origin = new URL(options.origin ?? DEFAULT_ORIGIN).origin;
  const listeners = new Set<WebhookListener>();
  const adminKey = `sbx_admin_${csprngBytes(24).toString('base64url')}`;
  // Its start, its jobs (the timers it sets up keep the context) and each of its requests draw from its stream.
  const sandbox = await withRandom(stream, async () => {
    const store = await runtime.openStore();
    const composed = await composeSandbox(store, {
      contract: runtime.contract,
      adminDocument: runtime.adminDocument,
      secrets: deriveSecrets(ephemeralSecret()),
      publicUrl: () => origin,
      adminKey,
      now: options.now === undefined ? undefined : new Date(options.now),
      // Retries a second apart, not the wire's: a listener that throws is tried again soon.
      webhooks: { retryBaseMs: 1_000, pollMs: 50 },
      post: () => webhookPost(listeners),
    });
    composed.start();
    return composed;
  });
  const answer = fetchHandler(sandbox.core);
  const fetch = (request: Request) => withRandom(stream, () => answer(request));
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
      sandbox.start().kick();
      return () => listeners.delete(listener);
    },
    hosted: { pay: choose('pay'), decline: choose('decline'), cancel: choose('cancel') },
    async close() {
      await sandbox.stop();
      await sandbox.store.close();
    },
  };
}
