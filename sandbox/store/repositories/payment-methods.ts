// A customer's stored payment methods.
import type { Scope, StoredPaymentMethod } from '../../domain/types.js';
import { mapped, paged, scoped } from '../query.js';
import { parse, paymentMethodRow } from '../rows.js';
import type { StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function paymentMethodsRepository({ db, dialect }: Context): StoreTransaction['paymentMethods'] {
  const ofCustomer = (scope: Scope, customerId: string) =>
    scoped(db.selectFrom('payment_methods'), scope).where('customer_id', '=', customerId);
  return {
    async insert(m) {
      await mapped(dialect, db.insertInto('payment_methods').values(paymentMethodRow(m)).execute());
    },
    async get(scope, customerId, id) {
      const row = await ofCustomer(scope, customerId).select('data').where('id', '=', id).executeTakeFirst();
      return row ? parse<StoredPaymentMethod>(row) : undefined;
    },
    async getByPseudoNumber(scope, customerId, pseudoNumber) {
      const row = await ofCustomer(scope, customerId)
        .select('data')
        .where('pseudo_number', '=', pseudoNumber)
        .executeTakeFirst();
      return row ? parse<StoredPaymentMethod>(row) : undefined;
    },
    async delete(scope, customerId, id) {
      const result = await scoped(db.deleteFrom('payment_methods'), scope)
        .where('customer_id', '=', customerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async list(scope, customerId, page) {
      return paged<StoredPaymentMethod, 'payment_methods'>(ofCustomer(scope, customerId), page, (rows) =>
        rows.orderBy('created_at').orderBy('id'),
      );
    },
  };
}
