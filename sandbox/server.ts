// A running sandbox on a socket: the contract loaded, the store opened (migrated), the sandbox
// composed on it (compose.ts: merchants, test clocks, webhooks, jobs, the core), fastify listening.
// Used by `npm run sandbox` (sandbox/main.ts), the tests and the benchmark.
import type { FastifyInstance } from 'fastify';
import type { TestClocks } from './app/clock.js';
import { type SelfAddresses, selfAddresses } from './app/destinations.js';
import type { MerchantCredentials } from './app/merchants.js';
import { deriveSecrets, ephemeralSecret } from './app/secrets.js';
import { type ComposeOptions, composeSandbox } from './compose.js';
import type { Contract } from './contract/contract.js';
import { loadAdminDocument, loadContract } from './documents.js';
import { createSandboxApp } from './http/fastify-adapter.js';
import type { ServerLimits } from './http/limits.js';
import type { Deliverer } from './jobs/webhook-deliverer.js';
import { type Resolve, type WebhookPost, webhookPoster } from './jobs/webhook-post.js';
import { localAddresses } from './platform/node.js';
import { openStore } from './store/index.js';
import type { Store } from './store/store.js';

export type { MerchantCredentials } from './app/merchants.js';
export { newAdminKey } from './compose.js';

export interface SandboxOptions
  extends Omit<ComposeOptions, 'contract' | 'adminDocument' | 'secrets' | 'publicUrl' | 'post' | 'self' | 'webhooks'> {
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
  /** Default: loadContract(). */
  contract?: Contract;
  /** The address links point at; default `http://<host>:<port>`. */
  publicUrl?: string;
  /** Webhook delivery (sandbox defaults: 6 attempts over about 30 s), on the wire. */
  webhooks?: ComposeOptions['webhooks'] & {
    /** Host name resolution before each attempt (default: DNS); tests give their own. */
    resolve?: Resolve;
    /** How an attempt is sent (default: on the wire under the destination policy). */
    post?: WebhookPost;
  };
  /** Timeouts and caps on connections (default DEFAULT_SERVER_LIMITS, in sandbox/http/limits.ts). */
  limits?: Partial<ServerLimits>;
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

/** The address clients use for a server listening on `host` and `port` (the wildcard address as loopback). */
const urlOf = (host: string, port: number) =>
  `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const contract = options.contract ?? loadContract();
  if (options.secret === undefined && options.database !== ':memory:')
    throw new Error('a sandbox on a file or PostgreSQL needs its secret (SandboxOptions.secret)');
  const secrets = deriveSecrets(options.secret ?? ephemeralSecret());
  const host = options.host ?? '127.0.0.1';
  let url = '';
  // The sandbox's own addresses, from its server once it listens: never a webhook's destination.
  let self: SelfAddresses | undefined;
  const { resolve, post, ...webhooks } = options.webhooks ?? {};
  const store = await openStore({ database: options.database, sqliteDriver: options.sqliteDriver });
  const sandbox = await composeSandbox(store, {
    ...options,
    contract,
    adminDocument: loadAdminDocument(),
    secrets,
    publicUrl: () => options.publicUrl ?? url,
    self: () => self,
    webhooks,
    post: (policy, timeoutMs) => post ?? webhookPoster({ policy, timeoutMs, resolve }),
  });
  try {
    const app = await createSandboxApp(sandbox.core, { log: options.log, limits: options.limits });
    await app.listen({ host, port: options.port ?? 4020 });
    const address = app.server.address();
    if (typeof address === 'object' && address)
      self = selfAddresses(address, { host, publicUrl: options.publicUrl, interfaces: localAddresses() });
    url = urlOf(host, typeof address === 'object' && address ? address.port : (options.port ?? 4020));
    const deliverer = sandbox.start();
    return {
      url,
      store,
      app,
      deliverer,
      clocks: sandbox.clocks,
      adminKey: sandbox.adminKey,
      demo: sandbox.demo,
      examples: sandbox.examples,
      async close() {
        await sandbox.stop();
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    await sandbox.stop();
    await store.close();
    throw err;
  }
}
