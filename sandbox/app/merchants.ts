// Merchants and their credentials: registered at start (from a merchants file, or the demo merchant
// the sandbox makes), created and deleted at run time (a merchant per test worker), their API keys rotated, their webhook secrets opened for signing. The store
// keeps only what the sandbox secret protects: a keyed digest of each API key, the webhook secrets
// sealed, and for the demo merchant its API key sealed, so that a restart on the same data shows the
// same credentials.
import type { Merchant, Scope } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { CheckedData, DataErrors } from './data-file.js';
import { DataConflict, loadData } from './data-load.js';
import { notFound, type Rejection } from './outcomes.js';
import { randomBytes } from './random.js';
import { type SandboxSecrets, SecretMismatchError } from './secrets.js';
import { type ExampleDeps, type ExampleObject, seedExamples } from './seed.js';
import type { SeededObject, SeedingDeps } from './seeding.js';

/** A merchant as the `--merchants` file gives it (the API key in clear: only its digest is stored). */
export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
  /** One secret, or several while one is rotated (every one signs: one `v1` each). */
  webhookSecret: string | string[];
  /** Which notification the merchant's webhook URLs receive (default enhanced). */
  webhookKind?: 'basic' | 'enhanced';
}

/** The merchant the sandbox makes when no merchants file is given. */
export const DEMO_MERCHANT_ID = 'demo_merchant';

const newApiKey = () => `sk_test_${randomBytes(16).toString('hex')}`;
const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** Fresh credentials for `merchantId`. */
export const newCredentials = (merchantId: string): MerchantCredentials & { webhookSecret: string } => ({
  merchantId,
  apiKey: newApiKey(),
  webhookSecret: newWebhookSecret(),
});

const secretList = (secret: string | string[]) => (typeof secret === 'string' ? [secret] : secret);

async function merchantRecord(
  credentials: MerchantCredentials,
  secrets: SandboxSecrets,
  createdAt: string,
  keepApiKey: boolean,
): Promise<Merchant> {
  return {
    merchantId: credentials.merchantId,
    apiKeyHash: secrets.apiKeyDigest(credentials.apiKey),
    sealedWebhookSecrets: await secrets.seal(JSON.stringify(secretList(credentials.webhookSecret))),
    sealedApiKey: keepApiKey ? await secrets.seal(credentials.apiKey) : undefined,
    webhookKind: credentials.webhookKind,
    createdAt,
  };
}

/** The secrets an enhanced notification of `merchant` is signed with. */
export const webhookSecretsOf = async (merchant: Merchant, secrets: SandboxSecrets): Promise<string[]> =>
  JSON.parse(await secrets.unseal(merchant.sealedWebhookSecrets)) as string[];

/** Creates or replaces the merchants given at start (`now`: a new one's creation time). */
export async function registerMerchants(store: Store, secrets: SandboxSecrets, list: MerchantCredentials[], now: Date) {
  for (const credentials of list) {
    const existing = await store.merchants.get(credentials.merchantId);
    await store.merchants.upsert(
      await merchantRecord(credentials, secrets, existing?.createdAt ?? now.toISOString(), false),
    );
  }
}

/**
 * The demo merchant's credentials: those it was given on an earlier start on this data, else new
 * ones (stored, the API key sealed).
 */
export async function demoCredentials(store: Store, secrets: SandboxSecrets, now: Date): Promise<MerchantCredentials> {
  const existing = await store.merchants.get(DEMO_MERCHANT_ID);
  if (existing?.sealedApiKey !== undefined) {
    const [webhookSecret] = await webhookSecretsOf(existing, secrets);
    return {
      merchantId: DEMO_MERCHANT_ID,
      apiKey: await secrets.unseal(existing.sealedApiKey),
      webhookSecret: webhookSecret!,
    };
  }
  const credentials = newCredentials(DEMO_MERCHANT_ID);
  await store.merchants.upsert(
    await merchantRecord(credentials, secrets, existing?.createdAt ?? now.toISOString(), true),
  );
  return credentials;
}

/** What a merchant created at run time may be given. */
export interface NewMerchant {
  /** Default: `merchant_` and 16 hexadecimal digits. */
  merchantId?: string;
  webhookKind?: 'basic' | 'enhanced';
  /** Its test root gets the contract's examples. */
  examples?: ExampleDeps;
  /** Its test root gets a data file (after the examples, if both). */
  data?: { deps: SeedingDeps; file: CheckedData };
}

/** A merchant just created: its credentials (shown once) and what the examples made. */
export interface CreatedMerchant {
  credentials: MerchantCredentials & { webhookSecret: string; webhookKind: 'basic' | 'enhanced' };
  createdAt: string;
  examples?: ExampleObject[];
  /** What the data file made. */
  data?: SeededObject[];
}

/**
 * Creates a merchant with new credentials, and gives its test root the contract's examples
 * (`examples`) and a data file (`data`) in one transaction; a taken id is a conflict, and a data
 * file that collides with the examples a data conflict (nothing of the merchant is kept).
 */
export async function createMerchant(
  store: Store,
  secrets: SandboxSecrets,
  wanted: NewMerchant,
  now: Date,
): Promise<CreatedMerchant | { conflict: string } | { dataConflict: DataErrors }> {
  const merchantId = wanted.merchantId ?? `merchant_${randomBytes(8).toString('hex')}`;
  const webhookKind = wanted.webhookKind ?? 'enhanced';
  const credentials = { ...newCredentials(merchantId), webhookKind };
  const createdAt = now.toISOString();
  const merchant = await merchantRecord(credentials, secrets, createdAt, false);
  if (!(await store.merchants.insert(merchant)))
    return { conflict: `a merchant ${merchantId} exists; choose another merchantId, or delete that merchant first` };
  if (!wanted.examples && !wanted.data) return { credentials, createdAt };
  const scope: Scope = { merchantId, environment: 'test' };
  try {
    const made = await store.transaction(async (tx) => ({
      ...(wanted.examples ? { examples: await seedExamples(wanted.examples, tx, merchant, scope, now) } : {}),
      ...(wanted.data ? { data: await loadData(wanted.data.deps, tx, merchant, scope, now, wanted.data.file) } : {}),
    }));
    return { credentials, createdAt, ...made };
  } catch (err) {
    // The merchant goes too: a refused call leaves nothing behind.
    await deleteMerchant(store, merchantId);
    if (err instanceof DataConflict) return { dataConflict: err.errors };
    // A new merchant holds nothing the examples could collide with: a failure here is the contract's.
    throw err;
  }
}

/** Deletes a merchant and all its data, in one transaction. */
export async function deleteMerchant(store: Store, merchantId: string): Promise<{ deleted: true } | Rejection> {
  const deleted = await store.transaction((tx) => tx.data.deleteMerchant(merchantId));
  return deleted ? { deleted: true } : notFound('Merchant', merchantId);
}

/**
 * A new API key for `merchantId`; the old one is refused at once by this process and within the
 * credential cache's lifetime by every other process on the database.
 */
export async function rotateApiKey(
  store: Store,
  secrets: SandboxSecrets,
  merchantId: string,
): Promise<{ apiKey: string } | Rejection> {
  const merchant = await store.merchants.get(merchantId);
  if (!merchant) return notFound('Merchant', merchantId);
  const apiKey = newApiKey();
  await store.merchants.upsert({
    ...merchant,
    apiKeyHash: secrets.apiKeyDigest(apiKey),
    // Kept sealed only where it was: the demo merchant's, shown again after a restart.
    sealedApiKey: merchant.sealedApiKey === undefined ? undefined : await secrets.seal(apiKey),
  });
  return { apiKey };
}

/**
 * Binds the database to the sandbox secret on its first start, and refuses another secret later:
 * every process of a team must run with the same one, or their tokens, digests and seals disagree.
 * Also seals what an earlier version of the sandbox kept in clear.
 */
export async function adoptSecret(store: Store, secrets: SandboxSecrets): Promise<void> {
  const bound = await store.setting('sandbox-secret-check', () => secrets.check);
  if (bound !== secrets.check) {
    throw new SecretMismatchError(
      `the database at ${store.location} was set up with another sandbox secret: give every process the same SANDBOX_SECRET or --secret-file`,
    );
  }
  for (const merchant of await store.merchants.list()) {
    const legacy = merchant as Merchant & { webhookSecret?: string; webhookSecrets?: string[] };
    if (legacy.sealedWebhookSecrets !== undefined || legacy.webhookSecret === undefined) continue;
    const { webhookSecret, webhookSecrets, ...rest } = legacy;
    // Its API key was kept as an unkeyed digest, which no longer authenticates: the merchants file re-registers it.
    await store.merchants.upsert({
      ...rest,
      apiKeyHash: '',
      sealedWebhookSecrets: await secrets.seal(JSON.stringify(webhookSecrets ?? [webhookSecret])),
    });
  }
}
