// Housekeeping's deletes: webhook deliveries past their retention (by when they ended), listeners
// past their expiry. Expired idempotency keys are the idempotency store's (idempotency.ts).
import type { StoreDialect } from '../dialect.js';
import type { Housekeeping } from '../webhooks.js';

export function housekeeping(dialect: StoreDialect): Housekeeping {
  return {
    async purgeDeliveries(status, before) {
      const result = await dialect.runWrite((db) =>
        db
          .deleteFrom('webhook_deliveries')
          .where('status', '=', status)
          .where('finished_at', '<=', before)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
    async purgeListeners(now) {
      const result = await dialect.runWrite((db) =>
        db.deleteFrom('webhook_listeners').where('expires_at', '<=', now).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}
