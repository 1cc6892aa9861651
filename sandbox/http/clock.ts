// The test clocks: one per scope (a merchant's test root, its live root), the wall clock plus an
// offset kept in the store. Advancing one runs what falls due in between, in order, each item at its
// own due time, in one transaction: DELAYED captures, plan billings (each a plan payment with its
// notification), and the scope's pending webhook retries become due. Time passing on the wall clock
// does the same through a ticker, so a DELAYED capture also happens when its hours really pass.
import { billingDueAt, captureDelayed, captureDueAt, clockTime, completedPlan, earliest, expiresBeforeBilling, scheduledCharge } from '../domain/clock.js';
import { capturable } from '../domain/payments.js';
import type { Merchant, Payment, PaymentPlan, Scope } from '../domain/types.js';
import type { Store, StoreTransaction } from '../store/store.js';
import { ClockError, type ClockAdvance, type Clocks, type ClockState } from './clock-types.js';
import { chargeAndRecord, internalContext, persist, queueNotification } from './handlers/shared.js';
import { domainContextAt } from './domain-context.js';
import type { PipelineDeps } from './pipeline.js';

export { ClockError, type ClockAdvance, type Clocks, type ClockState } from './clock-types.js';

/** More due items than this in one advance is a runaway (a daily plan over 27 years), not a test. */
const MAX_ITEMS_PER_RUN = 10_000;

export interface ClockDeps extends Pick<PipelineDeps, 'contract' | 'publicUrl' | 'fingerprint'> {
  store: Store;
  /** The wall clock (tests may pin it). */
  wall?: () => Date;
  /** Called after a commit that queued webhook deliveries or made retries due. */
  onWebhookQueued?: () => void;
  log?: (line: string) => void;
}

export interface RunningClocks extends Clocks {
  /** Re-reads the offsets (another process on the database may have advanced a clock). */
  refresh(): Promise<void>;
  /** Runs what the wall clock's passing made due, in every scope; returns how many items ran. */
  runDue(): Promise<number>;
  /** Runs refresh() and runDue() every `tickMs` until stop(). */
  start(tickMs?: number): void;
  stop(): Promise<void>;
}

const keyOf = (scope: Scope) => `${scope.environment}\u0000${scope.merchantId}`;

type DueItem = { due: string; payment: Payment } | { due: string; plan: PaymentPlan };

export async function createClocks(deps: ClockDeps): Promise<RunningClocks> {
  const { store, contract } = deps;
  const wall = deps.wall ?? (() => new Date());
  const offsets = new Map<string, number>();
  const now = (scope: Scope) => clockTime(wall(), offsets.get(keyOf(scope)) ?? 0);

  async function refresh(): Promise<void> {
    const clocks = await store.clocks();
    offsets.clear();
    for (const c of clocks) offsets.set(keyOf(c.scope), c.offsetMs);
  }

  /** Runs the scope's items due by `until`, earliest first, each at its due time; fills `result`. */
  async function runDueWork(tx: StoreTransaction, merchant: Merchant, scope: Scope, until: Date, result: Pick<ClockAdvance, 'captured' | 'billed'>): Promise<boolean> {
    const bound = until.toISOString();
    let notified = false;
    for (let n = 0; ; n++) {
      if (n === MAX_ITEMS_PER_RUN) throw new ClockError(`more than ${MAX_ITEMS_PER_RUN} captures and billings fall due by ${bound}: advance in smaller steps`);
      const [capture] = await tx.payments.dueCaptures(bound, 1, scope);
      const [billing] = await tx.plans.dueBillings(bound, 1, scope);
      const next = earliest<DueItem>([capture && { due: captureDueAt(capture)!, payment: capture }, billing && { due: billingDueAt(billing)!, plan: billing }]);
      if (!next) return notified;
      const at = new Date(next.due);
      const domain = domainContextAt(at, contract.tables);

      if ('payment' in next) {
        const amount = { value: capturable(next.payment), currency: next.payment.currency };
        const decision = captureDelayed(next.payment, domain);
        await persist(tx, decision, 'update');
        if (decision.outcome === 'ok') result.captured.push({ payId: decision.payment.payId, at: next.due, amount });
        const url = decision.payment.details.urls?.webhook;
        if (url) {
          await queueNotification(tx, merchant, decision.payment, url, at);
          notified = true;
        }
        continue;
      }

      if (expiresBeforeBilling(next.plan)) {
        await tx.plans.update(completedPlan(next.plan));
        continue;
      }
      const ctx = internalContext(deps, merchant, scope, domain, 'chargePaymentPlan', `/payment-plans/${next.plan.id}/charge`);
      const charge = await chargeAndRecord(ctx, tx, next.plan, scheduledCharge(next.plan, next.due));
      if (charge.outcome === 'rejected') {
        // E.g. the merchant took the billing's transId: the plan waits for a retry rather than loop.
        await tx.plans.update({ ...next.plan, status: 'RETRY', version: next.plan.version + 1 });
        deps.log?.(`clock: billing of plan ${next.plan.id} at ${next.due} was rejected (${charge.reply.status}); the plan is RETRY`);
        continue;
      }
      const payment = charge.decision.payment;
      result.billed.push({ paymentPlanId: next.plan.id, payId: payment.payId, at: next.due, status: payment.state });
      const initial = await tx.payments.get(scope, next.plan.initialPayId);
      const url = initial?.details.urls?.webhook;
      if (url) {
        await queueNotification(tx, merchant, payment, url, at);
        notified = true;
      }
    }
  }

  const merchantOf = async (scope: Scope) => {
    const merchant = await store.merchants.get(scope.merchantId);
    if (!merchant) throw new ClockError(`no merchant ${scope.merchantId}`);
    return merchant;
  };

  const clocks: RunningClocks = {
    now,

    async get(scope): Promise<ClockState> {
      const offsetMs = await store.transaction((tx) => tx.clocks.get(scope));
      offsets.set(keyOf(scope), offsetMs);
      return { scope, now: clockTime(wall(), offsetMs), offsetMs };
    },

    async advance(scope, target) {
      const merchant = await merchantOf(scope);
      let notified = false;
      const result = await store.transaction(async (tx): Promise<ClockAdvance> => {
        const offset = await tx.clocks.get(scope, { lock: true });
        const wallNow = wall();
        const from = clockTime(wallNow, offset);
        // A duration counts from this reading, so that "2 hours" is exactly 2 hours.
        const to = target instanceof Date ? target : new Date(from.getTime() + target.byMs);
        if (to.getTime() < from.getTime()) throw new ClockError(`the clock is at ${from.toISOString()}; it cannot go back to ${to.toISOString()}`);
        const done: Pick<ClockAdvance, 'captured' | 'billed'> = { captured: [], billed: [] };
        notified = await runDueWork(tx, merchant, scope, to, done);
        const offsetMs = to.getTime() - wallNow.getTime();
        await tx.clocks.set(scope, offsetMs);
        const webhooksDue = await tx.webhooks.bringForward(scope, to.getTime() - from.getTime(), wallNow.toISOString());
        return { clock: { scope, now: to, offsetMs }, from, ...done, webhooksDue };
      });
      offsets.set(keyOf(scope), result.clock.offsetMs);
      if (notified || result.webhooksDue > 0) deps.onWebhookQueued?.();
      return result;
    },

    async reset(scope) {
      await store.transaction((tx) => tx.clocks.set(scope, 0));
      offsets.delete(keyOf(scope));
    },

    refresh,

    async runDue() {
      // Every scope's due items up to the furthest clock; each scope then runs up to its own time.
      const horizon = new Date(wall().getTime() + Math.max(0, ...offsets.values())).toISOString();
      const [payments, plans] = await store.transaction((tx) => Promise.all([tx.payments.dueCaptures(horizon, 100), tx.plans.dueBillings(horizon, 100)]));
      const due = new Map<string, Scope>();
      for (const item of [...payments.map((p) => ({ scope: p.scope, at: captureDueAt(p)! })), ...plans.map((p) => ({ scope: p.scope, at: billingDueAt(p)! }))]) {
        if (item.at <= now(item.scope).toISOString()) due.set(keyOf(item.scope), item.scope);
      }
      let ran = 0;
      for (const scope of due.values()) {
        const merchant = await store.merchants.get(scope.merchantId);
        if (!merchant) continue;
        const done: Pick<ClockAdvance, 'captured' | 'billed'> = { captured: [], billed: [] };
        const notified = await store.transaction(async (tx) => {
          // Locked: two processes on one PostgreSQL never run a scope's due items twice.
          const offset = await tx.clocks.get(scope, { lock: true });
          return runDueWork(tx, merchant, scope, clockTime(wall(), offset), done);
        });
        ran += done.captured.length + done.billed.length;
        if (notified) deps.onWebhookQueued?.();
      }
      return ran;
    },

    start(tickMs = 1_000) {
      if (ticking) return;
      const tick = async () => {
        try {
          await refresh();
          await clocks.runDue();
        } catch (err) {
          deps.log?.(`clock: ${(err as Error).message}`);
        }
        if (ticking) timer = setTimeout(() => (running = tick()), tickMs);
      };
      ticking = true;
      timer = setTimeout(() => (running = tick()), tickMs);
    },

    async stop() {
      ticking = false;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
  let ticking = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  await refresh();
  return clocks;
}
