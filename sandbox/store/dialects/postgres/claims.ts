// PostgreSQL's Idempotency-Key claims: several processes share the database, so a claim is a row,
// written in a transaction of its own before the work starts, that every process sees; it holds for
// a lease, which another request takes over when the request that held it died.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DialectIdempotency } from '../../dialect.js';
import { scoped } from '../../query.js';
import { addMs, claimFields, idempotencyRow, storedResponse } from '../../rows.js';
import type { Database } from '../../schema.js';
import { type ClaimRequest, type ClaimResult, StaleWriteError } from '../../store.js';

export function leasedClaims(db: Kysely<Database>): DialectIdempotency {
  const keyOf = (request: { scope: ClaimRequest['scope']; key: string }) =>
    scoped(db.updateTable('idempotency_keys'), request.scope).where('idempotency_key', '=', request.key);

  async function claim(request: ClaimRequest): Promise<ClaimResult> {
    const { scope, key, now } = request;
    const fresh = () => claimFields(request, randomUUID());
    const claimed = fresh();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values(idempotencyRow(scope, key, claimed))
      .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { outcome: 'claimed', token: claimed.token };

    const row = await scoped(db.selectFrom('idempotency_keys').selectAll(), scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!row) return claim(request); // released meanwhile: try again
    if (row.expires_at <= now) {
      // Past its retention: the key is new again. Only one of several racing requests wins.
      const renewed = fresh();
      const taken = await keyOf(request).set(renewed).where('token', '=', row.token).executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1
        ? { outcome: 'claimed', token: renewed.token }
        : { outcome: 'conflict', reason: 'in_progress' };
    }
    if (row.operation_id !== request.operationId || row.request_hash !== request.requestHash)
      return { outcome: 'conflict', reason: 'different_request' };
    if (row.state === 'done') return { outcome: 'replay', response: storedResponse(row) };
    if (row.locked_until > now) return { outcome: 'conflict', reason: 'in_progress' };
    // The request that held it died (its lease ran out without a commit): take it over.
    const token = randomUUID();
    const taken = await keyOf(request)
      .set({ token, locked_until: addMs(now, request.leaseMs) })
      .where('token', '=', row.token)
      .where('state', '=', 'in_flight')
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1
      ? { outcome: 'claimed', token }
      : { outcome: 'conflict', reason: 'in_progress' };
  }

  return {
    claim,
    async release({ scope, key, token }) {
      await scoped(db.deleteFrom('idempotency_keys'), scope)
        .where('idempotency_key', '=', key)
        .where('token', '=', token)
        .where('state', '=', 'in_flight')
        .execute();
    },
    async complete(tx, { scope, key, token, response }) {
      const result = await scoped(
        tx.updateTable('idempotency_keys').set({
          state: 'done',
          response_status: response.status,
          response_headers: JSON.stringify(response.headers),
          response_body: response.body,
        }),
        scope,
      )
        .where('idempotency_key', '=', key)
        .where('token', '=', token)
        .where('state', '=', 'in_flight')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1)
        throw new StaleWriteError(`Idempotency-Key ${key} (another request took it over)`);
    },
  };
}
