// The sandbox's control surface as use cases (the admin API and the CLI call them): listing the
// merchants, resetting data, the webhook deliveries. The test clocks are app/clock.ts; resends app/webhooks.ts;
// the contract's examples app/seed.ts.
import type { Environment, Merchant, Scope, WebhookDelivery } from '../domain/types.js';
import type { DataFilter, ResetCounts, SnapshotInfo, Store, WebhookOutbox } from '../store/store.js';
import type { TestClocks } from './clock.js';
import type { CheckedData, DataErrors } from './data-file.js';
import { DataConflict, loadData } from './data-load.js';
import { notFound, type Rejection } from './outcomes.js';
import { randomBytes } from './random.js';
import { type ExampleDeps, seedExamples } from './seed.js';
import type { SeedingDeps } from './seeding.js';

export const listMerchants = (store: Store): Promise<Merchant[]> => store.merchants.list();

/** The scope a merchant id and environment name, or a rejection when the merchant is unknown. */
export async function merchantScope(
  store: Store,
  merchantId: string,
  environment: Environment,
): Promise<Scope | Rejection> {
  return (await store.merchants.get(merchantId)) ? { merchantId, environment } : notFound('Merchant', merchantId);
}

/** What a reset gives the scopes it empties: the contract's examples, a team's data file, or both (examples first). */
export interface ResetSeed {
  examples?: ExampleDeps;
  data?: { deps: SeedingDeps; file: CheckedData };
}

/**
 * Deletes every scoped record of the scopes `filter` selects (merchants and their credentials stay),
 * and with `examples` gives the contract's examples, with `data` a data file, to the reset test
 * roots (or the environment the filter names), in one transaction; the clocks of this process
 * forget their offsets. A data file that collides with what the examples made changes nothing.
 */
export async function resetData(
  store: Store,
  clocks: Pick<TestClocks, 'refresh' | 'wall'>,
  filter: DataFilter,
  seed: ResetSeed,
): Promise<{ deleted: ResetCounts; examples: Scope[]; data: Scope[] } | { dataConflict: DataErrors } | Rejection> {
  if (filter.merchantId !== undefined && !(await store.merchants.get(filter.merchantId)))
    return notFound('Merchant', filter.merchantId);
  const merchants = (await store.merchants.list()).filter(
    (m) => filter.merchantId === undefined || m.merchantId === filter.merchantId,
  );
  const work = store.transaction(async (tx) => {
    const deleted = await tx.data.reset(filter);
    const given = { examples: [] as Scope[], data: [] as Scope[] };
    // The reset deleted the scopes' clocks too: their time is the wall clock's again.
    const now = clocks.wall();
    for (const merchant of merchants) {
      const scope: Scope = { merchantId: merchant.merchantId, environment: filter.environment ?? 'test' };
      if (seed.examples) {
        await seedExamples(seed.examples, tx, merchant, scope, now);
        given.examples.push(scope);
      }
      if (seed.data) {
        await loadData(seed.data.deps, tx, merchant, scope, now, seed.data.file);
        given.data.push(scope);
      }
    }
    return { deleted, ...given };
  });
  try {
    return await work;
  } catch (err) {
    if (err instanceof DataConflict) return { dataConflict: err.errors };
    throw err;
  } finally {
    // This process's cached clock offsets; other processes re-read theirs on their next tick.
    await clocks.refresh();
  }
}

/** Saves the data of the scopes `filter` selects (not the merchants) as a snapshot, at the wall clock's time. */
export async function takeSnapshot(
  store: Store,
  clocks: Pick<TestClocks, 'wall'>,
  filter: DataFilter,
): Promise<SnapshotInfo | Rejection> {
  if (filter.merchantId !== undefined && !(await store.merchants.get(filter.merchantId)))
    return notFound('Merchant', filter.merchantId);
  const id = `snap_${randomBytes(8).toString('hex')}`;
  const createdAt = clocks.wall().toISOString();
  return store.transaction(async (tx) => {
    await tx.snapshots.take({ id, filter, createdAt });
    const taken = await tx.snapshots.get(id);
    if (!taken) throw new Error(`snapshot ${id} was not written`);
    return taken;
  });
}

/**
 * Puts the snapshot's scopes back as they were, in one transaction; this process's clocks re-read
 * their offsets. A merchant of the snapshot deleted since is a conflict: its records would belong
 * to nobody.
 */
export async function restoreSnapshot(
  store: Store,
  clocks: Pick<TestClocks, 'refresh'>,
  id: string,
): Promise<SnapshotInfo | { conflict: string } | Rejection> {
  const snapshot = await store.transaction((tx) => tx.snapshots.get(id));
  if (!snapshot) return notFound('Snapshot', id);
  const known = new Set((await store.merchants.list()).map((m) => m.merchantId));
  const gone = [...snapshot.merchants, ...(snapshot.filter.merchantId ? [snapshot.filter.merchantId] : [])].filter(
    (m) => !known.has(m),
  );
  if (gone.length > 0)
    return { conflict: `the snapshot holds data of merchants deleted since: ${[...new Set(gone)].join(', ')}` };
  await store.transaction((tx) => tx.snapshots.restore(id));
  await clocks.refresh();
  return snapshot;
}

export const listDeliveries = (
  store: Store,
  filter: Parameters<WebhookOutbox['list']>[0],
): Promise<WebhookDelivery[]> => store.webhooks.list(filter);

export async function findDelivery(store: Store, id: string): Promise<{ delivery: WebhookDelivery } | Rejection> {
  const delivery = await store.webhooks.find(id);
  return delivery ? { delivery } : notFound('Webhook delivery', id);
}
