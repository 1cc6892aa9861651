// Payment plans, and the payments that billed them.
import type { PaymentPlan, PlanPayment } from '../../domain/types.js';
import { locked, mapped, paged, scoped } from '../query.js';
import { parse, planPaymentRow, planRow } from '../rows.js';
import { StaleWriteError, type StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function plansRepository({ db, dialect }: Context): StoreTransaction['plans'] {
  return {
    async insert(plan) {
      await mapped(dialect, db.insertInto('payment_plans').values(planRow(plan)).execute());
    },
    async get(scope, id, options) {
      const row = await locked(
        dialect,
        scoped(db.selectFrom('payment_plans').select('data'), scope).where('id', '=', id),
        options,
      ).executeTakeFirst();
      return row ? parse<PaymentPlan>(row) : undefined;
    },
    async update(plan) {
      const result = await scoped(db.updateTable('payment_plans').set(planRow(plan)), plan.scope)
        .where('id', '=', plan.id)
        .where('version', '=', plan.version - 1)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw new StaleWriteError(`payment plan ${plan.id}`);
    },
    async list(scope, filter, page) {
      let query = scoped(db.selectFrom('payment_plans'), scope);
      if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
      if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
      if (filter.lastBillingFrom !== undefined) query = query.where('last_billing_at', '>=', filter.lastBillingFrom);
      if (filter.lastBillingTo !== undefined) query = query.where('last_billing_at', '<=', filter.lastBillingTo);
      if (filter.paymentPlanId !== undefined) query = query.where('id', '=', filter.paymentPlanId);
      if (filter.merchantCustomerId !== undefined)
        query = query.where('merchant_customer_id', '=', filter.merchantCustomerId);
      if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
      if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
      if (filter.amountFrom !== undefined) query = query.where('amount_value', '>=', filter.amountFrom);
      if (filter.amountTo !== undefined) query = query.where('amount_value', '<=', filter.amountTo);
      if (filter.amount !== undefined) query = query.where('amount_value', '=', filter.amount);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.type !== undefined) query = query.where('type', '=', filter.type);
      return paged<PaymentPlan, 'payment_plans'>(query, page, (rows) =>
        rows.orderBy('created_at', 'desc').orderBy('id'),
      );
    },
    async dueBillings(until, limit, scope) {
      let query = db
        .selectFrom('payment_plans')
        .select('data')
        .where('billing_due_at', 'is not', null)
        .where('billing_due_at', '<=', until);
      if (scope) query = scoped(query, scope);
      return (await query.orderBy('billing_due_at').orderBy('id').limit(limit).execute()).map((r) =>
        parse<PaymentPlan>(r),
      );
    },
  };
}

export function planPaymentsRepository({ db, dialect }: Context): StoreTransaction['planPayments'] {
  return {
    async insert(p) {
      await mapped(dialect, db.insertInto('plan_payments').values(planPaymentRow(p)).execute());
    },
    async list(scope, planId, page) {
      const query = scoped(db.selectFrom('plan_payments'), scope).where('plan_id', '=', planId);
      return paged<PlanPayment, 'plan_payments'>(query, page, (rows) => rows.orderBy('billing_date').orderBy('pay_id'));
    },
  };
}
