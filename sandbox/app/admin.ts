// The sandbox's control surface as use cases (the admin API and the CLI call them): listing the
// merchants, resetting data, the webhook deliveries. The test clocks are app/clock.ts; resends app/webhooks.ts;
// the contract's examples app/seed.ts.
import type { Environment, Merchant, Scope, WebhookDelivery } from '../domain/types.js';
import type { DataFilter, ResetCounts, Store, WebhookOutbox } from '../store/store.js';
import type { TestClocks } from './clock.js';
import { notFound, type Rejection } from './outcomes.js';
import { type ExampleDeps, seedExamples } from './seed.js';

export const listMerchants = (store: Store): Promise<Merchant[]> => store.merchants.list();

/** The scope a merchant id and environment name, or a rejection when the merchant is unknown. */
export async function merchantScope(
  store: Store,
  merchantId: string,
  environment: Environment,
): Promise<Scope | Rejection> {
  return (await store.merchants.get(merchantId)) ? { merchantId, environment } : notFound('Merchant', merchantId);
}

/**
 * Deletes every scoped record of the scopes `filter` selects (merchants and their credentials stay),
 * and with `examples` gives the contract's examples to the reset test roots (or the environment the
 * filter names), in one transaction; the clocks of this process forget their offsets.
 */
export async function resetData(
  store: Store,
  clocks: Pick<TestClocks, 'refresh' | 'wall'>,
  filter: DataFilter,
  seed: { examples?: ExampleDeps },
): Promise<{ deleted: ResetCounts; examples: Scope[] } | Rejection> {
  if (filter.merchantId !== undefined && !(await store.merchants.get(filter.merchantId)))
    return notFound('Merchant', filter.merchantId);
  const merchants = (await store.merchants.list()).filter(
    (m) => filter.merchantId === undefined || m.merchantId === filter.merchantId,
  );
  const result = await store.transaction(async (tx) => {
    const deleted = await tx.data.reset(filter);
    const seeded: Scope[] = [];
    if (!seed.examples) return { deleted, examples: seeded };
    // The reset deleted the scopes' clocks too: their time is the wall clock's again.
    const now = clocks.wall();
    for (const merchant of merchants) {
      const scope: Scope = { merchantId: merchant.merchantId, environment: filter.environment ?? 'test' };
      await seedExamples(seed.examples, tx, merchant, scope, now);
      seeded.push(scope);
    }
    return { deleted, examples: seeded };
  });
  // This process's cached clock offsets; other processes re-read theirs on their next tick.
  await clocks.refresh();
  return result;
}

export const listDeliveries = (
  store: Store,
  filter: Parameters<WebhookOutbox['list']>[0],
): Promise<WebhookDelivery[]> => store.webhooks.list(filter);

export async function findDelivery(store: Store, id: string): Promise<{ delivery: WebhookDelivery } | Rejection> {
  const delivery = await store.webhooks.find(id);
  return delivery ? { delivery } : notFound('Webhook delivery', id);
}
