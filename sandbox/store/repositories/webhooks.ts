// The webhook outbox: a delivery is written in the transaction of the state change it reports
// (the transaction's side), and taken, attempted and stored again by the deliverer (the store's
// side, WebhookOutbox).
import type { WebhookDelivery } from '../../domain/types.js';
import type { StoreDialect } from '../dialect.js';
import { filtered, locked, mapped, scoped } from '../query.js';
import { deliveryRow, parse, scopeOfRow } from '../rows.js';
import type { StoreTransaction, WebhookOutbox } from '../store.js';
import type { Context } from './context.js';

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
    async update(delivery) {
      const { data, status, next_attempt_at } = deliveryRow(delivery);
      await scoped(
        db.updateTable('webhook_deliveries').set({ data, status, next_attempt_at, locked_until: null }),
        delivery.scope,
      )
        .where('id', '=', delivery.id)
        .execute();
    },
    async bringForward(scope, byMs, wallNow) {
      const rows = await scoped(db.selectFrom('webhook_deliveries').select('data'), scope)
        .where('status', '=', 'PENDING')
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
    claimDue(now, lockedUntil, limit) {
      return dialect.runTransaction(async (tx) => {
        const due = tx
          .selectFrom('webhook_deliveries')
          .select(['merchant_id', 'environment', 'id', 'data'])
          .where('status', '=', 'PENDING')
          .where('next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
          .orderBy('next_attempt_at')
          .limit(limit);
        const rows = await dialect.lockSkippingLocked(due).execute();
        for (const r of rows) {
          await scoped(tx.updateTable('webhook_deliveries').set({ locked_until: lockedUntil }), scopeOfRow(r))
            .where('id', '=', r.id)
            .execute();
        }
        return rows.map((r) => parse<WebhookDelivery>(r));
      });
    },
    async save(delivery) {
      const { data, status, next_attempt_at } = deliveryRow(delivery);
      await dialect.runWrite((db) =>
        scoped(
          db.updateTable('webhook_deliveries').set({ data, status, next_attempt_at, locked_until: null }),
          delivery.scope,
        )
          .where('id', '=', delivery.id)
          .execute(),
      );
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
