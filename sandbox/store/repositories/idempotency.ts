// Idempotency-Key: where a claim lives is the dialect's (in the SQLite process, or a lease in the
// PostgreSQL database); what outlives its retention is purged alike.
import type { StoreDialect } from '../dialect.js';
import { scoped } from '../query.js';
import type { IdempotencyStore, StoreTransaction } from '../store.js';
import type { Context } from './context.js';

export function idempotencyRepository({ db, dialect }: Context): StoreTransaction['idempotency'] {
  return { complete: (ref) => dialect.idempotency.complete(db, ref) };
}

export function idempotencyStore(dialect: StoreDialect): IdempotencyStore {
  return {
    claim: dialect.idempotency.claim,
    release: dialect.idempotency.release,
    async purgeExpired(now, scope, wallNow = now) {
      const result = await dialect.runWrite((db) => {
        // A key in flight whose lease holds is its request's: deleting it would fail that request's
        // completion. Its lease is on the wall clock or ahead of it (a scope's clock), so the wall
        // clock tells when it has surely run out.
        const expired = db
          .deleteFrom('idempotency_keys')
          .where('expires_at', '<=', now)
          .where((eb) => eb.or([eb('state', '=', 'done'), eb('locked_until', '<=', wallNow)]));
        return (scope ? scoped(expired, scope) : expired).executeTakeFirst();
      });
      return Number(result.numDeletedRows);
    },
  };
}
