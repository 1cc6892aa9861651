// The merchant's notification of a payment's result, queued in the outbox in the transaction of the
// change it reports, so that a crash (even kill -9) loses none; the deliverer (jobs/) sends it.
import { notificationBody } from '../domain/hosted.js';
import { paymentDetails } from '../domain/payments.js';
import type { Merchant, Payment, WebhookDelivery } from '../domain/types.js';
import type { StoreTransaction } from '../store/store.js';
import { newId } from './ids.js';

/** Queues the basic or the enhanced body, per the merchant, due at once. */
export async function queueNotification(
  tx: StoreTransaction,
  merchant: Merchant,
  payment: Payment,
  url: string,
  now: Date,
): Promise<void> {
  const document = JSON.stringify(
    paymentDetails(payment, await tx.operations.listByPayment(payment.scope, payment.payId)),
  );
  const kind = merchant.webhookKind ?? 'enhanced';
  const delivery: WebhookDelivery = {
    id: newId('webhook', now),
    scope: payment.scope,
    payId: payment.payId,
    kind,
    url,
    body: notificationBody(kind, payment.payId, document),
    status: 'PENDING',
    attempts: [],
    // Attempts run on the wall clock, whatever the scope's clock says: due now.
    nextAttemptAt: new Date().toISOString(),
    createdAt: now.toISOString(),
  };
  await tx.webhooks.insert(delivery);
}
