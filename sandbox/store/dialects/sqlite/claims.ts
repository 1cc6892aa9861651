// SQLite's Idempotency-Key claims: one process owns the database, so a request in flight is known
// in that process, and nothing is written before the work commits; the completed key is written by
// complete(), in the work's transaction.
import type { Kysely } from 'kysely';
import type { Scope } from '../../../domain/types.js';
import type { DialectIdempotency, Precompiled, StoreDialect } from '../../dialect.js';
import { PLACEHOLDER_SCOPE, placeholders, scoped } from '../../query.js';
import { claimFields, type IdempotencyFields, idempotencyRow, storedResponse } from '../../rows.js';
import type { Database } from '../../schema.js';
import { StaleWriteError } from '../../store.js';

/** The keys in flight in this process. */
class InFlightKeys {
  private readonly inFlight = new Map<string, string>();
  readonly pending = new Map<string, IdempotencyFields>();
  get(k: string) {
    return this.inFlight.get(k);
  }
  /** Claims synchronously (no await between the check and the set): true when it was free. */
  take(k: string, token: string, fields: IdempotencyFields): boolean {
    if (this.inFlight.has(k)) return false;
    this.inFlight.set(k, token);
    this.pending.set(token, fields);
    return true;
  }
  delete(k: string, token: string) {
    if (this.inFlight.get(k) === token) this.inFlight.delete(k);
    this.pending.delete(token);
  }
}

const claimKey = (scope: Scope, key: string) => `${scope.merchantId}\u0000${scope.environment}\u0000${key}`;

/** The claims, on the key's row as the reader sees it and statements compiled once. */
export function inProcessClaims(
  db: Kysely<Database>,
  reader: Kysely<Database>,
  precompile: StoreDialect['precompile'],
): DialectIdempotency {
  const claims = new InFlightKeys();
  const sampleClaim = idempotencyRow(PLACEHOLDER_SCOPE, '', {
    operation_id: '',
    request_hash: '',
    state: '',
    token: '',
    locked_until: '',
    expires_at: '',
    response_status: null,
    response_headers: null,
    response_body: null,
  });
  const { merchant_id: _m, environment: _e, idempotency_key: _k, ...claimUpdate } = sampleClaim;
  const fromExcluded = Object.keys(claimUpdate) as Array<keyof typeof claimUpdate>;
  const keyRow: Precompiled<Database['idempotency_keys']> = precompile(
    scoped(db.selectFrom('idempotency_keys').selectAll(), PLACEHOLDER_SCOPE).where('idempotency_key', '=', ''),
  );
  /** Insert, or replace a key past its retention (SQLite writes a completed key at once). */
  const upsert = precompile(
    db
      .insertInto('idempotency_keys')
      .values(placeholders(sampleClaim))
      .onConflict((oc) =>
        oc
          .columns(['merchant_id', 'environment', 'idempotency_key'])
          .doUpdateSet((eb) => Object.fromEntries(fromExcluded.map((c) => [c, eb.ref(`excluded.${c}`)]))),
      ),
  );
  return {
    /** In flight in this process, or completed in the database (read only). */
    async claim(request) {
      const { scope, key, now } = request;
      const token = globalThis.crypto.randomUUID();
      const fields = claimFields(request, token);
      const k = claimKey(scope, key);
      if (!claims.take(k, token, fields)) return { outcome: 'conflict', reason: 'in_progress' };
      const row = (await keyRow(reader, [scope.merchantId, scope.environment, key])).rows[0];
      if (!row || row.expires_at <= now) return { outcome: 'claimed', token };
      claims.delete(k, token);
      if (row.operation_id !== request.operationId || row.request_hash !== request.requestHash)
        return { outcome: 'conflict', reason: 'different_request' };
      return { outcome: 'replay', response: storedResponse(row) };
    },
    async release({ scope, key, token }) {
      claims.delete(claimKey(scope, key), token);
    },
    async complete(db, { scope, key, token, response, now }) {
      if (claims.get(claimKey(scope, key)) !== token)
        throw new StaleWriteError(`Idempotency-Key ${key} (not claimed by this request)`);
      const claim = claims.pending.get(token)!;
      const row = idempotencyRow(scope, key, {
        ...claim,
        state: 'done',
        token,
        locked_until: now,
        response_status: response.status,
        response_headers: JSON.stringify(response.headers),
        response_body: response.body,
      });
      await upsert(db, Object.values(row));
      claims.delete(claimKey(scope, key), token);
    },
  };
}
