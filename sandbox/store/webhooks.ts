// The webhook parts of the store's interface (store.ts re-exports them): the outbox as the
// deliverer and the listeners take from it, the listeners' registry, and what housekeeping deletes.
import type { Environment, Scope, Timestamp, WebhookDelivery } from '../domain/types.js';

/** What the deliverer asks for: due deliveries, fairly across merchants. */
export interface DueClaim {
  /**
   * Marks what this claim holds (the deliverer's own, never a listener's `<listenerId>.…`): the
   * attempts' results must present it (WebhookOutbox.record).
   */
  token: string;
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
   * Takes PENDING deliveries due at `now` that no process or listener holds, of scopes without a
   * connected listener, and holds them until `lockedUntil`: two processes on one database never take
   * the same one (PostgreSQL: SKIP LOCKED). Round-robin over merchants: the first due delivery of
   * each merchant comes before any merchant's second, and a merchant that holds fewer comes first;
   * none takes more than `perMerchant` in all.
   */
  claimDue(claim: DueClaim): Promise<WebhookDelivery[]>;
  /**
   * Stores a delivery after an attempt made under the claim `token`, and releases its hold; false
   * (nothing written) when the claim no longer holds it: its hold ran out and another claim took it
   * (whose result stands), or it is gone. So a claim that outlived its hold never overwrites a newer
   * claim's result, nor ends a delivery that another claim holds (which housekeeping could then delete).
   */
  record(delivery: WebhookDelivery, token: string): Promise<boolean>;
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

/** A listener's claim of its scope's due deliveries. */
export interface ListenerClaim {
  scope: Scope;
  listenerId: string;
  /** Marks what this claim holds (`<listenerId>.<random>`): its results must present it. */
  token: string;
  now: Timestamp;
  lockedUntil: Timestamp;
  /** At most this many… */
  limit: number;
  /** …and no more than this many held by the listener in all (claimed, not yet answered). */
  maxHeld: number;
}

/** The merchants' connected `listen` clients. */
export interface WebhookListeners {
  /** Registers a listener unless its merchant has `maxPerMerchant` alive at `now` already (serialized per merchant). */
  register(
    listener: { scope: Scope; id: string; now: Timestamp; expiresAt: Timestamp },
    maxPerMerchant: number,
  ): Promise<'registered' | 'full'>;
  /** Keeps the merchant's listener alive until `expiresAt`: its scope; undefined when it is gone (expired at `now`, or removed). */
  touch(merchantId: string, id: string, now: Timestamp, expiresAt: Timestamp): Promise<Scope | undefined>;
  /** Removes the merchant's listener and releases what it holds (due at once, for the URL or another listener); false when there was none. */
  remove(merchantId: string, id: string): Promise<boolean>;
  /**
   * Takes the scope's due deliveries for the listener (see ListenerClaim); undefined when the
   * listener is gone. It holds the listener's row meanwhile: a removal or housekeeping's delete
   * under way is waited for (then: gone), and one that comes after it releases what it took.
   */
  claim(claim: ListenerClaim): Promise<WebhookDelivery[] | undefined>;
  /** Lets the merchant's deliveries held under the claim `token` go (due again at once). */
  release(merchantId: string, token: string): Promise<void>;
}

/** What the housekeeping job deletes. */
export interface Housekeeping {
  /** Deletes deliveries in `status` that ended at or before `before`; returns how many. A PENDING one (held or not) is never deleted. */
  purgeDeliveries(status: 'DELIVERED' | 'DEAD', before: Timestamp): Promise<number>;
  /** Deletes listeners expired at `now`; returns how many. */
  purgeListeners(now: Timestamp): Promise<number>;
}
