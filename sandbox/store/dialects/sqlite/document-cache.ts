// GET's read path on SQLite: the payment documents last read, by payId and by transId, so that a
// polled payment costs a Map lookup instead of a query. Sound because one sandbox process owns a
// SQLite file (its in-process idempotency claims assume it too): every write passes through this
// process, and a transaction that wrote payments drops their entries once it has ended (committed or
// rolled back). A read that overlapped such a write does not fill the cache (the generation moved).
// PostgreSQL, shared by several processes, has no such cache.
import type { Payment, Scope } from '../../../domain/types.js';

/** Documents kept at most (most are about 1 kB); past it the cache starts over. */
export const DOCUMENT_CACHE_LIMIT = 4_096;

/**
 * Bytes of documents (and their keys) kept at most, counted at two bytes a character (V8's widest
 * strings): a document may be about as large as a request body (1 MiB), so a count of entries alone
 * does not bound the memory. Past it the cache starts over.
 */
export const DOCUMENT_CACHE_BYTES = 16 * 1024 * 1024;

/** A document larger than this share of the byte bound is answered but not kept: one must not flush the rest. */
const LARGEST_SHARE = 16;

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

const bytesOf = (key: DocumentKey, document: string) => 2 * (key.length + document.length);

export class DocumentCache {
  readonly #entries = new Map<DocumentKey, string>();
  #generation = 0;
  #bytes = 0;

  constructor(
    private readonly limit = DOCUMENT_CACHE_LIMIT,
    private readonly byteLimit = DOCUMENT_CACHE_BYTES,
  ) {}

  async read(key: DocumentKey, load: () => Promise<string | undefined>): Promise<string | undefined> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.#generation;
    const document = await load();
    if (document !== undefined && generation === this.#generation) {
      const bytes = bytesOf(key, document);
      if (bytes > this.byteLimit / LARGEST_SHARE) return document;
      if (this.#entries.size >= this.limit || this.#bytes + bytes > this.byteLimit) this.clear();
      this.#entries.set(key, document);
      this.#bytes += bytes;
    }
    return document;
  }

  private clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  private delete(key: DocumentKey): void {
    const document = this.#entries.get(key);
    if (document === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= bytesOf(key, document);
  }

  /**
   * Called when a transaction that wrote `written` has ended. It empties `written`: the transactions
   * of one group-commit batch share it, and each of them calls this once the batch has committed.
   */
  forget(written: WrittenPayments): void {
    if (!written.all && written.keys.length === 0) return;
    this.#generation++;
    if (written.all) this.clear();
    else for (const key of written.keys) this.delete(key);
    written.all = false;
    written.keys.length = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes the kept documents and keys count for (two a character). */
  get bytes(): number {
    return this.#bytes;
  }
}
