// The sandbox's data as a whole: the admin API's reset, and deleting a merchant with its data.

import { filtered } from '../query.js';
import type { Database } from '../schema.js';
import type { DataFilter, ResetCounts, StoreTransaction } from '../store.js';
import type { Context } from './context.js';

/** The scoped tables, by the name a reset reports them under (and a snapshot holds them). */
export const SCOPED_TABLES: Record<keyof ResetCounts, Exclude<keyof Database, 'settings' | 'merchants'>> = {
  payments: 'payments',
  paymentOperations: 'payment_operations',
  idempotencyKeys: 'idempotency_keys',
  checkoutSessions: 'checkout_sessions',
  paymentLinks: 'payment_links',
  paymentIntents: 'payment_intents',
  paymentPlans: 'payment_plans',
  planPayments: 'plan_payments',
  customers: 'customers',
  paymentMethods: 'payment_methods',
  pseudoNumbers: 'pseudo_numbers',
  webhookDeliveries: 'webhook_deliveries',
  clocks: 'clocks',
};

/** Deletes every scoped record of the scopes `filter` selects; the rows deleted per kind. */
export async function deleteScoped({ db, written }: Context, filter: DataFilter): Promise<ResetCounts> {
  // The cache of payment documents forgets everything this transaction touched.
  if (written) written.all = true;
  const counts = {} as ResetCounts;
  for (const [name, table] of Object.entries(SCOPED_TABLES) as Array<
    [keyof ResetCounts, (typeof SCOPED_TABLES)[keyof ResetCounts]]
  >) {
    counts[name] = Number((await filtered(db.deleteFrom(table), filter).executeTakeFirst()).numDeletedRows);
  }
  return counts;
}

export function dataRepository(context: Context): StoreTransaction['data'] {
  const { db } = context;
  const reset = (filter: DataFilter) => deleteScoped(context, filter);
  return {
    reset,
    async deleteMerchant(merchantId) {
      await reset({ merchantId });
      await db.deleteFrom('webhook_listeners').where('merchant_id', '=', merchantId).execute();
      const deleted = await db.deleteFrom('merchants').where('merchant_id', '=', merchantId).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },
  };
}
