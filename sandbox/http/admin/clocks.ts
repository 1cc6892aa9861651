// The admin operations on a scope's test clock: show it, advance it.
import type { components } from '../../../generated/admin/types.js';
import { merchantScope } from '../../app/admin.js';
import { ClockError } from '../../app/clock.js';
import { isRejection } from '../../app/outcomes.js';
import { rejectionReply } from './replies.js';
import type { AdminDeps, AdminHandlersOf } from './types.js';

type Schemas = components['schemas'];

export function clockHandlers({ store, clocks }: AdminDeps): AdminHandlersOf<'getClock' | 'advanceClock'> {
  return {
    async getClock(r) {
      const scope = await merchantScope(store, r.path.merchantId, r.path.environment);
      if (isRejection(scope)) return rejectionReply(r, scope);
      const state = await clocks.get(scope);
      const body: Schemas['ClockState'] = { scope, now: state.now.toISOString(), offsetMs: state.offsetMs };
      return { status: 200, body };
    },

    async advanceClock(r) {
      const scope = await merchantScope(store, r.path.merchantId, r.path.environment);
      if (isRejection(scope)) return rejectionReply(r, scope);
      const request = r.body;
      const to = 'seconds' in request ? { byMs: request.seconds * 1000 } : new Date(request.to);
      try {
        const result = await clocks.advance(scope, to);
        const body: Schemas['ClockAdvance'] = {
          clock: { scope, now: result.clock.now.toISOString(), offsetMs: result.clock.offsetMs },
          from: result.from.toISOString(),
          captured: result.captured,
          billed: result.billed,
          webhooksDue: result.webhooksDue,
        };
        return { status: 200, body };
      } catch (err) {
        if (err instanceof ClockError)
          return r.problem(409, {
            title: 'The clock cannot do that.',
            detail: err.message,
            type: 'sandbox/clock-conflict',
          });
        throw err;
      }
    },
  };
}
