// The webhook parts of the store's interface (store.ts re-exports them): the outbox as the
// deliverer takes from it, and what housekeeping deletes.
import type { Environment, Scope, Timestamp, WebhookDelivery } from '../domain/types.js';

/** What the deliverer asks for: due deliveries, fairly across merchants. */
export interface DueClaim {
  now: Timestamp;
  /** The hold's end: a process that dies holding a delivery lets it go then. */
  lockedUntil: Timestamp;
  /** At most this many in all. */
  limit: number;
  /**
   * At most this many held at once per merchant, counting what every process holds: a merchant
   * whose endpoint hangs holds this many, and the others' deliveries are taken beside them.
   */
  perMerchant: number;
}

/** The deliverer's side of the outbox. */
export interface WebhookOutbox {
  /**
   * Takes PENDING deliveries due at `now` that no process holds, and holds them until
   * `lockedUntil`: two processes on one database never take
   * the same one (PostgreSQL: SKIP LOCKED). Round-robin over merchants: the first due delivery of
   * each merchant comes before any merchant's second, and a merchant that holds fewer comes first;
   * none takes more than `perMerchant` in all.
   */
  claimDue(claim: DueClaim): Promise<WebhookDelivery[]>;
  /** Stores a delivery after an attempt (or a resend) and releases its hold. */
  save(delivery: WebhookDelivery): Promise<void>;
  get(scope: Scope, id: string): Promise<WebhookDelivery | undefined>;
  /** A delivery by its id, whatever its scope. */
  find(id: string): Promise<WebhookDelivery | undefined>;
  /** Newest first; of one scope, or of every merchant; at most `limit`. */
  list(filter?: {
    scope?: Scope;
    merchantId?: string;
    environment?: Environment;
    payId?: string;
    status?: WebhookDelivery['status'];
    limit?: number;
  }): Promise<WebhookDelivery[]>;
}

/** What the housekeeping job deletes. */
export interface Housekeeping {
  /** Deletes deliveries in `status` that ended at or before `before`; returns how many. */
  purgeDeliveries(status: 'DELIVERED' | 'DEAD', before: Timestamp): Promise<number>;
}
