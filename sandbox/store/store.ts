// The store: the only place of the sandbox that speaks SQL. One implementation on Kysely for both
// embedded SQLite (the default: better-sqlite3, or for `:memory:` SQLite compiled to WebAssembly
// where better-sqlite3 does not load) and PostgreSQL (pg, for a sandbox a team shares,
// with several sandbox processes on one database), one set of migrations.
//
// Every read and write is scoped: a record of one merchant in one environment is invisible to any
// other scope (the HTTP layer answers 404, as if it did not exist).
import type {
  CheckoutSession,
  Customer,
  Environment,
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
  Timestamp,
  WebhookDelivery,
} from '../domain/types.js';
import type { IdempotencyKeyRef, IdempotencyStore, StoredResponse } from './idempotency.js';
import type { Housekeeping, WebhookListeners, WebhookOutbox } from './webhooks.js';

export type Dialect = 'sqlite' | 'postgres';

export interface PageRequest {
  /** 1-based */
  page: number;
  pageSize: number;
}

export interface Page<T> {
  items: T[];
  /** Items matching the filter, over all pages. */
  total: number;
}

/** A unique key is taken (a payment's transId in its scope, an id). */
export class DuplicateKeyError extends Error {
  constructor(readonly constraint: string) {
    super(`duplicate key: ${constraint}`);
    this.name = 'DuplicateKeyError';
  }
}

/** An update based on a stale read (the record's version moved on meanwhile). */
export class StaleWriteError extends Error {
  constructor(readonly what: string) {
    super(`stale write: ${what} changed meanwhile`);
    this.name = 'StaleWriteError';
  }
}

// ---------------------------------------------------------------------------------------------
// Idempotency
export type { ClaimRequest, ClaimResult, IdempotencyKeyRef, IdempotencyStore, StoredResponse } from './idempotency.js';

// ---------------------------------------------------------------------------------------------
// Webhooks: the outbox, the listeners, housekeeping
export type { DueClaim, Housekeeping, ListenerClaim, WebhookListeners, WebhookOutbox } from './webhooks.js';

// ---------------------------------------------------------------------------------------------
// Repositories inside a transaction

export interface PlanFilter {
  createdFrom?: Timestamp;
  createdTo?: Timestamp;
  lastBillingFrom?: Timestamp;
  lastBillingTo?: Timestamp;
  paymentPlanId?: string;
  merchantCustomerId?: string;
  customerId?: string;
  currency?: string;
  amountFrom?: number;
  amountTo?: number;
  amount?: number;
  status?: PaymentPlan['status'];
  type?: PaymentPlan['type'];
}

export interface DuplicateQuery {
  amountValue: number;
  currency: string;
  transId?: string;
  merchantCustomerId?: string;
  /** Payments created at or after this moment. */
  since: Timestamp;
}

export interface StoreTransaction {
  payments: {
    /** `document` is the payment's details body (JSON) as GET answers it: kept with the row. */
    insert(payment: Payment, document: string): Promise<void>;
    /** `lock`: hold the row until the transaction ends (PostgreSQL `FOR UPDATE`). */
    get(scope: Scope, payId: string, options?: { lock?: boolean }): Promise<Payment | undefined>;
    getByTransId(scope: Scope, transId: string, options?: { lock?: boolean }): Promise<Payment | undefined>;
    /** Writes `payment` if the stored version is `payment.version - 1`, else StaleWriteError. */
    update(payment: Payment, document: string): Promise<void>;
    findDuplicates(scope: Scope, query: DuplicateQuery): Promise<string[]>;
    /** Payments the clock acts on by `until` (a DELAYED capture, an expiry: paymentDueAt), earliest first; of one scope, or of all. */
    duePayments(until: Timestamp, limit: number, scope?: Scope): Promise<Payment[]>;
  };
  operations: {
    /** `position`: 1, 2, … in the payment's history (the caller knows the operations before it). */
    insert(operation: PaymentOperation, position: number): Promise<void>;
    /** Oldest first. */
    listByPayment(scope: Scope, payId: string): Promise<PaymentOperation[]>;
  };
  idempotency: {
    /** Records the response of a claimed key, in the same transaction as the work it answers. */
    complete(ref: IdempotencyKeyRef & { token: string; response: StoredResponse; now: Timestamp }): Promise<void>;
  };
  sessions: {
    insert(session: CheckoutSession): Promise<void>;
    get(scope: Scope, id: string, options?: { lock?: boolean }): Promise<CheckoutSession | undefined>;
    update(session: CheckoutSession): Promise<void>;
  };
  links: {
    insert(link: PaymentLink): Promise<void>;
    get(scope: Scope, id: string, options?: { lock?: boolean }): Promise<PaymentLink | undefined>;
    update(link: PaymentLink): Promise<void>;
  };
  intents: {
    insert(intent: PaymentIntent): Promise<void>;
    get(scope: Scope, id: string, options?: { lock?: boolean }): Promise<PaymentIntent | undefined>;
    update(intent: PaymentIntent): Promise<void>;
  };
  plans: {
    insert(plan: PaymentPlan): Promise<void>;
    get(scope: Scope, id: string, options?: { lock?: boolean }): Promise<PaymentPlan | undefined>;
    /** Writes `plan` if the stored version is `plan.version - 1`, else StaleWriteError. */
    update(plan: PaymentPlan): Promise<void>;
    /** Newest first (creation), then id. */
    list(scope: Scope, filter: PlanFilter, page: PageRequest): Promise<Page<PaymentPlan>>;
    /** Plans whose billing falls due by `until`, earliest first; of one scope, or of all. */
    dueBillings(until: Timestamp, limit: number, scope?: Scope): Promise<PaymentPlan[]>;
  };
  planPayments: {
    insert(planPayment: PlanPayment): Promise<void>;
    /** Oldest billing first. */
    list(scope: Scope, paymentPlanId: string, page: PageRequest): Promise<Page<PlanPayment>>;
  };
  customers: {
    insert(customer: Customer): Promise<void>;
    get(scope: Scope, id: string): Promise<Customer | undefined>;
    getByMerchantCustomerId(scope: Scope, merchantCustomerId: string): Promise<Customer | undefined>;
    update(customer: Customer): Promise<void>;
    /** Deletes the customer and its stored payment methods; false when there was none. */
    delete(scope: Scope, id: string): Promise<boolean>;
    /** Oldest first. */
    list(scope: Scope, page: PageRequest): Promise<Page<Customer>>;
  };
  paymentMethods: {
    insert(method: StoredPaymentMethod): Promise<void>;
    get(scope: Scope, customerId: string, id: string): Promise<StoredPaymentMethod | undefined>;
    /** The customer's method with this pseudo number, if stored already. */
    getByPseudoNumber(scope: Scope, customerId: string, pseudoNumber: string): Promise<StoredPaymentMethod | undefined>;
    delete(scope: Scope, customerId: string, id: string): Promise<boolean>;
    list(scope: Scope, customerId: string, page: PageRequest): Promise<Page<StoredPaymentMethod>>;
  };
  pseudoNumbers: {
    /** Inserts unless the fingerprint is known in this scope; returns the record that is stored. */
    getOrInsert(record: PseudoNumberRecord): Promise<PseudoNumberRecord>;
    getByPseudoNumber(scope: Scope, pseudoNumber: string): Promise<PseudoNumberRecord | undefined>;
  };
  /** The outbox: a delivery is written in the transaction of the state change it reports. */
  webhooks: {
    insert(delivery: WebhookDelivery): Promise<void>;
    /** A delivery by its id, whatever its scope (ids are unique); `lock` holds it until the transaction ends. */
    find(id: string, options?: { lock?: boolean }): Promise<WebhookDelivery | undefined>;
    /** The merchant's PENDING delivery `id` while a listener's claim `token` holds it (locked), else undefined. */
    findClaimed(merchantId: string, id: string, token: string): Promise<WebhookDelivery | undefined>;
    /** Writes the delivery (status, next attempt, attempts) and releases a deliverer's hold. */
    update(delivery: WebhookDelivery): Promise<void>;
    /**
     * Brings the scope's PENDING deliveries `byMs` closer (its clock was advanced: their retries
     * fall due as if that time had passed); returns how many are due at `wallNow` afterwards.
     */
    bringForward(scope: Scope, byMs: number, wallNow: Timestamp): Promise<number>;
  };
  /** The sandbox's data as a whole (the admin API's reset). */
  data: {
    /** Deletes every scoped record (merchants stay) of the scopes `filter` selects; returns the rows deleted per kind. */
    reset(filter: DataFilter): Promise<ResetCounts>;
    /** Deletes the merchant, every record of its scopes and its listeners; false when there was none. */
    deleteMerchant(merchantId: string): Promise<boolean>;
  };
  /** Saved copies of the scoped records of some scopes (not the merchants), restored on demand. */
  snapshots: {
    /** Saves the scoped records `filter` selects under `id`; the rows it holds, by kind. */
    take(snapshot: { id: string; filter: DataFilter; createdAt: Timestamp }): Promise<ResetCounts>;
    /** The snapshot's filter, time, counts and merchants; undefined when there is none. */
    get(id: string): Promise<SnapshotInfo | undefined>;
    /** Deletes the records of the snapshot's scopes and writes its own back (claims on deliveries released); its counts. */
    restore(id: string): Promise<ResetCounts | undefined>;
  };
  /** The test clock of each scope: its offset from the wall clock (0 when never advanced). */
  clocks: {
    /** `lock`: hold the clock until the transaction ends (advances of one scope run one at a time). */
    get(scope: Scope, options?: { lock?: boolean }): Promise<number>;
    set(scope: Scope, offsetMs: number): Promise<void>;
  };
}

// ---------------------------------------------------------------------------------------------
// The store

export interface Store {
  readonly dialect: Dialect;
  /** Where the data lives, for messages: a file path, `:memory:`, or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. On
   * SQLite, transactions are serialized; on PostgreSQL they run concurrently (READ COMMITTED), and
   * `lock: true` reads serialize writers of the same record across processes.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** The payment details body (JSON text) as stored, or undefined: GET's path, one indexed read. */
  paymentDocument(scope: Scope, payId: string): Promise<string | undefined>;
  paymentDocumentByTransId(scope: Scope, transId: string): Promise<string | undefined>;
  idempotency: IdempotencyStore;
  webhooks: WebhookOutbox;
  listeners: WebhookListeners;
  housekeeping: Housekeeping;
  merchants: {
    /** Inserts or replaces (by merchantId). */
    upsert(merchant: Merchant): Promise<void>;
    /** Inserts a merchant whose id is new; false (nothing written) when the id is taken. */
    insert(merchant: Merchant): Promise<boolean>;
    get(merchantId: string): Promise<Merchant | undefined>;
    getByApiKeyHash(apiKeyHash: string): Promise<Merchant | undefined>;
    list(): Promise<Merchant[]>;
  };
  /** The clocks that were advanced (the others show the wall clock). */
  clocks(): Promise<Array<{ scope: Scope; offsetMs: number }>>;
  /**
   * A value shared by every process on the database (the JWT signing key, the pseudo-number key):
   * the first process creates it, the others read the same.
   */
  setting(name: string, create: () => string): Promise<string>;
  close(): Promise<void>;
}

/** What a snapshot holds, without its rows. */
export interface SnapshotInfo {
  id: string;
  filter: DataFilter;
  createdAt: Timestamp;
  counts: ResetCounts;
  /** The merchants whose records it holds. */
  merchants: string[];
}

/** Which scopes: every merchant's, one merchant's, one environment's, or one scope. */
export interface DataFilter {
  merchantId?: string;
  environment?: Environment;
}

/** Rows deleted by a reset, per kind of record. */
export interface ResetCounts {
  payments: number;
  paymentOperations: number;
  idempotencyKeys: number;
  checkoutSessions: number;
  paymentLinks: number;
  paymentIntents: number;
  paymentPlans: number;
  planPayments: number;
  customers: number;
  paymentMethods: number;
  pseudoNumbers: number;
  webhookDeliveries: number;
  clocks: number;
}

export interface OpenStoreOptions {
  /** A SQLite file path, `:memory:`, or a `postgres://` / `postgresql://` URL. */
  database: string;
  /**
   * SQLite's build for `:memory:`: better-sqlite3's native module, or SQLite compiled to WebAssembly
   * (sql.js), which needs no native build. Default: native when better-sqlite3 loads, else wasm. A
   * file needs native (its owner lock, WAL and checkpoints are better-sqlite3's).
   */
  sqliteDriver?: 'native' | 'wasm';
}
