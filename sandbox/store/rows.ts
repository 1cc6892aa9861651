// Each record's row: the columns that queries filter, sort or join on, and the record whole as JSON
// (`data`), which reads parse back.

import { billingDueAt, paymentDueAt } from '../domain/clock.js';
import type {
  Customer,
  Environment,
  Merchant,
  Payment,
  PaymentOperation,
  PaymentPlan,
  PlanPayment,
  PseudoNumberRecord,
  Scope,
  StoredPaymentMethod,
  Timestamp,
  WebhookDelivery,
} from '../domain/types.js';
import type { Database, FlowTable } from './schema.js';
import type { ClaimRequest, StoredResponse } from './store.js';

export const parse = <T>(row: { data: string }): T => JSON.parse(row.data) as T;

/**
 * A row's scope columns. Rows spread it last: on Node 20's V8, an object that starts with a spread
 * and then gains keys gets hidden classes of its own, made in old space, and they kept every row
 * and its JSON alive until a full GC (docs/benchmarks.md, POST; `node --log-maps` shows the
 * transitions, test/sandbox/hidden-classes.test.ts counts them).
 */
export const scopeOf = (scope: Scope) => ({ merchant_id: scope.merchantId, environment: scope.environment });

/** The scope of a row read with its scope columns. */
export const scopeOfRow = (row: { merchant_id: string; environment: string }): Scope => ({
  merchantId: row.merchant_id,
  environment: row.environment as Environment,
});

/** A payment's row; the keys always in this order (precompiled inserts rely on it). */
export const paymentRow = (p: Payment, document: string) => ({
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
  capture_at: paymentDueAt(p) ?? null,
  ...scopeOf(p.scope),
});

export const operationRow = (op: PaymentOperation, position: number) => ({
  x_id: op.xId,
  pay_id: op.payId,
  position,
  data: JSON.stringify(op),
  ...scopeOf(op.scope),
});

export type IdempotencyFields = Omit<Database['idempotency_keys'], 'merchant_id' | 'environment' | 'idempotency_key'>;
export const idempotencyRow = (scope: Scope, key: string, f: IdempotencyFields) => ({
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

export const addMs = (iso: Timestamp, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** A new claim of a key: in flight, held for the lease, kept for the retention. */
export const claimFields = (request: ClaimRequest, token: string): IdempotencyFields => ({
  operation_id: request.operationId,
  request_hash: request.requestHash,
  state: 'in_flight',
  token,
  locked_until: addMs(request.now, request.leaseMs),
  expires_at: addMs(request.now, request.retentionMs),
  response_status: null,
  response_headers: null,
  response_body: null,
});

/** The response a completed key keeps, to be sent again. */
export const storedResponse = (
  row: Pick<IdempotencyFields, 'response_status' | 'response_headers' | 'response_body'>,
): StoredResponse => ({
  status: row.response_status ?? 200,
  headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
  body: row.response_body ?? '',
});

/** When a delivery ended: delivered, or its last attempt (dead); null while it is pending. */
const finishedAt = (d: WebhookDelivery): string | null =>
  d.status === 'DELIVERED'
    ? (d.deliveredAt ?? null)
    : d.status === 'DEAD'
      ? (d.attempts.at(-1)?.at ?? d.nextAttemptAt)
      : null;

/** A delivery's row, free of any hold (a write of a delivery releases its process's or listener's claim). */
export const deliveryRow = (d: WebhookDelivery) => ({
  id: d.id,
  pay_id: d.payId,
  status: d.status,
  next_attempt_at: d.nextAttemptAt,
  locked_until: null,
  claim_token: null,
  created_at: d.createdAt,
  finished_at: finishedAt(d),
  data: JSON.stringify(d),
  ...scopeOf(d.scope),
});

/** Checkout sessions, payment links and payment intents. */
export const flowRow = (record: { id: string; scope: Scope; status: string; createdAt: string }): FlowTable => ({
  id: record.id,
  status: record.status,
  created_at: record.createdAt,
  data: JSON.stringify(record),
  ...scopeOf(record.scope),
});

export const planRow = (p: PaymentPlan) => ({
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

export const planPaymentRow = (p: PlanPayment) => ({
  plan_id: p.paymentPlanId,
  pay_id: p.payId,
  billing_date: p.billingDate,
  data: JSON.stringify(p),
  ...scopeOf(p.scope),
});

export const customerRow = (c: Customer) => ({
  id: c.id,
  merchant_customer_id: c.merchantCustomerId,
  created_at: c.createdAt,
  data: JSON.stringify(c),
  ...scopeOf(c.scope),
});

export const paymentMethodRow = (m: StoredPaymentMethod) => ({
  id: m.id,
  customer_id: m.customerId,
  pseudo_number: m.pseudoNumber,
  created_at: m.createdAt,
  data: JSON.stringify(m),
  ...scopeOf(m.scope),
});

export const pseudoNumberRow = (r: PseudoNumberRecord) => ({
  fingerprint: r.fingerprint,
  pseudo_number: r.pseudoNumber,
  data: JSON.stringify(r),
  ...scopeOf(r.scope),
});

export const merchantRow = (m: Merchant) => ({
  merchant_id: m.merchantId,
  api_key_hash: m.apiKeyHash,
  data: JSON.stringify(m),
});
