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
  WebhookDelivery,
} from '../domain/types.js';
import { byPayId, byTransId, DocumentCache, WrittenPayments, type DocumentKey } from './dialects/sqlite/document-cache.js';
import { billingDueAt, captureDueAt } from '../domain/clock.js';
import type { Database, FlowTable } from './schema.js';
import {
  DuplicateKeyError,
  StaleWriteError,
  type ClaimRequest,
  type ClaimResult,
  type Dialect,
  type PageRequest,
  type ResetCounts,
  type Store,
  type StoreTransaction,
} from './store.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The scoped tables, by the name a reset reports them under. */
const SCOPED_TABLES: Record<keyof ResetCounts, Exclude<keyof Database, 'settings' | 'merchants'>> = {
  payments: 'payments',
  paymentOperations: 'payment_operations',
  idempotencyKeys: 'idempotency_keys',
  checkoutSessions: 'checkout_sessions',
  paymentLinks: 'payment_links',
  paymentIntents: 'payment_intents',
  paymentPlans: 'payment_plans',
  planPayments: 'plan_payments',
  customers: 'customers',
  paymentMethods: 'payment_methods',
  pseudoNumbers: 'pseudo_numbers',
  webhookDeliveries: 'webhook_deliveries',
  clocks: 'clocks',
};

const parse = <T>(row: { data: string }): T => JSON.parse(row.data) as T;
/**
 * A row's scope columns. Rows spread it last: on Node 20's V8, an object that starts with a spread
 * and then gains keys gets hidden classes of its own, made in old space, and they kept every row
 * and its JSON alive until a full GC (measured: about 5 kB promoted per create, a mark-compact of
 * 4 ms every quarter second under load; `node --log-maps` shows the transitions).
 */
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

const deliveryRow = (d: WebhookDelivery) => ({
  id: d.id,
  pay_id: d.payId,
  status: d.status,
  next_attempt_at: d.nextAttemptAt,
  locked_until: null,
  created_at: d.createdAt,
  data: JSON.stringify(d),
  ...scopeOf(d.scope),
});

/** A payment's row; the keys always in this order (precompiled inserts rely on it). */
const paymentRow = (p: Payment, document: string) => ({
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
  capture_at: captureDueAt(p) ?? null,
  ...scopeOf(p.scope),
});

const operationRow = (op: PaymentOperation, position: number) => ({ x_id: op.xId, pay_id: op.payId, position, data: JSON.stringify(op), ...scopeOf(op.scope) });

type IdempotencyFields = Omit<Database['idempotency_keys'], 'merchant_id' | 'environment' | 'idempotency_key'>;
const idempotencyRow = (scope: Scope, key: string, f: IdempotencyFields) => ({
  idempotency_key: key,
  operation_id: f.operation_id,
  request_hash: f.request_hash,
  state: f.state,
  token: f.token,
  locked_until: f.locked_until,
  expires_at: f.expires_at,
  response_status: f.response_status,
  response_headers: f.response_headers,
  response_body: f.response_body,
  ...scopeOf(scope),
});

/** A better-sqlite3 statement, as far as the store runs one itself. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): unknown;
}
/**
 * SQLite's two connections (see kyselyStore): the Kysely instance that reads beside the writer,
 * and each connection's cache of prepared statements.
 */
export interface SqliteConnections {
  reader: Kysely<Database>;
  prepare: { writer: (sql: string) => SqliteStatement; reader: (sql: string) => SqliteStatement };
}

/**
 * A query compiled once, with placeholder values, and run with each call's values in the same
 * positions: the hot paths (GET a payment, create one) build no query per call. On SQLite the
 * compiled statement runs on better-sqlite3 directly (it is synchronous; Kysely's executor would
 * cost a chain of promises per statement). Its connection follows the executor: the reader's, or
 * else the writer's, which on SQLite is the connection of every transaction.
 */
function precompiled<Row>(query: { compile(): CompiledQuery<Row> }, sqlite?: SqliteConnections) {
  const compiled = query.compile();
  const expected = compiled.parameters.length;
  const direct = sqlite && {
    writer: sqlite.prepare.writer(compiled.sql),
    reader: compiled.query.kind === 'SelectQueryNode' ? sqlite.prepare.reader(compiled.sql) : undefined,
  };
  return (executor: Db, parameters: readonly unknown[]): Promise<{ rows: Row[] }> => {
    if (parameters.length !== expected) throw new Error(`precompiled query: ${parameters.length} values for ${expected} parameters: ${compiled.sql}`);
    if (!direct) return executor.executeQuery<Row>({ ...compiled, parameters });
    const statement = (executor === sqlite!.reader && direct.reader) || direct.writer;
    try {
      return Promise.resolve({ rows: statement.reader ? (statement.all(parameters) as Row[]) : (statement.run(parameters), []) });
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** A sample row for compiling: every value a parameter (Kysely writes a null as the literal `null`). */
const placeholders = <T extends Record<string, unknown>>(row: T): T => Object.fromEntries(Object.keys(row).map((k) => [k, ''])) as T;

function hotQueries(db: Kysely<Database>, sqlite?: SqliteConnections) {
  const samplePayment = paymentRow({ scope: { merchantId: '', environment: 'test' }, details: {}, amount: { value: 0, currency: '' } } as unknown as Payment, '');
  const byScope = (table: 'payments') => db.selectFrom(table).where('merchant_id', '=', '').where('environment', '=', '');
  const sampleClaim = idempotencyRow({ merchantId: '', environment: 'test' }, '', { operation_id: '', request_hash: '', state: '', token: '', locked_until: '', expires_at: '', response_status: null, response_headers: null, response_body: null });
  const { merchant_id: _m, environment: _e, idempotency_key: _k, ...claimUpdate } = sampleClaim;
  const fromExcluded = Object.keys(claimUpdate) as Array<keyof typeof claimUpdate>;
  return {
    document: precompiled(byScope('payments').select('document').where('pay_id', '=', ''), sqlite),
    documentByTransId: precompiled(byScope('payments').select('document').where('trans_id', '=', ''), sqlite),
    payment: precompiled(byScope('payments').select('data').where('pay_id', '=', ''), sqlite),
    paymentForUpdate: precompiled(byScope('payments').select('data').where('pay_id', '=', '').forUpdate()),
    paymentByTransId: precompiled(byScope('payments').select('data').where('trans_id', '=', ''), sqlite),
    paymentByTransIdForUpdate: precompiled(byScope('payments').select('data').where('trans_id', '=', '').forUpdate()),
    insertPayment: precompiled(db.insertInto('payments').values(placeholders(samplePayment)), sqlite),
    insertOperation: precompiled(db.insertInto('payment_operations').values(placeholders(operationRow({ scope: { merchantId: '', environment: 'test' } } as PaymentOperation, 0))), sqlite),
    idempotencyRow: precompiled(
      db.selectFrom('idempotency_keys').selectAll().where('merchant_id', '=', '').where('environment', '=', '').where('idempotency_key', '=', ''),
      sqlite,
    ),
    /** Insert, or replace a key past its retention (SQLite writes a completed key at once). */
    upsertIdempotency: precompiled(
      db
        .insertInto('idempotency_keys')
        .values(placeholders(sampleClaim))
        .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'idempotency_key']).doUpdateSet((eb) => Object.fromEntries(fromExcluded.map((c) => [c, eb.ref(`excluded.${c}`)])))),
      sqlite,
    ),
  };
}
type HotQueries = ReturnType<typeof hotQueries>;

/**
 * The keys in flight in this process (SQLite: one process owns the database, so a request in
 * flight is known here; nothing is written before the work commits).
 */
class SqliteClaims {
  private readonly inFlight = new Map<string, string>();
  readonly pending = new Map<string, IdempotencyFields>();
  get(k: string) {
    return this.inFlight.get(k);
  }
  /** Claims synchronously (no await between the check and the set): true when it was free. */
  take(k: string, token: string, fields: IdempotencyFields): boolean {
    if (this.inFlight.has(k)) return false;
    this.inFlight.set(k, token);
    this.pending.set(token, fields);
    return true;
  }
  delete(k: string, token: string) {
    if (this.inFlight.get(k) === token) this.inFlight.delete(k);
    this.pending.delete(token);
  }
}
/**
 * Group commit (SQLite): the transactions that arrive while one commit is being written run one
 * after another in the next database transaction, each in a savepoint of its own (a failing one
 * rolls back alone), and commit together. A commit costs about as much for ten as for one (its
 * pages go to the WAL file), so concurrent writers share it; every caller still hears back only
 * after its work is committed, so no acknowledged write can be lost. The savepoints are statements
 * of the batch's connection, run directly: Kysely's savepoint() makes a transaction object each time.
 */
class GroupCommit {
  private queue: Array<{ work: (tx: Transaction<Database>) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  private running = false;
  private readonly savepoint: { open: SqliteStatement; release: SqliteStatement; rollback: SqliteStatement };
  constructor(private readonly db: Kysely<Database>, prepare: (sql: string) => SqliteStatement) {
    this.savepoint = { open: prepare('savepoint work'), release: prepare('release savepoint work'), rollback: prepare('rollback to savepoint work') };
  }

  submit<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      // The batch starts after the requests that this turn of the event loop read have queued
      // their work (the writes themselves are synchronous: nothing would join a running batch).
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 256);
        const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
        try {
          const trx = await this.db.startTransaction().execute();
          try {
            for (const item of batch) {
              this.savepoint.open.run([]);
              try {
                const value = await item.work(trx);
                this.savepoint.release.run([]);
                outcomes.push({ ok: true, value });
              } catch (error) {
                this.savepoint.rollback.run([]);
                this.savepoint.release.run([]);
                outcomes.push({ ok: false, error });
              }
            }
            await trx.commit().execute();
          } catch (error) {
            await trx.rollback().execute().catch(() => undefined);
            throw error;
          }
        } catch (error) {
          for (const item of batch) item.reject(error);
          continue;
        }
        batch.forEach((item, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      }
    } finally {
      this.running = false;
    }
  }
}

const claimKey = (scope: Scope, key: string) => `${scope.merchantId}\u0000${scope.environment}\u0000${key}`;

/** `written`: where SQLite's transactions note the payments they write (see DocumentCache). */
function repositories(db: Db, dialect: Dialect, hot: HotQueries, claims: SqliteClaims | undefined, written?: WrittenPayments): StoreTransaction {
  const lock = <Q extends { forUpdate(): Q }>(query: Q, options?: { lock?: boolean }) => (options?.lock && dialect === 'postgres' ? query.forUpdate() : query);

  const flows = <T extends { id: string; scope: Scope; status: string; createdAt: string }>(table: 'checkout_sessions' | 'payment_links' | 'payment_intents') => ({
    async insert(record: T) {
      const row: FlowTable = { id: record.id, status: record.status, created_at: record.createdAt, data: JSON.stringify(record), ...scopeOf(record.scope) };
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

  const planRow = (p: PaymentPlan) => ({
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
    billing_due_at: billingDueAt(p) ?? null,
    ...scopeOf(p.scope),
  });

  return {
    payments: {
      async insert(payment, document) {
        written?.payment(payment);
        await mapped(hot.insertPayment(db, Object.values(paymentRow(payment, document))));
      },
      async get(scope, payId, options) {
        const { rows } = await (options?.lock && dialect === 'postgres' ? hot.paymentForUpdate : hot.payment)(db, [scope.merchantId, scope.environment, payId]);
        return rows[0] ? parse<Payment>(rows[0]) : undefined;
      },
      async getByTransId(scope, transId, options) {
        const { rows } = await (options?.lock && dialect === 'postgres' ? hot.paymentByTransIdForUpdate : hot.paymentByTransId)(db, [scope.merchantId, scope.environment, transId]);
        return rows[0] ? parse<Payment>(rows[0]) : undefined;
      },
      async update(payment, document) {
        written?.payment(payment);
        const result = await db
          .updateTable('payments')
          .set(paymentRow(payment, document))
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
      async dueCaptures(until, limit, scope) {
        let query = db.selectFrom('payments').select('data').where('capture_at', 'is not', null).where('capture_at', '<=', until);
        if (scope) query = query.where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
        return (await query.orderBy('capture_at').orderBy('pay_id').limit(limit).execute()).map((r) => parse<Payment>(r));
      },
    },
    operations: {
      async insert(op, position) {
        await mapped(hot.insertOperation(db, Object.values(operationRow(op, position))));
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
      async complete({ scope, key, token, response, now }) {
        if (claims) {
          // SQLite: the claim lives in this process; the completed key is written now, in the work's transaction.
          if (claims.get(claimKey(scope, key)) !== token) throw new StaleWriteError(`Idempotency-Key ${key} (not claimed by this request)`);
          const claim = claims.pending.get(token)!;
          const row = idempotencyRow(scope, key, { ...claim, state: 'done', token, locked_until: now, response_status: response.status, response_headers: JSON.stringify(response.headers), response_body: response.body });
          await hot.upsertIdempotency(db, Object.values(row));
          claims.delete(claimKey(scope, key), token);
          return;
        }
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
    webhooks: {
      async insert(delivery) {
        await mapped(db.insertInto('webhook_deliveries').values(deliveryRow(delivery)).execute());
      },
      async find(id, options) {
        const row = await lock(db.selectFrom('webhook_deliveries').select('data').where('id', '=', id), options).executeTakeFirst();
        return row ? parse<WebhookDelivery>(row) : undefined;
      },
      async update(delivery) {
        const { data, status, next_attempt_at } = deliveryRow(delivery);
        await db
          .updateTable('webhook_deliveries')
          .set({ data, status, next_attempt_at, locked_until: null })
          .where('merchant_id', '=', delivery.scope.merchantId)
          .where('environment', '=', delivery.scope.environment)
          .where('id', '=', delivery.id)
          .execute();
      },
      async bringForward(scope, byMs, wallNow) {
        const rows = await db
          .selectFrom('webhook_deliveries')
          .select('data')
          .where('merchant_id', '=', scope.merchantId)
          .where('environment', '=', scope.environment)
          .where('status', '=', 'PENDING')
          .execute();
        let due = 0;
        for (const row of rows) {
          const delivery = parse<WebhookDelivery>(row);
          const nextAttemptAt = new Date(Date.parse(delivery.nextAttemptAt) - byMs).toISOString();
          if (nextAttemptAt <= wallNow) due += 1;
          await db
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: nextAttemptAt, data: JSON.stringify({ ...delivery, nextAttemptAt }) })
            .where('merchant_id', '=', scope.merchantId)
            .where('environment', '=', scope.environment)
            .where('id', '=', delivery.id)
            .execute();
        }
        return due;
      },
    },
    data: {
      async reset(filter) {
        if (written) written.all = true;
        const counts = {} as ResetCounts;
        for (const [name, table] of Object.entries(SCOPED_TABLES) as Array<[keyof ResetCounts, (typeof SCOPED_TABLES)[keyof ResetCounts]]>) {
          let query = db.deleteFrom(table);
          if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
          if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
          counts[name] = Number((await query.executeTakeFirst()).numDeletedRows);
        }
        return counts;
      },
    },
    clocks: {
      async get(scope, options) {
        if (options?.lock && dialect === 'postgres') {
          // A row to lock, even for a clock never advanced.
          await db.insertInto('clocks').values({ offset_ms: 0, ...scopeOf(scope) }).onConflict((oc) => oc.columns(['merchant_id', 'environment']).doNothing()).execute();
        }
        const row = await lock(db.selectFrom('clocks').select('offset_ms').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment), options).executeTakeFirst();
        return row ? Number(row.offset_ms) : 0;
      },
      async set(scope, offsetMs) {
        await db
          .insertInto('clocks')
          .values({ offset_ms: offsetMs, ...scopeOf(scope) })
          .onConflict((oc) => oc.columns(['merchant_id', 'environment']).doUpdateSet({ offset_ms: offsetMs }))
          .execute();
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
      async dueBillings(until, limit, scope) {
        let query = db.selectFrom('payment_plans').select('data').where('billing_due_at', 'is not', null).where('billing_due_at', '<=', until);
        if (scope) query = query.where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
        return (await query.orderBy('billing_due_at').orderBy('id').limit(limit).execute()).map((r) => parse<PaymentPlan>(r));
      },
    },
    planPayments: {
      async insert(p) {
        await mapped(db.insertInto('plan_payments').values({ plan_id: p.paymentPlanId, pay_id: p.payId, billing_date: p.billingDate, data: JSON.stringify(p), ...scopeOf(p.scope) }).execute());
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
        await mapped(db.insertInto('customers').values({ id: c.id, merchant_customer_id: c.merchantCustomerId, created_at: c.createdAt, data: JSON.stringify(c), ...scopeOf(c.scope) }).execute());
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
          db.insertInto('payment_methods').values({ id: m.id, customer_id: m.customerId, pseudo_number: m.pseudoNumber, created_at: m.createdAt, data: JSON.stringify(m), ...scopeOf(m.scope) }).execute(),
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
          .values({ fingerprint: record.fingerprint, pseudo_number: record.pseudoNumber, data: JSON.stringify(record), ...scopeOf(record.scope) })
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

/**
 * The Store on a migrated Kysely instance: PostgreSQL, or SQLite when `sqlite` gives its
 * connections. Its `reader` (on a file: a second connection, else the writer's) serves the reads
 * outside transactions (GET's document, the claim's look-up), which WAL lets run beside the writer,
 * so that they never wait for a commit.
 */
export function kyselyStore(db: Kysely<Database>, location: string, close: () => Promise<void>, sqlite?: SqliteConnections): Store {
  const dialect: Dialect = sqlite ? 'sqlite' : 'postgres';
  const reader = sqlite?.reader ?? db;
  const hot = hotQueries(db, sqlite);
  const claims = sqlite ? new SqliteClaims() : undefined;
  const groupCommit = sqlite ? new GroupCommit(db, sqlite.prepare.writer) : undefined;
  /** SQLite's claim: in flight in this process, or completed in the database (read only). */
  async function claimInProcess(request: ClaimRequest): Promise<ClaimResult> {
    const { scope, key, now } = request;
    const token = randomUUID();
    const fields: IdempotencyFields = {
      operation_id: request.operationId,
      request_hash: request.requestHash,
      state: 'in_flight',
      token,
      locked_until: addMs(now, request.leaseMs),
      expires_at: addMs(now, request.retentionMs),
      response_status: null,
      response_headers: null,
      response_body: null,
    };
    const k = claimKey(scope, key);
    if (!claims!.take(k, token, fields)) return { outcome: 'conflict', reason: 'in_progress' };
    const row = (await hot.idempotencyRow(reader, [scope.merchantId, scope.environment, key])).rows[0];
    if (!row || row.expires_at <= now) return { outcome: 'claimed', token };
    claims!.delete(k, token);
    if (row.operation_id !== request.operationId || row.request_hash !== request.requestHash) return { outcome: 'conflict', reason: 'different_request' };
    return { outcome: 'replay', response: { status: row.response_status ?? 200, headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>, body: row.response_body ?? '' } };
  }
  const documentBy = async (query: HotQueries['document'], scope: Scope, id: string) => (await query(reader, [scope.merchantId, scope.environment, id])).rows[0]?.document;
  const documents = sqlite ? new DocumentCache() : undefined;
  const readDocument = (key: DocumentKey, load: () => Promise<string | undefined>) => (documents ? documents.read(key, load) : load());
  /**
   * SQLite: the repositories of a group-commit batch, made once for all of its transactions (they
   * run one after another), and what the batch wrote, which the cache forgets once it has ended.
   */
  let batch: { tx: Transaction<Database>; written: WrittenPayments; repositories: StoreTransaction } | undefined;
  const batchOf = (tx: Transaction<Database>) => {
    if (batch?.tx !== tx) {
      const written = new WrittenPayments();
      batch = { tx, written, repositories: repositories(tx, dialect, hot, claims, written) };
    }
    return batch;
  };

  return {
    dialect,
    location,
    transaction: groupCommit
      ? (work) => {
          let written: WrittenPayments | undefined;
          return groupCommit
            .submit((tx) => {
              const current = batchOf(tx);
              written = current.written;
              return work(current.repositories);
            })
            .finally(() => written && documents!.forget(written));
        }
      : (work) => db.transaction().execute((tx) => work(repositories(tx, dialect, hot, claims))),
    paymentDocument: (scope, payId) => readDocument(byPayId(scope, payId), () => documentBy(hot.document, scope, payId)),
    paymentDocumentByTransId: (scope, transId) => readDocument(byTransId(scope, transId), () => documentBy(hot.documentByTransId, scope, transId)),
    idempotency: {
      async claim(request: ClaimRequest): Promise<ClaimResult> {
        if (claims) return claimInProcess(request);
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
          .values({ idempotency_key: key, ...claim, ...scopeOf(scope) })
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
        if (claims) return claims.delete(claimKey(scope, key), token);
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
    webhooks: {
      async claimDue(now, lockedUntil, limit) {
        const take = async (tx: Db) => {
          const due = tx
            .selectFrom('webhook_deliveries')
            .select(['merchant_id', 'environment', 'id', 'data'])
            .where('status', '=', 'PENDING')
            .where('next_attempt_at', '<=', now)
            .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
            .orderBy('next_attempt_at')
            .limit(limit);
          const rows = await (dialect === 'postgres' ? due.forUpdate().skipLocked() : due).execute();
          for (const r of rows) {
            await tx.updateTable('webhook_deliveries').set({ locked_until: lockedUntil }).where('merchant_id', '=', r.merchant_id).where('environment', '=', r.environment).where('id', '=', r.id).execute();
          }
          return rows.map((r) => parse<WebhookDelivery>(r));
        };
        return groupCommit ? groupCommit.submit(take) : db.transaction().execute(take);
      },
      async save(delivery) {
        const { data, status, next_attempt_at } = deliveryRow(delivery);
        const write = (tx: Db) =>
          tx
            .updateTable('webhook_deliveries')
            .set({ data, status, next_attempt_at, locked_until: null })
            .where('merchant_id', '=', delivery.scope.merchantId)
            .where('environment', '=', delivery.scope.environment)
            .where('id', '=', delivery.id)
            .execute();
        await (groupCommit ? groupCommit.submit(write) : write(db));
      },
      async get(scope, id) {
        const row = await reader.selectFrom('webhook_deliveries').select('data').where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment).where('id', '=', id).executeTakeFirst();
        return row ? parse<WebhookDelivery>(row) : undefined;
      },
      async find(id) {
        const row = await reader.selectFrom('webhook_deliveries').select('data').where('id', '=', id).executeTakeFirst();
        return row ? parse<WebhookDelivery>(row) : undefined;
      },
      async list(filter = {}) {
        let q = reader.selectFrom('webhook_deliveries').select('data');
        const merchantId = filter.scope?.merchantId ?? filter.merchantId;
        const environment = filter.scope?.environment ?? filter.environment;
        if (merchantId !== undefined) q = q.where('merchant_id', '=', merchantId);
        if (environment !== undefined) q = q.where('environment', '=', environment);
        if (filter.payId !== undefined) q = q.where('pay_id', '=', filter.payId);
        if (filter.status !== undefined) q = q.where('status', '=', filter.status);
        q = q.orderBy('created_at', 'desc').orderBy('id', 'desc');
        if (filter.limit !== undefined) q = q.limit(filter.limit);
        return (await q.execute()).map((r) => parse<WebhookDelivery>(r));
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
        const row = await reader.selectFrom('merchants').select('data').where('merchant_id', '=', merchantId).executeTakeFirst();
        return row ? parse<Merchant>(row) : undefined;
      },
      async getByApiKeyHash(hash) {
        const row = await reader.selectFrom('merchants').select('data').where('api_key_hash', '=', hash).executeTakeFirst();
        return row ? parse<Merchant>(row) : undefined;
      },
      async list() {
        return (await db.selectFrom('merchants').select('data').orderBy('merchant_id').execute()).map((r) => parse<Merchant>(r));
      },
    },
    async clocks() {
      const rows = await reader.selectFrom('clocks').selectAll().where('offset_ms', '!=', 0).execute();
      return rows.map((r) => ({ scope: { merchantId: r.merchant_id, environment: r.environment as Scope['environment'] }, offsetMs: Number(r.offset_ms) }));
    },
    async setting(name, create) {
      await db.insertInto('settings').values({ name, value: create() }).onConflict((oc) => oc.column('name').doNothing()).execute();
      return (await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()).value;
    },
    close,
  };
}
