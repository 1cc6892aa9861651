// A running sandbox, composed: the contract loaded, the store opened (migrated), the merchants
// registered, the test clocks and their ticker, the webhook deliverer, the HTTP server listening.
// Used by `npm run sandbox` (sandbox/main.ts), the tests and the benchmark.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createClocks, type TestClocks } from './app/clock.js';
import { destinationPolicy, type PrivateNetworks, type SelfAddresses, selfAddresses } from './app/destinations.js';
import { sandboxFingerprint } from './app/fingerprint.js';
import type { Retention } from './app/housekeeping.js';
import { createListeners } from './app/listeners.js';
import type { WebhookSchedule } from './app/webhooks.js';
import { type Contract, loadContract } from './contract/contract.js';
import type { Merchant } from './domain/types.js';
import { createSandboxApp } from './http/app.js';
import { sha256Hex } from './http/auth.js';
import { startClockTicker } from './jobs/clock-ticker.js';
import { startHousekeeper } from './jobs/housekeeper.js';
import { type Deliverer, SDK_SIGNER, startDeliverer } from './jobs/webhook-deliverer.js';
import type { Resolve } from './jobs/webhook-post.js';
import { openStore } from './store/index.js';
import type { Store } from './store/store.js';

/** A merchant as the `--merchants` file gives it (the API key in clear: it is hashed before it is stored). */
export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
  /** One secret, or several while one is rotated (every one signs: one `v1` each). */
  webhookSecret: string | string[];
  /** Which notification the merchant's webhook URLs receive (default enhanced). */
  webhookKind?: 'basic' | 'enhanced';
}

export interface SandboxOptions {
  host?: string;
  /** 0 for a free port. */
  port?: number;
  /** SQLite file, `:memory:`, or a postgres:// URL. */
  database: string;
  /** Registered (created or replaced) at start. */
  merchants?: MerchantCredentials[];
  /** One line per request. */
  log?: (line: string) => void;
  contract?: Contract;
  /** The address links point at; default `http://<host>:<port>`. */
  publicUrl?: string;
  /** Webhook delivery: the retry schedule (sandbox defaults: 6 attempts over about 30 s) and the outbox's polling. */
  webhooks?: Partial<WebhookSchedule> & {
    pollMs?: number;
    /** Webhooks to private networks and loopback (other than the sandbox's own port): allowed by default. */
    privateNetworks?: PrivateNetworks;
    /** Attempts in flight at once (default 64) and held per merchant (default 4). */
    concurrency?: number;
    perMerchant?: number;
    /** Host name resolution before each attempt (default: DNS); tests give their own. */
    resolve?: Resolve;
  };
  /** How often the test clocks run what the wall clock's passing made due (default 1000 ms). */
  clockTickMs?: number;
  /**
   * How long delivered and dead-lettered webhook deliveries are kept (default 7 and 30 days), and how
   * often housekeeping deletes what is past its retention (default every minute).
   */
  retention?: Partial<Retention> & { intervalMs?: number };
  /** The admin API's credential (`Authorization: Bearer <adminKey>` under /_sandbox); default: a random one per start. */
  adminKey?: string;
}

export interface Sandbox {
  /** `http://127.0.0.1:4020` */
  url: string;
  store: Store;
  app: FastifyInstance;
  /** Webhook delivery from the outbox (`kick()` after a resend). */
  deliverer: Deliverer;
  /** The test clocks, one per scope. */
  clocks: TestClocks;
  /** The admin API's key (given, or made at start). */
  adminKey: string;
  close(): Promise<void>;
}

/** A fresh admin key (the default of SandboxOptions.adminKey). */
export const newAdminKey = () => `sbx_admin_${randomBytes(24).toString('base64url')}`;

/** A demo merchant with fresh credentials (printed by `npm run sandbox`). */
export function demoMerchant(): MerchantCredentials {
  return {
    merchantId: 'demo_merchant',
    apiKey: `sk_test_${randomBytes(16).toString('hex')}`,
    webhookSecret: `whsec_${randomBytes(24).toString('base64url')}`,
  };
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.adminKey !== undefined && options.adminKey.trim() === '') throw new Error('adminKey must not be empty');
  const contract = options.contract ?? loadContract();
  const store = await openStore({ database: options.database });
  try {
    for (const m of options.merchants ?? []) {
      const secrets = typeof m.webhookSecret === 'string' ? [m.webhookSecret] : m.webhookSecret;
      const merchant: Merchant = {
        merchantId: m.merchantId,
        apiKeyHash: sha256Hex(m.apiKey),
        webhookSecret: secrets[0]!,
        ...(secrets.length > 1 ? { webhookSecrets: secrets } : {}),
        ...(m.webhookKind ? { webhookKind: m.webhookKind } : {}),
        createdAt: new Date().toISOString(),
      };
      await store.merchants.upsert(merchant);
    }
    const host = options.host ?? '127.0.0.1';
    let url = '';
    let deliverer: Deliverer | undefined;
    const publicUrl = () => options.publicUrl ?? url;
    const fingerprint = await sandboxFingerprint(store);
    const adminKey = options.adminKey ?? newAdminKey();
    // The sandbox's own addresses, from its server once it listens: never a webhook's destination.
    let self: SelfAddresses | undefined;
    const { pollMs, privateNetworks, concurrency, perMerchant, resolve, ...schedule } = options.webhooks ?? {};
    const destinations = destinationPolicy({ ...(privateNetworks ? { privateNetworks } : {}), self: () => self });
    // `npm run sandbox -- listen`: the merchants' listeners take their scopes' deliveries meanwhile.
    const listeners = createListeners({
      store,
      signer: SDK_SIGNER,
      schedule,
      ...(pollMs !== undefined ? { pollMs } : {}),
      onReleased: () => deliverer?.kick(),
    });
    /** A commit queued deliveries (or made retries due): the deliverer and the listeners look at once. */
    const queued = () => {
      deliverer?.kick();
      listeners.wake();
    };
    const clocks = await createClocks({
      store,
      tables: contract.tables,
      fingerprint,
      onWebhookQueued: queued,
      ...(options.log ? { log: options.log } : {}),
    });
    const app = await createSandboxApp({
      contract,
      store,
      publicUrl,
      now: clocks.now,
      fingerprint,
      onWebhookQueued: queued,
      destinations,
      admin: { key: adminKey, clocks, listeners },
      ...(options.log ? { log: options.log } : {}),
    });
    await app.listen({ host, port: options.port ?? 4020 });
    const listening = app.server.address();
    if (typeof listening === 'object' && listening)
      self = selfAddresses(listening, { host, ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}) });
    deliverer = startDeliverer({
      store,
      schedule,
      destinations,
      ...(pollMs !== undefined ? { pollMs } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(perMerchant !== undefined ? { perMerchant } : {}),
      ...(resolve ? { resolve } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    const { intervalMs, ...retention } = options.retention ?? {};
    const housekeeper = startHousekeeper({
      store,
      retention,
      ...(intervalMs !== undefined ? { intervalMs } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    const ticker = startClockTicker(clocks, {
      ...(options.clockTickMs !== undefined ? { tickMs: options.clockTickMs } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 4020);
    url = `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    return {
      url,
      store,
      app,
      deliverer,
      clocks,
      adminKey,
      async close() {
        await ticker.stop();
        await housekeeper.stop();
        listeners.stop();
        await deliverer?.stop();
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
