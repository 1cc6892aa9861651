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
    async purgeExpired(now, scope) {
      const result = await dialect.runWrite((db) => {
        const expired = db.deleteFrom('idempotency_keys').where('expires_at', '<=', now);
        return (scope ? scoped(expired, scope) : expired).executeTakeFirst();
      });
      return Number(result.numDeletedRows);
    },
  };
}
