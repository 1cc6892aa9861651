// GET's read path on SQLite: the payment documents last read, by payId and by transId, so that a
// polled payment costs a Map lookup instead of a query. Sound because one sandbox process owns a
// SQLite file (its in-process idempotency claims assume it too): every write passes through this
// process, and a transaction that wrote payments drops their entries once it has ended (committed or
// rolled back). A read that overlapped such a write does not fill the cache (the generation moved).
// PostgreSQL, shared by several processes, has no such cache.
import type { Payment, Scope } from '../../../domain/types.js';

/** Documents kept at most (about 1 kB each); past it the cache starts over. */
export const DOCUMENT_CACHE_LIMIT = 4_096;

export type DocumentKey = string;
export const byPayId = (scope: Scope, payId: string): DocumentKey =>
  `p\u0000${scope.merchantId}\u0000${scope.environment}\u0000${payId}`;
export const byTransId = (scope: Scope, transId: string): DocumentKey =>
  `t\u0000${scope.merchantId}\u0000${scope.environment}\u0000${transId}`;

/** What one transaction wrote: its payments, or everything (a reset). */
export class WrittenPayments {
  readonly keys: DocumentKey[] = [];
  all = false;
  payment(payment: Pick<Payment, 'scope' | 'payId' | 'transId'>): void {
    this.keys.push(byPayId(payment.scope, payment.payId), byTransId(payment.scope, payment.transId));
  }
}

export class DocumentCache {
  readonly #entries = new Map<DocumentKey, string>();
  #generation = 0;

  constructor(private readonly limit = DOCUMENT_CACHE_LIMIT) {}

  async read(key: DocumentKey, load: () => Promise<string | undefined>): Promise<string | undefined> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.#generation;
    const document = await load();
    if (document !== undefined && generation === this.#generation) {
      if (this.#entries.size >= this.limit) this.#entries.clear();
      this.#entries.set(key, document);
    }
    return document;
  }

  /**
   * Called when a transaction that wrote `written` has ended. It empties `written`: the transactions
   * of one group-commit batch share it, and each of them calls this once the batch has committed.
   */
  forget(written: WrittenPayments): void {
    if (!written.all && written.keys.length === 0) return;
    this.#generation++;
    if (written.all) this.#entries.clear();
    else for (const key of written.keys) this.#entries.delete(key);
    written.all = false;
    written.keys.length = 0;
  }

  get size(): number {
    return this.#entries.size;
  }
}
