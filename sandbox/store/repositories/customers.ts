// Customers; deleting one deletes its stored payment methods.
import type { Customer } from '../../domain/types.js';
import { mapped, paged, scoped } from '../query.js';
import { customerRow, parse } from '../rows.js';
import type { StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function customersRepository({ db, dialect }: Context): StoreTransaction['customers'] {
  return {
    async insert(c) {
      await mapped(dialect, db.insertInto('customers').values(customerRow(c)).execute());
    },
    async get(scope, id) {
      const row = await scoped(db.selectFrom('customers').select('data'), scope)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? parse<Customer>(row) : undefined;
    },
    async getByMerchantCustomerId(scope, merchantCustomerId) {
      const row = await scoped(db.selectFrom('customers').select('data'), scope)
        .where('merchant_customer_id', '=', merchantCustomerId)
        .executeTakeFirst();
      return row ? parse<Customer>(row) : undefined;
    },
    async update(c) {
      await scoped(db.updateTable('customers').set({ data: JSON.stringify(c) }), c.scope)
        .where('id', '=', c.id)
        .execute();
    },
    async delete(scope, id) {
      await scoped(db.deleteFrom('payment_methods'), scope).where('customer_id', '=', id).execute();
      const result = await scoped(db.deleteFrom('customers'), scope).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async list(scope, page) {
      return paged<Customer, 'customers'>(scoped(db.selectFrom('customers'), scope), page, (rows) =>
        rows.orderBy('created_at').orderBy('id'),
      );
    },
  };
}
