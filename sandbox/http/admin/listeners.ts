// The listener operations (`npm run sandbox -- listen`), called with a merchant's own credentials:
// register a listener, poll it for the scope's deliveries, answer one, remove the listener.
import type { components } from '../../../generated/admin/types.js';
import { LISTENER_LIMITS } from '../../app/listeners.js';
import type { Reply } from '../pipeline.js';
import { deliveryBody } from './deliveries.js';
import { merchantOf, noDelivery } from './replies.js';
import type { AdminDeps, AdminHandlersOf, AdminRequest } from './types.js';

type Schemas = components['schemas'];

const noListener = (r: Pick<AdminRequest, 'problem'>, id: string): Reply =>
  r.problem(404, {
    title: 'Not found.',
    detail: `No listener ${id} of this merchant: it was removed, or expired (it did not poll for a while). Register again.`,
  });

export function listenerHandlers(
  deps: AdminDeps,
): AdminHandlersOf<'createListener' | 'pollListener' | 'answerListenedDelivery' | 'deleteListener'> {
  const { listeners } = deps;
  return {
    async createListener(r) {
      const merchant = merchantOf(r);
      const scope = { merchantId: merchant.merchantId, environment: r.body?.environment ?? 'test' };
      const listener = await listeners.register(scope);
      if (listener === 'full')
        return r.problem(409, {
          title: 'Too many listeners.',
          detail: `Merchant ${merchant.merchantId} has ${LISTENER_LIMITS.perMerchant} listeners already: stop one, or wait until it expires.`,
          type: 'sandbox/too-many-listeners',
        });
      const body: Schemas['Listener'] = {
        id: listener.id,
        scope: listener.scope,
        expiresAt: listener.expiresAt.toISOString(),
        maxWaitSeconds: LISTENER_LIMITS.maxWaitSeconds,
        maxHeld: LISTENER_LIMITS.held,
      };
      return { status: 201, body };
    },

    async pollListener(r) {
      const merchant = merchantOf(r);
      const handed = await listeners.poll(merchant.merchantId, r.path.listenerId, {
        waitMs: (r.query.waitSeconds ?? LISTENER_LIMITS.maxWaitSeconds) * 1000,
        max: r.query.max ?? LISTENER_LIMITS.held,
        signal: r.signal,
      });
      if (handed === 'missing') return noListener(r, r.path.listenerId);
      if (handed === 'busy')
        return r.problem(409, {
          title: 'A poll is open already.',
          detail: 'This listener is waiting in another request: poll again once it has answered.',
          type: 'sandbox/poll-open',
        });
      const body: Schemas['ListenedDeliveryList'] = {
        data: handed.map(({ delivery, claim, headers, timeoutMs }) => ({
          id: delivery.id,
          payId: delivery.payId,
          url: delivery.url,
          attempt: delivery.attempts.length + 1,
          claim,
          timeoutMs,
          headers,
          body: delivery.body,
        })),
      };
      return { status: 200, body };
    },

    async answerListenedDelivery(r) {
      const merchant = merchantOf(r);
      const { claim, durationMs } = r.body;
      const answer =
        'statusCode' in r.body ? { statusCode: r.body.statusCode, durationMs } : { error: r.body.error, durationMs };
      const outcome = await listeners.answer(merchant.merchantId, r.path.listenerId, r.path.deliveryId, claim, answer);
      if (outcome === 'missing') return noDelivery(r, r.path.deliveryId);
      if (outcome === 'stale')
        return r.problem(409, {
          title: 'The claim no longer holds the delivery.',
          detail: 'Its hold ran out and it was handed over again (or released): its answer is not recorded.',
          type: 'sandbox/claim-lost',
        });
      if (outcome.status === 'PENDING') deps.onWebhookQueued();
      return { status: 200, body: deliveryBody(outcome) };
    },

    async deleteListener(r) {
      const merchant = merchantOf(r);
      return (await listeners.remove(merchant.merchantId, r.path.listenerId))
        ? { status: 204 }
        : noListener(r, r.path.listenerId);
    },
  };
}
