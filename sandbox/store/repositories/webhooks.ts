// The webhook outbox: a delivery is written in the transaction of the state change it reports
// (the transaction's side), and taken (webhook-claims.ts), attempted and stored again by the
// deliverer or a listener (the store's side, WebhookOutbox).
import type { WebhookDelivery } from '../../domain/types.js';
import type { StoreDialect } from '../dialect.js';
import { filtered, locked, mapped, scoped } from '../query.js';
import { deliveryRow, parse } from '../rows.js';
import type { StoreTransaction, WebhookOutbox } from '../store.js';
import type { Context } from './context.js';
import { claimDue } from './webhook-claims.js';

/** The columns a write of a delivery sets: its state, and no hold (a write releases the claim it was made under). */
function written(delivery: WebhookDelivery) {
  const { data, status, next_attempt_at, locked_until, claim_token, finished_at } = deliveryRow(delivery);
  return { data, status, next_attempt_at, locked_until, claim_token, finished_at };
}

export function webhooksRepository({ db, dialect }: Context): StoreTransaction['webhooks'] {
  return {
    async insert(delivery) {
      await mapped(dialect, db.insertInto('webhook_deliveries').values(deliveryRow(delivery)).execute());
    },
    async find(id, options) {
      const row = await locked(
        dialect,
        db.selectFrom('webhook_deliveries').select('data').where('id', '=', id),
        options,
      ).executeTakeFirst();
      return row ? parse<WebhookDelivery>(row) : undefined;
    },
    async findClaimed(merchantId, id, token) {
      const row = await dialect
        .lockForUpdate(
          db
            .selectFrom('webhook_deliveries')
            .select('data')
            .where('merchant_id', '=', merchantId)
            .where('id', '=', id)
            .where('status', '=', 'PENDING')
            .where('claim_token', '=', token),
        )
        .executeTakeFirst();
      return row ? parse<WebhookDelivery>(row) : undefined;
    },
    async update(delivery) {
      await scoped(db.updateTable('webhook_deliveries').set(written(delivery)), delivery.scope)
        .where('id', '=', delivery.id)
        .execute();
    },
    async bringForward(scope, byMs, wallNow) {
      // Locked: an attempt's result recorded meanwhile is either seen here (the delivery is no longer
      // PENDING, or its attempts are the new ones) or written after this, over it; never overwritten
      // with what was read before it.
      const rows = await dialect
        .lockForUpdate(
          scoped(db.selectFrom('webhook_deliveries').select('data'), scope).where('status', '=', 'PENDING'),
        )
        .execute();
      let due = 0;
      for (const row of rows) {
        const delivery = parse<WebhookDelivery>(row);
        const nextAttemptAt = new Date(Date.parse(delivery.nextAttemptAt) - byMs).toISOString();
        if (nextAttemptAt <= wallNow) due += 1;
        await scoped(
          db
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: nextAttemptAt, data: JSON.stringify({ ...delivery, nextAttemptAt }) }),
          scope,
        )
          .where('id', '=', delivery.id)
          .execute();
      }
      return due;
    },
  };
}

export function webhookOutbox(dialect: StoreDialect): WebhookOutbox {
  const { reader } = dialect;
  return {
    claimDue: (claim) => claimDue(dialect, claim),
    async record(delivery, token) {
      const result = await dialect.runWrite((db) =>
        scoped(db.updateTable('webhook_deliveries').set(written(delivery)), delivery.scope)
          .where('id', '=', delivery.id)
          .where('status', '=', 'PENDING')
          .where('claim_token', '=', token)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) === 1;
    },
    async get(scope, id) {
      const row = await scoped(reader.selectFrom('webhook_deliveries').select('data'), scope)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? parse<WebhookDelivery>(row) : undefined;
    },
    async find(id) {
      const row = await reader.selectFrom('webhook_deliveries').select('data').where('id', '=', id).executeTakeFirst();
      return row ? parse<WebhookDelivery>(row) : undefined;
    },
    async list(filter = {}) {
      let q = filtered(reader.selectFrom('webhook_deliveries').select('data'), {
        merchantId: filter.scope?.merchantId ?? filter.merchantId,
        environment: filter.scope?.environment ?? filter.environment,
      });
      if (filter.payId !== undefined) q = q.where('pay_id', '=', filter.payId);
      if (filter.status !== undefined) q = q.where('status', '=', filter.status);
      q = q.orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (filter.limit !== undefined) q = q.limit(filter.limit);
      return (await q.execute()).map((r) => parse<WebhookDelivery>(r));
    },
  };
}
