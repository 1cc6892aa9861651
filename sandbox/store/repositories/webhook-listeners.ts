// The merchants' connected `listen` clients: a row lives while its client polls, and the scope's
// deliveries go to them instead of the URL meanwhile.
import type { Scope } from '../../domain/types.js';
import type { StoreDialect } from '../dialect.js';
import { scopeOf } from '../rows.js';
import type { WebhookListeners } from '../webhooks.js';
import { claimForListener, heldBy } from './webhook-claims.js';

export function webhookListeners(dialect: StoreDialect): WebhookListeners {
  return {
    register({ scope, id, now, expiresAt }, maxPerMerchant) {
      return dialect.runTransaction(async (tx) => {
        // The merchant's row serializes its registrations (in every process): the bound holds.
        await dialect
          .lockForUpdate(tx.selectFrom('merchants').select('merchant_id').where('merchant_id', '=', scope.merchantId))
          .execute();
        const alive = await tx
          .selectFrom('webhook_listeners')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('merchant_id', '=', scope.merchantId)
          .where('expires_at', '>', now)
          .executeTakeFirstOrThrow();
        if (Number(alive.n) >= maxPerMerchant) return 'full' as const;
        await tx
          .insertInto('webhook_listeners')
          .values({ id, expires_at: expiresAt, created_at: now, ...scopeOf(scope) })
          .execute();
        return 'registered' as const;
      });
    },
    async touch(merchantId, id, now, expiresAt) {
      const row = await dialect.runWrite((db) =>
        db
          .updateTable('webhook_listeners')
          .set({ expires_at: expiresAt })
          .where('merchant_id', '=', merchantId)
          .where('id', '=', id)
          .where('expires_at', '>', now)
          .returning('environment')
          .executeTakeFirst(),
      );
      return row ? { merchantId, environment: row.environment as Scope['environment'] } : undefined;
    },
    remove(merchantId, id) {
      return dialect.runTransaction(async (tx) => {
        const removed = await tx
          .deleteFrom('webhook_listeners')
          .where('merchant_id', '=', merchantId)
          .where('id', '=', id)
          .executeTakeFirst();
        // What it held is due again at once: for the URL, or another listener.
        await tx
          .updateTable('webhook_deliveries')
          .set({ locked_until: null, claim_token: null })
          .where('merchant_id', '=', merchantId)
          .where('status', '=', 'PENDING')
          .where(heldBy(id))
          .execute();
        return Number(removed.numDeletedRows) === 1;
      });
    },
    claim: (claim) => claimForListener(dialect, claim),
    async release(merchantId, token) {
      await dialect.runWrite((db) =>
        db
          .updateTable('webhook_deliveries')
          .set({ locked_until: null, claim_token: null })
          .where('merchant_id', '=', merchantId)
          .where('status', '=', 'PENDING')
          .where('claim_token', '=', token)
          .execute(),
      );
    },
  };
}
