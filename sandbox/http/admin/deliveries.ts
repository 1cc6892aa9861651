// The admin operations on webhook deliveries: list them, show one, resend one.
import type { components } from '../../../generated/admin/types.js';
import { findDelivery, listDeliveries } from '../../app/admin.js';
import { isRejection } from '../../app/outcomes.js';
import { resendDeliveryById } from '../../app/webhooks.js';
import type { WebhookDelivery } from '../../domain/types.js';
import { noDelivery, rejectionReply } from './replies.js';
import type { AdminDeps, AdminHandlersOf } from './types.js';

type Schemas = components['schemas'];

/** The delivery as the admin document shows it. */
export function deliveryBody(d: WebhookDelivery): Schemas['WebhookDelivery'] {
  return {
    id: d.id,
    scope: { merchantId: d.scope.merchantId, environment: d.scope.environment },
    payId: d.payId,
    kind: d.kind,
    url: d.url,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      at: a.at,
      statusCode: a.statusCode,
      error: a.error?.slice(0, 1024),
      durationMs: a.durationMs,
      listenerId: a.listenerId,
    })),
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    deliveredAt: d.deliveredAt,
    resentAfterAttempts: d.resentAfterAttempts,
    body: d.body,
  };
}

export function deliveryHandlers(
  deps: AdminDeps,
): AdminHandlersOf<'listWebhookDeliveries' | 'getWebhookDelivery' | 'resendWebhookDelivery'> {
  const { store } = deps;
  return {
    async listWebhookDeliveries(r) {
      const { merchantId, environment, status, payId, limit } = r.query;
      const deliveries = await listDeliveries(store, { merchantId, environment, status, payId, limit: limit ?? 100 });
      const body: Schemas['WebhookDeliveryList'] = { data: deliveries.map(deliveryBody) };
      return { status: 200, body };
    },

    async getWebhookDelivery(r) {
      const found = await findDelivery(store, r.path.deliveryId);
      return isRejection(found) ? rejectionReply(r, found) : { status: 200, body: deliveryBody(found.delivery) };
    },

    async resendWebhookDelivery(r) {
      const outcome = await resendDeliveryById(store, r.path.deliveryId, new Date());
      if (outcome === 'missing') return noDelivery(r, r.path.deliveryId);
      if (outcome === 'pending') {
        return r.problem(409, {
          title: 'The delivery is still pending.',
          detail: 'It is being sent or waits for its next attempt; resend it once it is DELIVERED or DEAD.',
          type: 'sandbox/delivery-pending',
        });
      }
      deps.onWebhookQueued();
      return { status: 202, body: deliveryBody(outcome) };
    },
  };
}
