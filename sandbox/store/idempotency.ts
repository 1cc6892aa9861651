// The Idempotency-Key part of the store's interface (store.ts re-exports it): a key is claimed
// before the work starts, and its response recorded in the work's transaction.
import type { Scope, Timestamp } from '../domain/types.js';

/** A response as it was sent, to be replayed byte for byte. */
export interface StoredResponse {
  status: number;
  /** The contract-declared headers that were sent (content-type included). */
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyKeyRef {
  scope: Scope;
  key: string;
}

export interface ClaimRequest extends IdempotencyKeyRef {
  operationId: string;
  /** Hash of the operation and the request (path parameters and canonical body). */
  requestHash: string;
  now: Timestamp;
  /** How long the claim holds before another request may take it over (a crashed request's claim). */
  leaseMs: number;
  /** How long a completed key is kept (24 h). */
  retentionMs: number;
}

export type ClaimResult =
  /** The key is this request's: do the work, then complete() in the work's transaction. */
  | { outcome: 'claimed'; token: string }
  /** The key was used with the same request, which has completed: send its response again. */
  | { outcome: 'replay'; response: StoredResponse }
  /** Another request holds the key (still in progress), or the key was used with a different request. */
  | { outcome: 'conflict'; reason: 'in_progress' | 'different_request' };

export interface IdempotencyStore {
  /**
   * Claims the key before the work starts. PostgreSQL: in a transaction of its own, so that every
   * process sees the claim (a lease, taken over when its request died). SQLite, which one process
   * owns: in that process (a request in flight is known there), with the database only read; the
   * completed key is written by complete(), in the work's transaction.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Gives a claimed key up (the work failed without a response worth keeping, e.g. a 500). */
  release(ref: IdempotencyKeyRef & { token: string }): Promise<void>;
  /**
   * Deletes keys past their retention at `now` (of one scope, on its clock; else of all); returns
   * how many. A key whose request is still in flight, its lease holding at `wallNow` (the wall
   * clock, default `now`), stays: its request completes it (or gives it up).
   */
  purgeExpired(now: Timestamp, scope?: Scope, wallNow?: Timestamp): Promise<number>;
}
