// A sandbox composed around an open store: the merchants registered, the test clocks, the webhook
// side (the deliverer and the merchants' listeners), the jobs, and the core that answers requests
// (http/core.ts). No socket and no Node API: sandbox/server.ts puts it on a socket (fastify), the
// in-process sandbox (packages/sandbox) answers fetch with it, in Node or in a browser page.
import { createClocks, type TestClocks } from './app/clock.js';
import {
  type DestinationPolicy,
  destinationPolicy,
  type PrivateNetworks,
  type SelfAddresses,
} from './app/destinations.js';
import type { Retention } from './app/housekeeping.js';
import { createListeners, type Listeners } from './app/listeners.js';
import {
  adoptSecret,
  DEMO_MERCHANT_ID,
  demoCredentials,
  type MerchantCredentials,
  registerMerchants,
} from './app/merchants.js';
import { randomBytes } from './app/random.js';
import type { SandboxSecrets } from './app/secrets.js';
import { giveExamples } from './app/seed.js';
import { DEFAULT_WEBHOOK_SCHEDULE, type WebhookSchedule } from './app/webhooks.js';
import type { Contract } from './contract/contract.js';
import type { AdminDocument } from './http/admin/document.js';
import { createSandboxCore, type SandboxCore } from './http/core.js';
import { startClockTicker } from './jobs/clock-ticker.js';
import { startHousekeeper } from './jobs/housekeeper.js';
import { type Deliverer, SDK_SIGNER, startDeliverer } from './jobs/webhook-deliverer.js';
import type { WebhookPost } from './jobs/webhook-post.js';
import type { Store } from './store/store.js';

export type { MerchantCredentials } from './app/merchants.js';

/** What a sandbox is made of, wherever it answers. */
export interface ComposeOptions {
  contract: Contract;
  /** The admin API's document (served under /_sandbox). */
  adminDocument: AdminDocument;
  /** The keys derived from the sandbox secret. */
  secrets: SandboxSecrets;
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
  /** The address links point at (hosted pages); known once a server listens. */
  publicUrl: () => string;
  /** Webhook delivery: the retry schedule and the outbox's polling. */
  webhooks?: Partial<WebhookSchedule> & {
    pollMs?: number;
    /** Webhooks to private networks and loopback (other than the sandbox's own port): allowed by default. */
    privateNetworks?: PrivateNetworks;
    /** Attempts in flight at once (default 64) and held per merchant (default 4). */
    concurrency?: number;
    perMerchant?: number;
  };
  /** How an attempt is sent, under the destination policy: on the wire (server.ts), or to in-process listeners. */
  post: (destinations: DestinationPolicy, timeoutMs: number) => WebhookPost;
  /** The sandbox's own addresses, never a webhook's destination (known once a server listens). */
  self?: () => SelfAddresses | undefined;
  /** How often the test clocks run what the wall clock's passing made due (default 1000 ms). */
  clockTickMs?: number;
  /** How long delivered and dead-lettered deliveries are kept, and how often housekeeping runs. */
  retention?: Partial<Retention> & { intervalMs?: number };
  /** The admin API's credential (`Authorization: Bearer <adminKey>` under /_sandbox); default: a random one. */
  adminKey?: string;
  /** Origins that may call, from a browser, the operations a browser may call; none: closed. */
  corsOrigins?: readonly string[];
  /** Docs console mode: origins whose pages may call every operation; none: off. */
  consoleOrigins?: readonly string[];
}

export interface ComposedSandbox {
  core: SandboxCore;
  store: Store;
  /** The test clocks, one per scope. */
  clocks: TestClocks;
  /** The admin API's key (given, or made at start). */
  adminKey: string;
  /** The demo merchant's credentials (with `demo: true`). */
  demo?: MerchantCredentials;
  /** The merchants that got the contract's examples at this start. */
  examples: string[];
  /** The merchants' listeners (`payment-sandbox listen`). */
  listeners: Listeners;
  /** Starts webhook delivery and the jobs (once the sandbox answers: its own address is known). */
  start(): Deliverer;
  /** Stops the jobs, the listeners and delivery (what answers requests is closed after, then the store). */
  stop(): Promise<void>;
}

/** A wall clock that stays at `instant`. */
function frozenAt(instant: Date): () => Date {
  const ms = instant.getTime();
  if (Number.isNaN(ms)) throw new Error('now must be a valid instant');
  return () => new Date(ms);
}

/** A fresh admin key (the default of ComposeOptions.adminKey). */
export const newAdminKey = () => `sbx_admin_${randomBytes(24).toString('base64url')}`;

/** Composes a sandbox on `store` (closed here if composing fails; the caller's to close after stop() otherwise). */
export async function composeSandbox(store: Store, options: ComposeOptions): Promise<ComposedSandbox> {
  if (options.adminKey !== undefined && options.adminKey.trim() === '') throw new Error('adminKey must not be empty');
  const { contract, secrets } = options;
  const wall = options.now ? frozenAt(options.now) : () => new Date();
  try {
    await adoptSecret(store, secrets);
    await registerMerchants(store, secrets, options.merchants ?? [], wall());
    const newcomers = options.demo && !(await store.merchants.get(DEMO_MERCHANT_ID)) ? [DEMO_MERCHANT_ID] : [];
    const demo = options.demo ? await demoCredentials(store, secrets, wall()) : undefined;
    const adminKey = options.adminKey ?? newAdminKey();
    let deliverer: Deliverer | undefined;
    const webhooks = webhookParts(options, store, { deliverer: () => deliverer });
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
    const core = createSandboxCore({
      contract,
      store,
      publicUrl: options.publicUrl,
      now: clocks.now,
      secrets,
      onWebhookQueued: queued,
      destinations: webhooks.destinations,
      admin: { key: adminKey, clocks, listeners: webhooks.listeners, secrets, document: options.adminDocument },
      corsOrigins: options.corsOrigins,
      consoleOrigins: options.consoleOrigins,
    });
    let jobs: { stop(): Promise<void> } | undefined;
    return {
      core,
      store,
      clocks,
      adminKey,
      demo,
      examples,
      listeners: webhooks.listeners,
      start() {
        deliverer ??= webhooks.startDelivering();
        jobs ??= startJobs(options, store, clocks);
        return deliverer;
      },
      async stop() {
        await jobs?.stop();
        webhooks.listeners.stop();
        await deliverer?.stop();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The webhook side of a sandbox: where deliveries may go, and the merchants' listeners. */
function webhookParts(options: ComposeOptions, store: Store, parts: { deliverer: () => Deliverer | undefined }) {
  const { pollMs, privateNetworks, concurrency, perMerchant, ...schedule } = options.webhooks ?? {};
  const destinations = destinationPolicy({ privateNetworks, self: options.self ?? (() => undefined) });
  // `payment-sandbox listen`: the merchants' listeners take their scopes' deliveries meanwhile.
  const listeners = createListeners({
    store,
    secrets: options.secrets,
    signer: SDK_SIGNER,
    schedule,
    pollMs,
    onReleased: () => parts.deliverer()?.kick(),
  });
  const startDelivering = () =>
    startDeliverer({
      store,
      secrets: options.secrets,
      schedule,
      pollMs,
      concurrency,
      perMerchant,
      post: options.post(destinations, { ...DEFAULT_WEBHOOK_SCHEDULE, ...schedule }.timeoutMs),
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
function startJobs(options: ComposeOptions, store: Store, clocks: TestClocks): { stop(): Promise<void> } {
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
