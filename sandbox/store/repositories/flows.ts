// Checkout sessions, payment links and payment intents: three tables of one shape.
import type { Scope } from '../../domain/types.js';
import { locked, mapped, scoped } from '../query.js';
import { flowRow, parse } from '../rows.js';
import type { Context } from './context.js';

type FlowTableName = 'checkout_sessions' | 'payment_links' | 'payment_intents';

export function flowRepository<T extends { id: string; scope: Scope; status: string; createdAt: string }>(
  { db, dialect }: Context,
  table: FlowTableName,
) {
  return {
    async insert(record: T) {
      await mapped(dialect, db.insertInto(table).values(flowRow(record)).execute());
    },
    async get(scope: Scope, id: string, options?: { lock?: boolean }) {
      const row = await locked(
        dialect,
        scoped(db.selectFrom(table).select('data'), scope).where('id', '=', id),
        options,
      ).executeTakeFirst();
      return row ? parse<T>(row) : undefined;
    },
    async update(record: T) {
      await scoped(db.updateTable(table).set({ status: record.status, data: JSON.stringify(record) }), record.scope)
        .where('id', '=', record.id)
        .execute();
    },
  };
}
