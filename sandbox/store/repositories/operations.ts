// A payment's operations (its history), in the order of their positions.
import type { PaymentOperation } from '../../domain/types.js';
import type { StoreDialect } from '../dialect.js';
import { mapped, PLACEHOLDER_SCOPE, placeholders, scoped } from '../query.js';
import { operationRow, parse } from '../rows.js';
import type { StoreTransaction } from '../store.js';
import type { Context } from './context.js';

/** The insert of every write of a payment, compiled once. */
export const operationStatements = (dialect: StoreDialect) => ({
  insertOperation: dialect.precompile(
    dialect.db
      .insertInto('payment_operations')
      .values(placeholders(operationRow({ scope: PLACEHOLDER_SCOPE } as PaymentOperation, 0))),
  ),
});
export type OperationStatements = ReturnType<typeof operationStatements>;

export function operationsRepository(
  { db, dialect }: Context,
  hot: OperationStatements,
): StoreTransaction['operations'] {
  return {
    async insert(op, position) {
      await mapped(dialect, hot.insertOperation(db, Object.values(operationRow(op, position))));
    },
    async listByPayment(scope, payId) {
      const rows = await scoped(db.selectFrom('payment_operations').select('data'), scope)
        .where('pay_id', '=', payId)
        .orderBy('position')
        .execute();
      return rows.map((r) => parse<PaymentOperation>(r));
    },
  };
}
