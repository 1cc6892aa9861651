// A running sandbox: the store opened (migrated), the merchants registered, the HTTP server listening.
// Used by `npm run sandbox` (sandbox/main.ts), the tests and the benchmark.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from './http/auth.js';
import { createSandboxApp } from './http/app.js';
import { loadContract, type Contract } from './http/contract.js';
import type { Merchant } from './domain/types.js';
import { openStore } from './store/index.js';
import type { Store } from './store/store.js';

/** A merchant as the `--merchants` file gives it (the API key in clear: it is hashed before it is stored). */
export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
  webhookSecret: string;
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
}

export interface Sandbox {
  /** `http://127.0.0.1:4020` */
  url: string;
  store: Store;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** A demo merchant with fresh credentials (printed by `npm run sandbox`). */
export function demoMerchant(): MerchantCredentials {
  return { merchantId: 'demo_merchant', apiKey: `sk_test_${randomBytes(16).toString('hex')}`, webhookSecret: `whsec_${randomBytes(24).toString('base64url')}` };
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const contract = options.contract ?? loadContract();
  const store = await openStore({ database: options.database });
  try {
    for (const m of options.merchants ?? []) {
      const merchant: Merchant = { merchantId: m.merchantId, apiKeyHash: sha256Hex(m.apiKey), webhookSecret: m.webhookSecret, createdAt: new Date().toISOString() };
      await store.merchants.upsert(merchant);
    }
    const host = options.host ?? '127.0.0.1';
    let url = '';
    const app = await createSandboxApp({ contract, store, publicUrl: () => options.publicUrl ?? url, ...(options.log ? { log: options.log } : {}) });
    await app.listen({ host, port: options.port ?? 4020 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 4020);
    url = `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    return {
      url,
      store,
      app,
      async close() {
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
