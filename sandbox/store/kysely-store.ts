// The store on Kysely: one implementation of sandbox/store/store.ts for SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type {
  CheckoutSession,
  Customer,
  Merchant,
  Payment,
  PaymentIntent,
  PaymentLink,
  PaymentOperation,
  PaymentPlan,
  PlanPayment,
  PseudoNumberRecord,
  Scope,
  StoredPaymentMethod,
} from '../domain/types.js';
import type { Database, FlowTable } from './schema.js';
import {
  DuplicateKeyError,
  StaleWriteError,
  type ClaimRequest,
  type ClaimResult,
  type Dialect,
  type PageRequest,
  type Store,
  type StoreTransaction,
} from './store.js';

type Db = Kysely<Database> | Transaction<Database>;

const parse = <T>(row: { data: string }): T => JSON.parse(row.data) as T;
const scopeOf = (scope: Scope) => ({ merchant_id: scope.merchantId, environment: scope.environment });

/** Unique violations of both databases as DuplicateKeyError. */
function duplicateKey(error: unknown): DuplicateKeyError | undefined {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') return new DuplicateKeyError(e.constraint ?? 'unique');
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new DuplicateKeyError(e.message ?? 'unique');
  return undefined;
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw duplicateKey(error) ?? error;
  }
}

/** A scoped page of a query: the items and the total. */
async function paged<T>(
  base: { count: () => Promise<number>; rows: (limit: number, offset: number) => Promise<{ data: string }[]> },
  page: PageRequest,
): Promise<{ items: T[]; total: number }> {
  const [total, rows] = await Promise.all([base.count(), base.rows(page.pageSize, (page.page - 1) * page.pageSize)]);
  return { total, items: rows.map((r) => parse<T>(r)) };
}

function repositories(db: Db, dialect: Dialect): StoreTransaction {
  const lock = <Q extends { forUpdate(): Q }>(query: Q, options?: { lock?: boolean }) => (options?.lock && dialect === 'postgres' ? query.forUpdate() : query);

  const flows = <T extends { id: string; scope: Scope; status: string; createdAt: string }>(table: 'checkout_sessions' | 'payment_links' | 'payment_intents') => ({
    async insert(record: T) {
      const row: FlowTable = { ...scopeOf(record.scope), id: record.id, status: record.status, created_at: record.createdAt, data: JSON.stringify(record) };
      await mapped(db.insertInto(table).values(row).execute());
    },
    async get(scope: Scope, id: string, options?: { lock?: boolean }) {
      const row = await lock(db.selectFrom(table).select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('id', '=', id), options).executeTakeFirst();
      return row ? parse<T>(row) : undefined;
    },
    async update(record: T) {
      await db
        .updateTable(table)
        .set({ status: record.status, data: JSON.stringify(record) })
        .where('merchant_id', '=', record.scope.merchantId)
        .where('environment', '=', record.scope.environment)
        .where('id', '=', record.id)
        .execute();
    },
  });

  const paymentRow = (p: Payment, document: string) => ({
    ...scopeOf(p.scope),
    pay_id: p.payId,
    kind: p.kind,
    trans_id: p.transId,
    state: p.state,
    amount_value: p.amount.value,
    currency: p.currency,
    merchant_customer_id: p.details.customerInfo?.merchantCustomerId ?? null,
    created_at: p.createdAt,
    version: p.version,
    data: JSON.stringify(p),
    document,
  });
  const planRow = (p: PaymentPlan) => ({
    ...scopeOf(p.scope),
    id: p.id,
    type: p.type,
    status: p.status,
    merchant_customer_id: p.merchantCustomerId ?? null,
    customer_id: p.customerId ?? null,
    currency: p.currency,
    amount_value: p.amountValue ?? null,
    created_at: p.createdAt,
    last_billing_at: p.lastBillingAt ?? null,
    version: p.version,
    data: JSON.stringify(p),
  });

  return {
    payments: {
      async insert(payment, document) {
        await mapped(db.insertInto('payments').values(paymentRow(payment, document)).execute());
      },
      async get(scope, payId, options) {
        const row = await lock(db.selectFrom('payments').select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('pay_id', '=', payId), options).executeTakeFirst();
        return row ? parse<Payment>(row) : undefined;
      },
      async getByTransId(scope, transId, options) {
        const row = await lock(db.selectFrom('payments').select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('trans_id', '=', transId), options).executeTakeFirst();
        return row ? parse<Payment>(row) : undefined;
      },
      async update(payment, document) {
        const { version: _, ...row } = paymentRow(payment, document);
        const result = await db
          .updateTable('payments')
          .set({ ...row, version: payment.version })
          .where('merchant_id', '=', payment.scope.merchantId)
          .where('environment', '=', payment.scope.environment)
          .where('pay_id', '=', payment.payId)
          .where('version', '=', payment.version - 1)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) throw new StaleWriteError(`payment ${payment.payId}`);
      },
      async findDuplicates(scope, query) {
        const rows = await db
          .selectFrom('payments')
          .select('pay_id')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('kind', '=', 'PAYMENT')
          .where('amount_value', '=', query.amountValue)
          .where('currency', '=', query.currency)
          .where('created_at', '>=', query.since)
          .where((eb) =>
            eb.or([
              ...(query.transId !== undefined ? [eb('trans_id', '=', query.transId)] : []),
              ...(query.merchantCustomerId !== undefined ? [eb('merchant_customer_id', '=', query.merchantCustomerId)] : []),
            ]),
          )
          .orderBy('created_at')
          .limit(100)
          .execute();
        return rows.map((r) => r.pay_id);
      },
    },
    operations: {
      async insert(op) {
        // The next position in the payment's history; the payment row is written in the same
        // transaction, which serializes writers of one payment.
        const last = await db
          .selectFrom('payment_operations')
          .select((eb) => eb.fn.max<number>('position').as('last'))
          .where('merchant_id', '=', op.scope.merchantId)
          .where('environment', '=', op.scope.environment)
          .where('pay_id', '=', op.payId)
          .executeTakeFirst();
        await mapped(
          db
            .insertInto('payment_operations')
            .values({ ...scopeOf(op.scope), x_id: op.xId, pay_id: op.payId, position: Number(last?.last ?? 0) + 1, data: JSON.stringify(op) })
            .execute(),
        );
      },
      async listByPayment(scope, payId) {
        const rows = await db
          .selectFrom('payment_operations')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('pay_id', '=', payId)
          .orderBy('position')
          .execute();
        return rows.map((r) => parse<PaymentOperation>(r));
      },
    },
    idempotency: {
      async complete({ scope, key, token, response }) {
        const result = await db
          .updateTable('idempotency_keys')
          .set({ state: 'done', response_status: response.status, response_headers: JSON.stringify(response.headers), response_body: response.body })
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('idempotency_key', '=', key)
          .where('token', '=', token)
          .where('state', '=', 'in_flight')
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) throw new StaleWriteError(`Idempotency-Key ${key} (another request took it over)`);
      },
    },
    sessions: flows<CheckoutSession>('checkout_sessions'),
    links: flows<PaymentLink>('payment_links'),
    intents: flows<PaymentIntent>('payment_intents'),
    plans: {
      async insert(plan) {
        await mapped(db.insertInto('payment_plans').values(planRow(plan)).execute());
      },
      async get(scope, id, options) {
        const row = await lock(db.selectFrom('payment_plans').select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('id', '=', id), options).executeTakeFirst();
        return row ? parse<PaymentPlan>(row) : undefined;
      },
      async update(plan) {
        const result = await db
          .updateTable('payment_plans')
          .set(planRow(plan))
          .where('merchant_id', '=', plan.scope.merchantId)
          .where('environment', '=', plan.scope.environment)
          .where('id', '=', plan.id)
          .where('version', '=', plan.version - 1)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) throw new StaleWriteError(`payment plan ${plan.id}`);
      },
      async list(scope, filter, page) {
        let query = db.selectFrom('payment_plans').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
        if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
        if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
        if (filter.lastBillingFrom !== undefined) query = query.where('last_billing_at', '>=', filter.lastBillingFrom);
        if (filter.lastBillingTo !== undefined) query = query.where('last_billing_at', '<=', filter.lastBillingTo);
        if (filter.paymentPlanId !== undefined) query = query.where('id', '=', filter.paymentPlanId);
        if (filter.merchantCustomerId !== undefined) query = query.where('merchant_customer_id', '=', filter.merchantCustomerId);
        if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
        if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
        if (filter.amountFrom !== undefined) query = query.where('amount_value', '>=', filter.amountFrom);
        if (filter.amountTo !== undefined) query = query.where('amount_value', '<=', filter.amountTo);
        if (filter.amount !== undefined) query = query.where('amount_value', '=', filter.amount);
        if (filter.status !== undefined) query = query.where('status', '=', filter.status);
        if (filter.type !== undefined) query = query.where('type', '=', filter.type);
        return paged<PaymentPlan>(
          {
            count: async () => Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
            rows: (limit, offset) => query.select('data').orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
          },
          page,
        );
      },
    },
    planPayments: {
      async insert(p) {
        await mapped(db.insertInto('plan_payments').values({ ...scopeOf(p.scope), plan_id: p.paymentPlanId, pay_id: p.payId, billing_date: p.billingDate, data: JSON.stringify(p) }).execute());
      },
      async list(scope, planId, page) {
        const query = db.selectFrom('plan_payments').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('plan_id', '=', planId);
        return paged<PlanPayment>(
          {
            count: async () => Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
            rows: (limit, offset) => query.select('data').orderBy('billing_date').orderBy('pay_id').limit(limit).offset(offset).execute(),
          },
          page,
        );
      },
    },
    customers: {
      async insert(c) {
        await mapped(db.insertInto('customers').values({ ...scopeOf(c.scope), id: c.id, merchant_customer_id: c.merchantCustomerId, created_at: c.createdAt, data: JSON.stringify(c) }).execute());
      },
      async get(scope, id) {
        const row = await db.selectFrom('customers').select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('id', '=', id).executeTakeFirst();
        return row ? parse<Customer>(row) : undefined;
      },
      async getByMerchantCustomerId(scope, merchantCustomerId) {
        const row = await db
          .selectFrom('customers')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('merchant_customer_id', '=', merchantCustomerId)
          .executeTakeFirst();
        return row ? parse<Customer>(row) : undefined;
      },
      async update(c) {
        await db.updateTable('customers').set({ data: JSON.stringify(c) }).where('merchant_id', '=', c.scope.merchantId).where('environment', '=', c.scope.environment).where('id', '=', c.id).execute();
      },
      async delete(scope, id) {
        await db.deleteFrom('payment_methods').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('customer_id', '=', id).execute();
        const result = await db.deleteFrom('customers').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      async list(scope, page) {
        const query = db.selectFrom('customers').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
        return paged<Customer>(
          {
            count: async () => Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
            rows: (limit, offset) => query.select('data').orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
          },
          page,
        );
      },
    },
    paymentMethods: {
      async insert(m) {
        await mapped(
          db.insertInto('payment_methods').values({ ...scopeOf(m.scope), id: m.id, customer_id: m.customerId, pseudo_number: m.pseudoNumber, created_at: m.createdAt, data: JSON.stringify(m) }).execute(),
        );
      },
      async get(scope, customerId, id) {
        const row = await db
          .selectFrom('payment_methods')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('customer_id', '=', customerId)
          .where('id', '=', id)
          .executeTakeFirst();
        return row ? parse<StoredPaymentMethod>(row) : undefined;
      },
      async getByPseudoNumber(scope, customerId, pseudoNumber) {
        const row = await db
          .selectFrom('payment_methods')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('customer_id', '=', customerId)
          .where('pseudo_number', '=', pseudoNumber)
          .executeTakeFirst();
        return row ? parse<StoredPaymentMethod>(row) : undefined;
      },
      async delete(scope, customerId, id) {
        const result = await db
          .deleteFrom('payment_methods')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('customer_id', '=', customerId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      async list(scope, customerId, page) {
        const query = db.selectFrom('payment_methods').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('customer_id', '=', customerId);
        return paged<StoredPaymentMethod>(
          {
            count: async () => Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
            rows: (limit, offset) => query.select('data').orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
          },
          page,
        );
      },
    },
    pseudoNumbers: {
      async getOrInsert(record) {
        await db
          .insertInto('pseudo_numbers')
          .values({ ...scopeOf(record.scope), fingerprint: record.fingerprint, pseudo_number: record.pseudoNumber, data: JSON.stringify(record) })
          .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'fingerprint']).doNothing())
          .execute();
        const row = await db
          .selectFrom('pseudo_numbers')
          .select('data')
          .where('merchant_id', '=', record.scope.merchantId)
          .where('environment', '=', record.scope.environment)
          .where('fingerprint', '=', record.fingerprint)
          .executeTakeFirstOrThrow();
        return parse<PseudoNumberRecord>(row);
      },
      async getByPseudoNumber(scope, pseudoNumber) {
        const row = await db
          .selectFrom('pseudo_numbers')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('pseudo_number', '=', pseudoNumber)
          .executeTakeFirst();
        return row ? parse<PseudoNumberRecord>(row) : undefined;
      },
    },
  };
}

const addMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The Store on a migrated Kysely instance. */
export function kyselyStore(db: Kysely<Database>, dialect: Dialect, location: string, close: () => Promise<void>): Store {
  // GET's path: compiled once, executed with each request's values (no query building per call).
  const byPayId = db.selectFrom('payments').select('document').where('merchant_id', '=', '').where('environment', '=', '').where('pay_id', '=', '').compile();
  const byTransId = db.selectFrom('payments').select('document').where('merchant_id', '=', '').where('environment', '=', '').where('trans_id', '=', '').compile();
  const documentBy = async (query: CompiledQuery, scope: Scope, id: string) => {
    const result = await db.executeQuery<{ document: string }>({ ...query, parameters: [scope.merchantId, scope.environment, id] });
    return result.rows[0]?.document;
  };

  return {
    dialect,
    location,
    transaction: (work) => db.transaction().execute((tx) => work(repositories(tx, dialect))),
    paymentDocument: (scope, payId) => documentBy(byPayId, scope, payId),
    paymentDocumentByTransId: (scope, transId) => documentBy(byTransId, scope, transId),
    idempotency: {
      async claim(request: ClaimRequest): Promise<ClaimResult> {
        const { scope, key, now } = request;
        const fresh = () => ({
          operation_id: request.operationId,
          request_hash: request.requestHash,
          state: 'in_flight',
          token: randomUUID(),
          locked_until: addMs(now, request.leaseMs),
          expires_at: addMs(now, request.retentionMs),
          response_status: null,
          response_headers: null,
          response_body: null,
        });
        const claim = fresh();
        const inserted = await db
          .insertInto('idempotency_keys')
          .values({ ...scopeOf(scope), idempotency_key: key, ...claim })
          .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'idempotency_key']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { outcome: 'claimed', token: claim.token };

        const row = await db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('idempotency_key', '=', key)
          .executeTakeFirst();
        if (!row) return this.claim(request); // released meanwhile: try again
        if (row.expires_at <= now) {
          // Past its retention: the key is new again. Only one of several racing requests wins.
          const renewed = fresh();
          const taken = await db
            .updateTable('idempotency_keys')
            .set(renewed)
            .where('merchant_id', '=', scope.merchantId)
            .where('environment', '=', scope.environment)
            .where('idempotency_key', '=', key)
            .where('token', '=', row.token)
            .executeTakeFirst();
          return Number(taken.numUpdatedRows) === 1 ? { outcome: 'claimed', token: renewed.token } : { outcome: 'conflict', reason: 'in_progress' };
        }
        if (row.operation_id !== request.operationId || row.request_hash !== request.requestHash) return { outcome: 'conflict', reason: 'different_request' };
        if (row.state === 'done') {
          return { outcome: 'replay', response: { status: row.response_status ?? 200, headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>, body: row.response_body ?? '' } };
        }
        if (row.locked_until > now) return { outcome: 'conflict', reason: 'in_progress' };
        // The request that held it died (its lease ran out without a commit): take it over.
        const token = randomUUID();
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ token, locked_until: addMs(now, request.leaseMs) })
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('idempotency_key', '=', key)
          .where('token', '=', row.token)
          .where('state', '=', 'in_flight')
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1 ? { outcome: 'claimed', token } : { outcome: 'conflict', reason: 'in_progress' };
      },
      async release({ scope, key, token }) {
        await db
          .deleteFrom('idempotency_keys')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('idempotency_key', '=', key)
          .where('token', '=', token)
          .where('state', '=', 'in_flight')
          .execute();
      },
      async purgeExpired(now) {
        const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
    },
    merchants: {
      async upsert(merchant: Merchant) {
        await db
          .insertInto('merchants')
          .values({ merchant_id: merchant.merchantId, api_key_hash: merchant.apiKeyHash, data: JSON.stringify(merchant) })
          .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ api_key_hash: merchant.apiKeyHash, data: JSON.stringify(merchant) }))
          .execute();
      },
      async get(merchantId) {
        const row = await db.selectFrom('merchants').select('data').where('merchant_id', '=', merchantId).executeTakeFirst();
        return row ? parse<Merchant>(row) : undefined;
      },
      async getByApiKeyHash(hash) {
        const row = await db.selectFrom('merchants').select('data').where('api_key_hash', '=', hash).executeTakeFirst();
        return row ? parse<Merchant>(row) : undefined;
      },
      async list() {
        return (await db.selectFrom('merchants').select('data').orderBy('merchant_id').execute()).map((r) => parse<Merchant>(r));
      },
    },
    async setting(name, create) {
      await db.insertInto('settings').values({ name, value: create() }).onConflict((oc) => oc.column('name').doNothing()).execute();
      return (await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()).value;
    },
    close,
  };
}
