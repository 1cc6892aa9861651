// The test clocks' interface, as the admin API and the CLI see them (implemented in clock.ts).
import type { Scope } from '../domain/types.js';

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
  /** DELAYED payments captured because their `captureAt` passed. */
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
   * plan billings; pending webhook retries of the scope become due. One transaction.
   */
  advance(scope: Scope, to: Date | { byMs: number }): Promise<ClockAdvance>;
  /** Sets the scope's clock back to the wall clock (after its data was reset). */
  reset(scope: Scope): Promise<void>;
}
