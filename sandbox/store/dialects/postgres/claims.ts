// PostgreSQL's Idempotency-Key claims: several processes share the database, so a claim is a row,
// written in a transaction of its own before the work starts, that every process sees; it holds for
// a lease, which another request takes over when the request that held it died.
//
// The claim's commit is asynchronous (it does not wait for its WAL to reach the disk), which loses
// nothing: the work's commit, which is synchronous, flushes the WAL up to itself, the claim
// included, before the response goes out; and a claim lost with a crashed PostgreSQL belonged to a
// request that could not commit, so was never answered.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DialectIdempotency } from '../../dialect.js';
import { PLACEHOLDER_SCOPE, placeholders, scoped } from '../../query.js';
import { addMs, claimFields, type IdempotencyFields, idempotencyRow, storedResponse } from '../../rows.js';
import type { Database } from '../../schema.js';
import { type ClaimRequest, type ClaimResult, StaleWriteError } from '../../store.js';
import type { GroupCommit } from './group-commit.js';
import type { PostgresTransactions } from './transactions.js';

/** The claim's insert and the completion's update, compiled once (prepared statements, see connection.ts). */
function claimStatements(db: Kysely<Database>, transactions: PostgresTransactions) {
  const sample = idempotencyRow(PLACEHOLDER_SCOPE, '', {} as IdempotencyFields);
  const insert = db
    .insertInto('idempotency_keys')
    .values(placeholders(sample))
    .onConflict((oc) => oc.columns(['merchant_id', 'environment', 'idempotency_key']).doNothing())
    .compile().sql;
  // Fails (a division by zero) when the key is no longer this request's: the transaction aborts
  // in PostgreSQL, and its commit, sent with it without waiting for its answer, rolls back.
  // Values: state, status, headers, body; merchant, environment, key, token, the state it leaves.
  const complete = db
    .with('completed', (w) =>
      scoped(
        w
          .updateTable('idempotency_keys')
          .set({ state: '', response_status: 0, response_headers: '', response_body: '' }),
        PLACEHOLDER_SCOPE,
      )
        .where('idempotency_key', '=', '')
        .where('token', '=', '')
        .where('state', '=', '')
        .returning('token'),
    )
    .selectFrom('completed')
    .select(sql<number>`1 / count(*)`.as('completed'))
    .compile().sql;
  transactions.statements.add(insert);
  transactions.statements.add(complete);
  return { insert, complete };
}

const DIVISION_BY_ZERO = '22012';

export function leasedClaims(
  db: Kysely<Database>,
  transactions: PostgresTransactions,
  group: GroupCommit,
): DialectIdempotency {
  const hot = claimStatements(db, transactions);
  const keyOf = (request: { scope: ClaimRequest['scope']; key: string }) =>
    scoped(db.updateTable('idempotency_keys'), request.scope).where('idempotency_key', '=', request.key);

  /** Inserts the claim unless the key has a row; true when it did. With the claims of the same moment: begin, inserts, commit. */
  async function inserted(row: ReturnType<typeof idempotencyRow>): Promise<boolean> {
    // The answer, not awaited in the work: the commit goes out with the insert.
    const sent = await group.submit(async (_tx, statements) => ({
      answer: statements.send(hot.insert, Object.values(row)),
    }));
    return (await sent.answer)?.rowCount === 1;
  }

  /**
   * Claims the key. The row read may change before it is taken: released or deleted by housekeeping
   * (then the key is free: claimed anew), or taken by a racing request (then it is that one's). A
   * take that finds the row changed looks again, a few times, rather than answer from what it read.
   */
  async function claim(request: ClaimRequest, looks = 3): Promise<ClaimResult> {
    const { scope, key, now } = request;
    const fresh = () => claimFields(request, randomUUID());
    const claimed = fresh();
    if (await inserted(idempotencyRow(scope, key, claimed))) return { outcome: 'claimed', token: claimed.token };

    const row = await scoped(db.selectFrom('idempotency_keys').selectAll(), scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    const again = (): Promise<ClaimResult> =>
      looks > 1 ? claim(request, looks - 1) : Promise.resolve({ outcome: 'conflict', reason: 'in_progress' });
    if (!row) return again(); // released or deleted meanwhile
    if (row.expires_at <= now) {
      // Past its retention: the key is new again. Only one of several racing requests wins.
      const renewed = fresh();
      const taken = await keyOf(request).set(renewed).where('token', '=', row.token).executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? { outcome: 'claimed', token: renewed.token } : again();
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
    return Number(taken.numUpdatedRows) === 1 ? { outcome: 'claimed', token } : again();
  }

  return {
    claim: (request) => claim(request),
    async release({ scope, key, token }) {
      await scoped(db.deleteFrom('idempotency_keys'), scope)
        .where('idempotency_key', '=', key)
        .where('token', '=', token)
        .where('state', '=', 'in_flight')
        .execute();
    },
    async complete(tx, { scope, key, token, response }) {
      const values = [
        'done',
        response.status,
        JSON.stringify(response.headers),
        response.body,
        scope.merchantId,
        scope.environment,
        key,
        token,
        'in_flight',
      ];
      const errorOf = (error: unknown) =>
        (error as { code?: string }).code === DIVISION_BY_ZERO
          ? new StaleWriteError(`Idempotency-Key ${key} (another request took it over)`)
          : error;
      const statements = transactions.statementsOf(tx);
      if (statements) void statements.send(hot.complete, values, errorOf);
      else await transactions.query(hot.complete, values).catch((error: unknown) => Promise.reject(errorOf(error)));
    },
  };
}
