// A running sandbox, composed: the contract loaded, the store opened (migrated), the merchants
// registered, the test clocks and their ticker, the webhook deliverer, the HTTP server listening.
// Used by `npm run sandbox` (sandbox/main.ts), the tests and the benchmark.
import type { FastifyInstance } from 'fastify';
import { createClocks, type TestClocks } from './app/clock.js';
import { destinationPolicy, type PrivateNetworks, type SelfAddresses, selfAddresses } from './app/destinations.js';
import type { Retention } from './app/housekeeping.js';
import { createListeners } from './app/listeners.js';
import {
  adoptSecret,
  DEMO_MERCHANT_ID,
  demoCredentials,
  type MerchantCredentials,
  registerMerchants,
} from './app/merchants.js';
import { randomBytes } from './app/random.js';
import { deriveSecrets, ephemeralSecret, type SandboxSecrets } from './app/secrets.js';
import { giveExamples } from './app/seed.js';
import type { WebhookSchedule } from './app/webhooks.js';
import { type Contract, loadContract } from './contract/contract.js';
import { createSandboxApp } from './http/app.js';
import type { ServerLimits } from './http/limits.js';
import { startClockTicker } from './jobs/clock-ticker.js';
import { startHousekeeper } from './jobs/housekeeper.js';
import { type Deliverer, SDK_SIGNER, startDeliverer } from './jobs/webhook-deliverer.js';
import type { Resolve, WebhookPost } from './jobs/webhook-post.js';
import { openStore } from './store/index.js';
import type { Store } from './store/store.js';

export type { MerchantCredentials } from './app/merchants.js';

export interface SandboxOptions {
  host?: string;
  /** 0 for a free port. */
  port?: number;
  /** SQLite file, `:memory:`, or a postgres:// URL. */
  database: string;
  /** The SQLite build of a `:memory:` database (OpenStoreOptions.sqliteDriver); default: native when it loads, else wasm. */
  sqliteDriver?: 'native' | 'wasm';
  /**
   * The sandbox secret every key is derived from (see app/secrets.ts): required for data that
   * outlives the process (a file, PostgreSQL); a `:memory:` sandbox makes one of its own.
   */
  secret?: string;
  /** Registered (created or replaced) at start. */
  merchants?: MerchantCredentials[];
  /**
   * The instant every clock starts at and stays at until advanced (the wall clock frozen there), for
   * responses and webhook bodies that do not change from run to run; default: the wall clock.
   */
  now?: Date;
  /**
   * The demo merchant: its credentials persist with the data (a restart shows the same ones; a reset
   * keeps them). On a database new to it, its test root gets the contract's examples.
   */
  demo?: boolean;
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
    /** How an attempt is sent (default: on the wire); an in-process sandbox hands it to its listeners. */
    post?: WebhookPost;
  };
  /** How often the test clocks run what the wall clock's passing made due (default 1000 ms). */
  clockTickMs?: number;
  /** Timeouts and caps on connections (default DEFAULT_SERVER_LIMITS, in sandbox/http/limits.ts). */
  limits?: Partial<ServerLimits>;
  /**
   * How long delivered and dead-lettered webhook deliveries are kept (default 7 and 30 days), and how
   * often housekeeping deletes what is past its retention (default every minute).
   */
  retention?: Partial<Retention> & { intervalMs?: number };
  /** The admin API's credential (`Authorization: Bearer <adminKey>` under /_sandbox); default: a random one per start. */
  adminKey?: string;
  /** Origins that may call, from a browser, the operations a browser may call (docs/sandbox.md#cors); none: closed. */
  corsOrigins?: readonly string[];
  /** Docs console mode: origins whose pages may call every operation (docs/sandbox.md#docs-console-mode); none: off. */
  consoleOrigins?: readonly string[];
  /**
   * Listen on `host` and `port` (default). False: the server is made ready and answers through
   * `app.inject` only, no socket (an in-process sandbox); `publicUrl` is then its address.
   */
  listen?: boolean;
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
  /** The demo merchant's credentials (with `demo: true`). */
  demo?: MerchantCredentials;
  /** The merchants that got the contract's examples at this start. */
  examples: string[];
  close(): Promise<void>;
}

/** A wall clock that stays at `instant`. */
function frozenAt(instant: Date): () => Date {
  const ms = instant.getTime();
  if (Number.isNaN(ms)) throw new Error('now must be a valid instant');
  return () => new Date(ms);
}

/** A fresh admin key (the default of SandboxOptions.adminKey). */
export const newAdminKey = () => `sbx_admin_${randomBytes(24).toString('base64url')}`;

/** The webhook side of a sandbox: where deliveries may go, and the merchants' listeners. */
function webhookParts(
  options: SandboxOptions,
  store: Store,
  secrets: SandboxSecrets,
  parts: { self: () => SelfAddresses | undefined; deliverer: () => Deliverer | undefined },
) {
  const { pollMs, privateNetworks, concurrency, perMerchant, resolve, post, ...schedule } = options.webhooks ?? {};
  const destinations = destinationPolicy({ privateNetworks, self: parts.self });
  // `npm run sandbox -- listen`: the merchants' listeners take their scopes' deliveries meanwhile.
  const listeners = createListeners({
    store,
    secrets,
    signer: SDK_SIGNER,
    schedule,
    pollMs,
    onReleased: () => parts.deliverer()?.kick(),
  });
  /** Starts the deliverer (once the server listens: its own address is known). */
  const startDelivering = () =>
    startDeliverer({
      store,
      secrets,
      schedule,
      destinations,
      pollMs,
      concurrency,
      perMerchant,
      resolve,
      post,
      log: options.log,
    });
  return { destinations, listeners, startDelivering };
}

/** Gives the merchants new to this database the contract's examples (a failure is reported, not fatal); those that got them. */
async function giveNewcomersExamples(
  store: Store,
  contract: Contract,
  secrets: SandboxSecrets,
  clocks: TestClocks,
  newcomers: readonly string[],
): Promise<string[]> {
  const examples: string[] = [];
  for (const merchantId of newcomers) {
    const scope = { merchantId, environment: 'test' as const };
    const deps = { examples: contract.examples, tables: contract.tables, fingerprint: secrets.fingerprint };
    const made = await giveExamples(store, deps, merchantId, 'test', clocks.now(scope));
    if ('objects' in made) examples.push(merchantId);
    else
      console.error(
        `sandbox: ${merchantId} did not get the contract's examples: ${'conflict' in made ? made.conflict : `no merchant ${merchantId}`}`,
      );
  }
  return examples;
}

/** The jobs that run beside the server: housekeeping and the clock ticker; stop() waits for a run in progress. */
function startJobs(options: SandboxOptions, store: Store, clocks: TestClocks): { stop(): Promise<void> } {
  const { intervalMs, ...retention } = options.retention ?? {};
  const housekeeper = startHousekeeper({ store, retention, intervalMs, log: options.log });
  const ticker = startClockTicker(clocks, { tickMs: options.clockTickMs, log: options.log });
  return {
    async stop() {
      await ticker.stop();
      await housekeeper.stop();
    },
  };
}

/** The address clients use for a server listening on `host` and `port` (the wildcard address as loopback). */
const urlOf = (host: string, port: number) =>
  `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.adminKey !== undefined && options.adminKey.trim() === '') throw new Error('adminKey must not be empty');
  const contract = options.contract ?? loadContract();
  if (options.secret === undefined && options.database !== ':memory:')
    throw new Error('a sandbox on a file or PostgreSQL needs its secret (SandboxOptions.secret)');
  const secrets = deriveSecrets(options.secret ?? ephemeralSecret());
  const wall = options.now ? frozenAt(options.now) : () => new Date();
  const store = await openStore({ database: options.database, sqliteDriver: options.sqliteDriver });
  try {
    await adoptSecret(store, secrets);
    await registerMerchants(store, secrets, options.merchants ?? [], wall());
    const newcomers = options.demo && !(await store.merchants.get(DEMO_MERCHANT_ID)) ? [DEMO_MERCHANT_ID] : [];
    const demo = options.demo ? await demoCredentials(store, secrets, wall()) : undefined;
    const host = options.host ?? '127.0.0.1';
    let url = '';
    let deliverer: Deliverer | undefined;
    const adminKey = options.adminKey ?? newAdminKey();
    // The sandbox's own addresses, from its server once it listens: never a webhook's destination.
    let self: SelfAddresses | undefined;
    const webhooks = webhookParts(options, store, secrets, { self: () => self, deliverer: () => deliverer });
    /** A commit queued deliveries (or made retries due): the deliverer and the listeners look at once. */
    const queued = () => {
      deliverer?.kick();
      webhooks.listeners.wake();
    };
    const clocks = await createClocks({
      store,
      wall,
      tables: contract.tables,
      fingerprint: secrets.fingerprint,
      onWebhookQueued: queued,
      log: options.log,
    });
    const examples = await giveNewcomersExamples(store, contract, secrets, clocks, newcomers);
    const app = await createSandboxApp({
      contract,
      store,
      publicUrl: () => options.publicUrl ?? url,
      now: clocks.now,
      secrets,
      onWebhookQueued: queued,
      destinations: webhooks.destinations,
      limits: options.limits,
      admin: {
        key: adminKey,
        clocks,
        listeners: webhooks.listeners,
        secrets,
      },
      log: options.log,
      corsOrigins: options.corsOrigins,
      consoleOrigins: options.consoleOrigins,
    });
    if (options.listen === false) {
      await app.ready();
      url = options.publicUrl ?? 'http://sandbox.invalid';
    } else {
      await app.listen({ host, port: options.port ?? 4020 });
      const address = app.server.address();
      if (typeof address === 'object' && address) self = selfAddresses(address, { host, publicUrl: options.publicUrl });
      url = urlOf(host, typeof address === 'object' && address ? address.port : (options.port ?? 4020));
    }
    deliverer = webhooks.startDelivering();
    const jobs = startJobs(options, store, clocks);
    return {
      url,
      store,
      app,
      deliverer,
      clocks,
      adminKey,
      demo,
      examples,
      async close() {
        await jobs.stop();
        webhooks.listeners.stop();
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
