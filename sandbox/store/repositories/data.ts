// The sandbox's data as a whole: the admin API's reset, and deleting a merchant with its data.

import { filtered } from '../query.js';
import type { Database } from '../schema.js';
import type { DataFilter, ResetCounts, StoreTransaction } from '../store.js';
import type { Context } from './context.js';

/** The scoped tables, by the name a reset reports them under. */
const SCOPED_TABLES: Record<keyof ResetCounts, Exclude<keyof Database, 'settings' | 'merchants'>> = {
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

export function dataRepository({ db, written }: Context): StoreTransaction['data'] {
  async function reset(filter: DataFilter): Promise<ResetCounts> {
    if (written) written.all = true;
    const counts = {} as ResetCounts;
    for (const [name, table] of Object.entries(SCOPED_TABLES) as Array<
      [keyof ResetCounts, (typeof SCOPED_TABLES)[keyof ResetCounts]]
    >) {
      counts[name] = Number((await filtered(db.deleteFrom(table), filter).executeTakeFirst()).numDeletedRows);
    }
    return counts;
  }
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
