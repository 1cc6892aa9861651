// Payments: the rows a create writes and GET reads, on statements compiled once at open.
import type { Payment } from '../../domain/types.js';
import type { DocumentReads, StoreDialect } from '../dialect.js';
import { mapped, PLACEHOLDER_SCOPE, placeholders, scoped } from '../query.js';
import { parse, paymentRow } from '../rows.js';
import { StaleWriteError, type StoreTransaction } from '../store.js';
import type { Context } from './context.js';

/** The payment queries of the hot paths (GET a payment, create one), compiled once. */
export function paymentStatements(dialect: StoreDialect) {
  const { db } = dialect;
  const samplePayment = paymentRow(
    { scope: PLACEHOLDER_SCOPE, details: {}, amount: { value: 0, currency: '' } } as unknown as Payment,
    '',
  );
  const payments = () => scoped(db.selectFrom('payments'), PLACEHOLDER_SCOPE);
  const byPayId = () => payments().select('data').where('pay_id', '=', '');
  const byTransId = () => payments().select('data').where('trans_id', '=', '');
  return {
    document: dialect.precompile(payments().select('document').where('pay_id', '=', '')),
    documentByTransId: dialect.precompile(payments().select('document').where('trans_id', '=', '')),
    payment: dialect.precompile(byPayId()),
    paymentForUpdate: dialect.precompile(dialect.lockForUpdate(byPayId())),
    paymentByTransId: dialect.precompile(byTransId()),
    paymentByTransIdForUpdate: dialect.precompile(dialect.lockForUpdate(byTransId())),
    insertPayment: dialect.precompile(db.insertInto('payments').values(placeholders(samplePayment))),
  };
}
export type PaymentStatements = ReturnType<typeof paymentStatements>;

/** GET's reads, outside transactions: on the reader connection. */
export function paymentDocuments(dialect: StoreDialect, statements: PaymentStatements): DocumentReads {
  const { reader } = dialect;
  return {
    paymentDocument: async (scope, payId) =>
      (await statements.document(reader, [scope.merchantId, scope.environment, payId])).rows[0]?.document,
    paymentDocumentByTransId: async (scope, transId) =>
      (await statements.documentByTransId(reader, [scope.merchantId, scope.environment, transId])).rows[0]?.document,
  };
}

export function paymentsRepository(
  { db, dialect, written }: Context,
  hot: PaymentStatements,
): StoreTransaction['payments'] {
  return {
    async insert(payment, document) {
      written?.payment(payment);
      await mapped(dialect, hot.insertPayment(db, Object.values(paymentRow(payment, document))));
    },
    async get(scope, payId, options) {
      const { rows } = await (options?.lock ? hot.paymentForUpdate : hot.payment)(db, [
        scope.merchantId,
        scope.environment,
        payId,
      ]);
      return rows[0] ? parse<Payment>(rows[0]) : undefined;
    },
    async getByTransId(scope, transId, options) {
      const { rows } = await (options?.lock ? hot.paymentByTransIdForUpdate : hot.paymentByTransId)(db, [
        scope.merchantId,
        scope.environment,
        transId,
      ]);
      return rows[0] ? parse<Payment>(rows[0]) : undefined;
    },
    async update(payment, document) {
      written?.payment(payment);
      const result = await scoped(db.updateTable('payments').set(paymentRow(payment, document)), payment.scope)
        .where('pay_id', '=', payment.payId)
        .where('version', '=', payment.version - 1)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw new StaleWriteError(`payment ${payment.payId}`);
    },
    async findDuplicates(scope, query) {
      const rows = await scoped(db.selectFrom('payments').select('pay_id'), scope)
        .where('kind', '=', 'PAYMENT')
        .where('amount_value', '=', query.amountValue)
        .where('currency', '=', query.currency)
        .where('created_at', '>=', query.since)
        .where((eb) =>
          eb.or([
            ...(query.transId !== undefined ? [eb('trans_id', '=', query.transId)] : []),
            ...(query.merchantCustomerId !== undefined
              ? [eb('merchant_customer_id', '=', query.merchantCustomerId)]
              : []),
          ]),
        )
        .orderBy('created_at')
        .limit(100)
        .execute();
      return rows.map((r) => r.pay_id);
    },
    async duePayments(until, limit, scope) {
      let query = db
        .selectFrom('payments')
        .select('data')
        .where('capture_at', 'is not', null)
        .where('capture_at', '<=', until);
      if (scope) query = scoped(query, scope);
      return (await query.orderBy('capture_at').orderBy('pay_id').limit(limit).execute()).map((r) => parse<Payment>(r));
    },
  };
}
