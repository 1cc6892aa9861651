// The sandbox's entities: what the service keeps about payments, plans, customers and the rest.
// Pure types (no `node:`, no SQL): the store persists them, the domain's state machines change them,
// the HTTP layer turns them into the contract's bodies. Request and response bodies are the
// contract's own types (generated/types.ts), never a second copy.
import type { components } from '../../generated/types.js';

export type Schemas = components['schemas'];

/** The root a request came in on: `/api/v2` (test) or `/live/api/v2` (live form). Data never crosses. */
export type Environment = 'test' | 'live';

/** Whose data: every record belongs to one merchant in one environment. */
export interface Scope {
  readonly merchantId: string;
  readonly environment: Environment;
}

/** An ISO 8601 UTC timestamp (`2026-11-24T09:14:03.120Z`). */
export type Timestamp = string;

export interface Merchant {
  merchantId: string;
  /** Keyed digest of the API key (with a key derived from the sandbox secret): the key itself is never stored. */
  apiKeyHash: string;
  /**
   * The webhook secrets, sealed with the sandbox secret (a JSON list: the first, or every one while
   * one is rotated, signs the enhanced webhooks): a copied database cannot forge a notification.
   */
  sealedWebhookSecrets: string;
  /** The demo merchant's API key, sealed: the sandbox made it, and shows it again after a restart. */
  sealedApiKey?: string;
  /** Which notification the merchant's webhook endpoints receive (default: enhanced, signed). */
  webhookKind?: 'basic' | 'enhanced';
  createdAt: Timestamp;
}

// ---------------------------------------------------------------------------------------------
// Payments

/**
 * Where a payment stands. `PENDING`: a HOSTED payment waiting for the customer on the hosted page;
 * `PENDING_CONFIRMATION`: a DIRECT payment of a multi-step method waiting for its confirmation.
 */
export type PaymentState =
  | 'PENDING'
  | 'PENDING_CONFIRMATION'
  | 'AUTHORIZED'
  | 'PARTIALLY_CAPTURED'
  | 'CAPTURED'
  | 'PARTIALLY_REFUNDED'
  | 'REFUNDED'
  | 'REVERSED'
  | 'FAILED';

export type CaptureMode = 'AUTOMATIC' | 'MANUAL' | 'DELAYED';

/** A payment (`PAYMENT`), or a refund without reference, which is a payment of its own (`UNREFERENCED_REFUND`). */
export type PaymentKind = 'PAYMENT' | 'UNREFERENCED_REFUND';

export interface Payment {
  payId: string;
  scope: Scope;
  kind: PaymentKind;
  /** The merchant's transaction id of the creation request. */
  transId: string;
  refNr?: string;
  state: PaymentState;
  integrationType: Schemas['IntegrationType'];
  /** CARD, PAYPAL, … ; undefined while the customer has not chosen one on the hosted page. */
  paymentMethodType?: string;
  currency: string;
  /** The amount as requested at creation (with its tax and shipping fields). */
  amount: Schemas['Amount'];
  /** Minor units: authorized in total (creation plus incremental authorizations). */
  authorizedValue: number;
  capturedValue: number;
  refundedValue: number;
  reversedValue: number;
  captureMode: CaptureMode;
  delayedHours?: number;
  /** DELAYED: when the authorization is captured automatically (the test clock acts on it). */
  captureAt?: Timestamp;
  /** The creation's `simulationMode`: it decides the authorization, whenever that happens (at once, at confirmation, on the hosted page). */
  simulationMode?: string;
  /** The service's id of the customer (derived from customerInfo.merchantCustomerId). */
  customerId?: string;
  paymentPlanId?: string;
  storedPaymentMethodId?: string;
  /**
   * The descriptive fields of the creation request, as sent (order, customerInfo, billingAddress,
   * shipping, urls, channel, statementDescriptor, expirationTime, credentialOnFile, …), with any card
   * number removed. PATCH /payments/{id} changes them.
   */
  details: PaymentDescriptiveFields;
  metadata?: Schemas['Metadata'];
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Incremented on every change: the store refuses a write based on a stale read. */
  version: number;
}

/** The fields of a payment that describe it rather than its money, as a payment request names them. */
export const DESCRIPTIVE_FIELDS = [
  'order',
  'customerInfo',
  'billingAddress',
  'shipping',
  'urls',
  'channel',
  'statementDescriptor',
  'expirationTime',
  'credentialOnFile',
  'language',
  'externalIntegrationId',
  'referencePayId',
] as const satisfies ReadonlyArray<keyof Schemas['PaymentRequest']>;

export type PaymentDescriptiveFields = Partial<Pick<Schemas['PaymentRequest'], (typeof DESCRIPTIVE_FIELDS)[number]>>;

/** CREATION: a payment that waits (for the customer or a confirmation) before it is authorized. */
export type OperationType =
  | 'CREATION'
  | 'AUTHORIZATION'
  | 'CAPTURE'
  | 'REVERSAL'
  | 'REFUND'
  | 'INCREMENTAL_AUTHORIZATION'
  | 'CONFIRMATION'
  | 'UPDATE';

/** One operation on a payment: each has its own xId; the payment's payId never changes. */
export interface PaymentOperation {
  xId: string;
  payId: string;
  scope: Scope;
  type: OperationType;
  transId: string;
  refNr?: string;
  status: 'OK' | 'FAILED';
  responseCode: string;
  responseDescription: string;
  amount?: Schemas['ReportedAmount'];
  metadata?: Schemas['Metadata'];
  /** Provider details of the result (paymentMethods of the operation result), e.g. on a decline. */
  paymentMethods?: Schemas['PaymentMethodResults'];
  createdAt: Timestamp;
  /**
   * A failed operation that made the payment FAILED (a declined authorization or confirmation, an
   * expiry): the payment's outcome. Any other failed operation is a refused request that left the
   * payment as it was.
   */
  failsPayment?: true;
}

// ---------------------------------------------------------------------------------------------
// Hosted flows and mobile SDK intents

export interface CheckoutSession {
  id: string;
  scope: Scope;
  status: 'OPEN' | 'COMPLETED' | 'CANCELLED' | 'EXPIRED';
  request: Schemas['CheckoutSessionRequest'];
  /** The payment the customer made on the hosted page. */
  payId?: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
}

export interface PaymentLink {
  id: string;
  scope: Scope;
  /** FAILED: the customer's attempt was declined (a link is used once, whatever the result). */
  status: 'ACTIVE' | 'PAID' | 'FAILED' | 'EXPIRED';
  request: Schemas['PaymentLinkRequest'];
  payId?: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
}

export interface PaymentIntent {
  id: string;
  scope: Scope;
  status: 'CREATED' | 'CONFIRMED';
  request: Schemas['PaymentIntentRequest'];
  /** The payment its confirmation created. */
  payId?: string;
  createdAt: Timestamp;
}

// ---------------------------------------------------------------------------------------------
// Webhook deliveries: the outbox, written in the transaction of the final result

export interface WebhookAttempt {
  at: Timestamp;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed without an answer (timeout, connection refused, a refused destination). */
  error?: string;
  durationMs: number;
  /** The `listen` client that forwarded it (and answered with its local endpoint's status), when one did. */
  listenerId?: string;
}

export interface WebhookDelivery {
  id: string;
  scope: Scope;
  payId: string;
  kind: 'basic' | 'enhanced';
  url: string;
  /** The notification body, fixed at the final result (each attempt is signed anew). */
  body: string;
  /** PENDING until a 2xx (DELIVERED) or until the attempts run out (DEAD, resendable). */
  status: 'PENDING' | 'DELIVERED' | 'DEAD';
  attempts: WebhookAttempt[];
  nextAttemptAt: Timestamp;
  createdAt: Timestamp;
  deliveredAt?: Timestamp;
  /** After a resend: the attempts made before it (they no longer count against the schedule). */
  resentAfterAttempts?: number;
}

// ---------------------------------------------------------------------------------------------
// Plans, customers, stored payment methods

export interface PaymentPlan {
  id: string;
  scope: Scope;
  type: Schemas['PaymentPlanType'];
  status: Schemas['PaymentPlanStatus'];
  triggerType: 'AUTOMATIC' | 'MANUAL';
  merchantCustomerId?: string;
  customerId?: string;
  description?: string;
  currency: string;
  /** Fixed charge amount (recurring plans); the installment amount (installment plans). */
  amountValue?: number;
  frequency?: string;
  totalInstallments?: number;
  paidInstallments: number;
  /** Plan dates in the contract's PlanDateTime form (YYYY-MM-DDTHH:MM:SS.mmm, UTC). */
  nextPaymentDate?: string;
  expirationDate?: string;
  /** The initial credential-on-file payment that created the plan. */
  initialPayId: string;
  storedPaymentMethodId?: string;
  card?: Schemas['CardSummary'];
  order?: Schemas['OrderReference'];
  createdAt: Timestamp;
  cancelledAt?: Timestamp;
  lastBillingAt?: Timestamp;
  version: number;
}

/** A payment made within a plan (the initial one included). */
export interface PlanPayment {
  paymentPlanId: string;
  payId: string;
  scope: Scope;
  status: string;
  amount: Schemas['ReportedAmount'];
  billingDate: Timestamp;
}

export interface Customer {
  /** The service's id, `cus_…`. */
  id: string;
  scope: Scope;
  /** The merchant's id of the customer: one customer per merchantCustomerId. */
  merchantCustomerId: string;
  data: Schemas['CustomerData'];
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A payment method a customer stored through a credential-on-file payment: never a full card number. */
export interface StoredPaymentMethod {
  id: string;
  scope: Scope;
  customerId: string;
  type: 'CARD';
  card: Schemas['CardSummary'];
  pseudoNumber: string;
  createdAt: Timestamp;
}

/** A token the service assigned to a card number or IBAN; the number itself is kept only as a keyed hash. */
export interface PseudoNumberRecord {
  scope: Scope;
  /** HMAC-SHA-256 of the number (keyed per sandbox installation), hex. */
  fingerprint: string;
  pseudoNumber: string;
  type: 'CARD' | 'IBAN';
  maskedNumber: string;
  /** Cards: brand, last four digits, expiry, holder name, for account updates and stored methods. */
  card?: Schemas['CardSummary'];
  createdAt: Timestamp;
}
