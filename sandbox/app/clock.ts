// The test clocks: one per scope (a merchant's test root, its live root), the wall clock plus an
// offset kept in the store. Advancing one runs what falls due in between, in order, each item at its
// own due time, in one transaction: DELAYED captures, expiries of waiting payments, plan billings
// (each a plan payment with its notification), and the scope's pending webhook retries become due.
// Time passing on the wall clock does the same when the clock ticker (jobs/clock-ticker.ts) calls
// runDue().
//
// What the clock ran is the value of the transaction that ran it, never a list kept beside it: it
// exists only once that transaction has committed, and a transaction the store runs again (group
// commit) makes it afresh, so what the clock reports and what the database holds agree.
import type { ContractTables } from '../contract/contract.js';
import {
  billingDueAt,
  clockTime,
  completedPlan,
  earliest,
  expiresBeforeBilling,
  paymentDueAt,
  runDuePayment,
  scheduledCharge,
} from '../domain/clock.js';
import { capturable } from '../domain/payments.js';
import type { Merchant, Payment, PaymentPlan, Scope } from '../domain/types.js';
import type { Store, StoreTransaction } from '../store/store.js';
import { type AppContext, appContextAt } from './context.js';
import { queueNotification } from './notifications.js';
import { isRejection } from './outcomes.js';
import { persist } from './payments.js';
import { chargePlan } from './plans.js';

/** One scope's clock: the wall clock plus the time it was advanced by. */
export interface ClockState {
  scope: Scope;
  /** The scope's current time. */
  now: Date;
  /** How far the clock is ahead of the wall clock (never negative: a clock only goes forward). */
  offsetMs: number;
}

/** What advancing a clock did, in the order it happened. */
export interface ClockAdvance {
  clock: ClockState;
  /** The scope's time before the advance. */
  from: Date;
  /** DELAYED payments captured because their `captureAt` passed (an expiry is not a capture: it fails). */
  captured: Array<{ payId: string; at: string; amount: { value: number; currency: string } }>;
  /** Plan billings that fell due: each a plan payment (status: the payment's state). */
  billed: Array<{ paymentPlanId: string; payId: string; at: string; status: string }>;
  /** Pending webhook deliveries of the scope whose retry the advance made due. */
  webhooksDue: number;
}

/** A clock may not go back. */
export class ClockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClockError';
  }
}

export interface Clocks {
  /** The scope's time now (cached; other processes' advances are seen within a poll). */
  now(scope: Scope): Date;
  get(scope: Scope): Promise<ClockState>;
  /**
   * Moves the scope's clock to `to`, or by `byMs` from its time as the transaction reads it
   * (ClockError if `to` lies before the clock's time), running, in
   * order of their due times and each at its own time, the work that falls due: DELAYED captures,
   * expiries of waiting payments, plan billings; pending webhook retries of the scope become due.
   * One transaction.
   */
  advance(scope: Scope, to: Date | { byMs: number }): Promise<ClockAdvance>;
  /** Sets the scope's clock back to the wall clock (after its data was reset). */
  reset(scope: Scope): Promise<void>;
}

/** More due items than this in one advance is a runaway (a daily plan over 27 years), not a test. */
const MAX_ITEMS_PER_RUN = 10_000;

export interface ClockDeps {
  store: Store;
  tables: ContractTables;
  fingerprint(text: string): string;
  /** The wall clock (tests may pin it; `--now` freezes it at an instant, so time passes only by advancing). */
  wall?: () => Date;
  /** Called after a commit that queued webhook deliveries or made retries due. */
  onWebhookQueued?: () => void;
  log?: (line: string) => void;
}

/** What the due work of one scope ran, in one committed transaction. */
export interface ClockRun {
  scope: Scope;
  captured: ClockAdvance['captured'];
  billed: ClockAdvance['billed'];
}

export interface TestClocks extends Clocks {
  /** The sandbox's wall clock: what a clock never advanced shows (frozen with `--now`). */
  wall(): Date;
  /** Re-reads the offsets (another process on the database may have advanced a clock). */
  refresh(): Promise<void>;
  /**
   * Runs what the wall clock's passing made due, in every scope, a transaction each: what each
   * committed transaction ran. A scope whose transaction failed ran nothing (it is logged, and its
   * work is due again at the next call); the other scopes still run.
   */
  runDue(): Promise<ClockRun[]>;
}

const keyOf = (scope: Scope) => `${scope.environment}\u0000${scope.merchantId}`;

type DueItem = { due: string; payment: Payment } | { due: string; plan: PaymentPlan };

/** What runDueWork ran, and whether it queued notifications: the value of its transaction. */
interface DueWork extends Pick<ClockRun, 'captured' | 'billed'> {
  notified: boolean;
}

/** A DELAYED capture or an expiry that fell due (at the context's time): stored, and notified at the payment's URL. */
async function runPaymentDue(
  tx: StoreTransaction,
  ctx: AppContext,
  item: { due: string; payment: Payment },
  work: DueWork,
): Promise<void> {
  const amount = { value: capturable(item.payment), currency: item.payment.currency };
  const decision = runDuePayment(item.payment, ctx.domain);
  await persist(tx, decision, 'update');
  if (decision.outcome === 'ok') work.captured.push({ payId: decision.payment.payId, at: item.due, amount });
  const url = decision.payment.details.urls?.webhook;
  if (url) {
    await queueNotification(tx, ctx.merchant, decision.payment, url, ctx.domain.now);
    work.notified = true;
  }
}

/** A plan's billing that fell due: completed past its expiry, else charged and notified at its initial payment's URL. */
async function billPlanDue(
  tx: StoreTransaction,
  ctx: AppContext,
  item: { due: string; plan: PaymentPlan },
  work: DueWork,
  log: ClockDeps['log'],
): Promise<void> {
  const { plan, due } = item;
  if (expiresBeforeBilling(plan)) {
    await tx.plans.update(completedPlan(plan));
    return;
  }
  const charge = await chargePlan(ctx, tx, plan, scheduledCharge(plan, due));
  if (isRejection(charge)) {
    // E.g. the merchant took the billing's transId: the plan waits for a retry rather than loop.
    await tx.plans.update({ ...plan, status: 'RETRY', version: plan.version + 1 });
    log?.(`clock: billing of plan ${plan.id} at ${due} was rejected (${charge.rejected}); the plan is RETRY`);
    return;
  }
  const payment = charge.decision.payment;
  work.billed.push({ paymentPlanId: plan.id, payId: payment.payId, at: due, status: payment.state });
  const initial = await tx.payments.get(ctx.scope, plan.initialPayId);
  const url = initial?.details.urls?.webhook;
  if (url) {
    await queueNotification(tx, ctx.merchant, payment, url, ctx.domain.now);
    work.notified = true;
  }
}

/** Runs the scope's items due by `until` in `tx`, earliest first, each at its due time; returns what it ran. */
async function runDueWork(
  deps: ClockDeps,
  tx: StoreTransaction,
  merchant: Merchant,
  scope: Scope,
  until: Date,
): Promise<DueWork> {
  const bound = until.toISOString();
  const work: DueWork = { captured: [], billed: [], notified: false };
  for (let n = 0; ; n++) {
    if (n === MAX_ITEMS_PER_RUN)
      throw new ClockError(
        `more than ${MAX_ITEMS_PER_RUN} captures and billings fall due by ${bound}: advance in smaller steps`,
      );
    const [duePayment] = await tx.payments.duePayments(bound, 1, scope);
    const [billing] = await tx.plans.dueBillings(bound, 1, scope);
    const next = earliest<DueItem>([
      duePayment && { due: paymentDueAt(duePayment)!, payment: duePayment },
      billing && { due: billingDueAt(billing)!, plan: billing },
    ]);
    if (!next) return work;
    const ctx = appContextAt(new Date(next.due), merchant, scope, deps);
    if ('payment' in next) await runPaymentDue(tx, ctx, next, work);
    else await billPlanDue(tx, ctx, next, work, deps.log);
  }
}

/** The merchant of a scope whose clock runs, or ClockError. */
async function merchantOf(store: Store, scope: Scope): Promise<Merchant> {
  const merchant = await store.merchants.get(scope.merchantId);
  if (!merchant) throw new ClockError(`no merchant ${scope.merchantId}`);
  return merchant;
}

/** Clocks.advance, in one transaction that holds the scope's clock; with whether it queued notifications. */
async function advanceClock(
  deps: ClockDeps,
  wall: () => Date,
  scope: Scope,
  target: Date | { byMs: number },
): Promise<ClockAdvance & { notified: boolean }> {
  const merchant = await merchantOf(deps.store, scope);
  return deps.store.transaction(async (tx) => {
    const offset = await tx.clocks.get(scope, { lock: true });
    const wallNow = wall();
    const from = clockTime(wallNow, offset);
    // A duration counts from this reading, so that "2 hours" is exactly 2 hours.
    const to = target instanceof Date ? target : new Date(from.getTime() + target.byMs);
    if (to.getTime() < from.getTime())
      throw new ClockError(`the clock is at ${from.toISOString()}; it cannot go back to ${to.toISOString()}`);
    const { notified, ...ran } = await runDueWork(deps, tx, merchant, scope, to);
    const offsetMs = to.getTime() - wallNow.getTime();
    await tx.clocks.set(scope, offsetMs);
    const webhooksDue = await tx.webhooks.bringForward(scope, to.getTime() - from.getTime(), wallNow.toISOString());
    return { clock: { scope, now: to, offsetMs }, from, ...ran, webhooksDue, notified };
  });
}

/** The scopes with an item due at their own time: candidates up to the furthest clock, each kept if due on its clock. */
async function scopesDue(store: Store, horizon: Date, now: (scope: Scope) => Date): Promise<Scope[]> {
  const until = horizon.toISOString();
  const [payments, plans] = await store.transaction((tx) =>
    Promise.all([tx.payments.duePayments(until, 100), tx.plans.dueBillings(until, 100)]),
  );
  const due = new Map<string, Scope>();
  for (const item of [
    ...payments.map((p) => ({ scope: p.scope, at: paymentDueAt(p)! })),
    ...plans.map((p) => ({ scope: p.scope, at: billingDueAt(p)! })),
  ]) {
    if (item.at <= now(item.scope).toISOString()) due.set(keyOf(item.scope), item.scope);
  }
  return [...due.values()];
}

/** Runs one scope's due work at its clock's time: what its committed transaction ran. */
async function runScopeDue(deps: ClockDeps, wall: () => Date, scope: Scope): Promise<DueWork | undefined> {
  const merchant = await deps.store.merchants.get(scope.merchantId);
  if (!merchant) return undefined;
  return deps.store.transaction(async (tx) => {
    // Locked: two processes on one PostgreSQL never run a scope's due items twice.
    const offset = await tx.clocks.get(scope, { lock: true });
    return runDueWork(deps, tx, merchant, scope, clockTime(wall(), offset));
  });
}

export async function createClocks(deps: ClockDeps): Promise<TestClocks> {
  const { store } = deps;
  const wall = deps.wall ?? (() => new Date());
  const offsets = new Map<string, number>();
  const now = (scope: Scope) => clockTime(wall(), offsets.get(keyOf(scope)) ?? 0);

  async function refresh(): Promise<void> {
    const clocks = await store.clocks();
    offsets.clear();
    for (const c of clocks) offsets.set(keyOf(c.scope), c.offsetMs);
  }

  const clocks: TestClocks = {
    now,
    wall,

    async get(scope): Promise<ClockState> {
      const offsetMs = await store.transaction((tx) => tx.clocks.get(scope));
      offsets.set(keyOf(scope), offsetMs);
      return { scope, now: clockTime(wall(), offsetMs), offsetMs };
    },

    async advance(scope, target) {
      const { notified, ...result } = await advanceClock(deps, wall, scope, target);
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
      const horizon = new Date(wall().getTime() + Math.max(0, ...offsets.values()));
      const runs: ClockRun[] = [];
      for (const scope of await scopesDue(store, horizon, now)) {
        let work: DueWork | undefined;
        try {
          work = await runScopeDue(deps, wall, scope);
        } catch (error) {
          deps.log?.(
            `clock: the due work of ${scope.merchantId} (${scope.environment}) failed: ${(error as Error).message}`,
          );
          continue;
        }
        if (!work) continue;
        runs.push({ scope, captured: work.captured, billed: work.billed });
        if (work.notified) deps.onWebhookQueued?.();
      }
      return runs;
    },
  };

  await refresh();
  return clocks;
}
