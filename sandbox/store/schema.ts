// The tables, as Kysely sees them. Each record is kept whole as JSON text (`data`), beside the
// columns that queries filter, sort or join on; every table leads with the scope
// (merchant_id, environment), which every query names.
import type { Generated } from 'kysely';

interface Scoped {
  merchant_id: string;
  environment: string;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface MerchantsTable {
  merchant_id: string;
  api_key_hash: string;
  data: string;
}

export interface PaymentsTable extends Scoped {
  pay_id: string;
  kind: string;
  trans_id: string;
  state: string;
  amount_value: number;
  currency: string;
  merchant_customer_id: string | null;
  created_at: string;
  version: number;
  data: string;
  /** The payment details body as GET answers it (JSON text). */
  document: string;
  /** When the test clock acts on it (a DELAYED capture, the expiry of a waiting payment), else null. */
  capture_at: string | null;
}

export interface OperationsTable extends Scoped {
  x_id: string;
  pay_id: string;
  /** 1, 2, … within the payment: the order of its history. */
  position: number;
  data: string;
}

export interface IdempotencyTable extends Scoped {
  idempotency_key: string;
  operation_id: string;
  request_hash: string;
  /** `in_flight` while a request holds it, `done` with the response once it completed. */
  state: string;
  token: string;
  locked_until: string;
  expires_at: string;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
}

/** Checkout sessions, payment links and payment intents share one shape. */
export interface FlowTable extends Scoped {
  id: string;
  status: string;
  created_at: string;
  data: string;
}

export interface PlansTable extends Scoped {
  id: string;
  type: string;
  status: string;
  merchant_customer_id: string | null;
  customer_id: string | null;
  currency: string;
  amount_value: number | null;
  created_at: string;
  last_billing_at: string | null;
  version: number;
  data: string;
  /** When the test clock bills it (ACTIVE AUTOMATIC plans), else null. */
  billing_due_at: string | null;
}

export interface PlanPaymentsTable extends Scoped {
  plan_id: string;
  pay_id: string;
  billing_date: string;
  data: string;
}

export interface CustomersTable extends Scoped {
  id: string;
  merchant_customer_id: string;
  created_at: string;
  data: string;
}

export interface PaymentMethodsTable extends Scoped {
  id: string;
  customer_id: string;
  pseudo_number: string;
  created_at: string;
  data: string;
}

export interface PseudoNumbersTable extends Scoped {
  fingerprint: string;
  pseudo_number: string;
  data: string;
}

export interface WebhookDeliveriesTable extends Scoped {
  id: string;
  pay_id: string;
  status: string;
  next_attempt_at: string;
  /** A process delivering it holds it until then (PostgreSQL: several processes deliver). */
  locked_until: string | null;
  /** The claim of a listener (`npm run sandbox -- listen`) that holds it: `<listenerId>.<random>`. */
  claim_token: string | null;
  created_at: string;
  /** When it became DELIVERED or DEAD (its retention counts from then); null while PENDING. */
  finished_at: string | null;
  data: string;
}

/** A merchant's connected `listen` client: alive while it polls (expires_at moves on with each poll). */
export interface WebhookListenersTable extends Scoped {
  id: string;
  expires_at: string;
  created_at: string;
}

export interface ClocksTable extends Scoped {
  offset_ms: number;
}

/** A snapshot of the scoped tables' rows of some scopes (the admin API's takeSnapshot). */
export interface SnapshotsTable {
  id: string;
  /** Its filter: null for every merchant, or every environment. */
  merchant_id: string | null;
  environment: string | null;
  created_at: string;
  /** JSON: the rows held, counted by kind of record. */
  counts: string;
  /** JSON: the merchants whose rows it holds. */
  merchants: string;
  /** JSON: each scoped table's rows. */
  data: string;
}

export interface Database {
  clocks: ClocksTable;
  settings: SettingsTable;
  merchants: MerchantsTable;
  payments: PaymentsTable;
  payment_operations: OperationsTable;
  idempotency_keys: IdempotencyTable;
  checkout_sessions: FlowTable;
  payment_links: FlowTable;
  payment_intents: FlowTable;
  payment_plans: PlansTable;
  plan_payments: PlanPaymentsTable;
  customers: CustomersTable;
  payment_methods: PaymentMethodsTable;
  pseudo_numbers: PseudoNumbersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_listeners: WebhookListenersTable;
  snapshots: SnapshotsTable;
}

// Kysely's Generated marks columns the database fills; none here (ids come from the application).
export type { Generated };
