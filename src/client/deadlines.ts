// Deadlines of calls in flight: one sweep over them every DEADLINE_SWEEP_MS instead of a timer per
// call: setting and clearing a timer on every call was a measurable part of a local call in Node.

/** How late a timeout may fire: the period of the deadline sweep. */
export const DEADLINE_SWEEP_MS = 25;

export class DeadlineSweeper<Call extends { readonly deadline: number }> {
  readonly #calls = new Set<Call>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /** `expire`: a watched call whose deadline has passed (it is no longer watched). */
  constructor(private readonly expire: (call: Call) => void) {}

  watch(call: Call): void {
    this.#calls.add(call);
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => this.#sweep(), DEADLINE_SWEEP_MS);
    // Node: the sweeper alone must not keep a process alive (a request in flight does). Browsers have no unref.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  /** A call that settled before its deadline. */
  forget(call: Call): void {
    this.#calls.delete(call);
  }

  #sweep(): void {
    if (this.#calls.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
      return;
    }
    const now = performance.now();
    for (const call of this.#calls) if (now >= call.deadline) this.expire(call);
  }
}
