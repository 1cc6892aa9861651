// The PostgreSQL store's own machinery (sandbox/store/dialects/postgres/), on a real PostgreSQL:
// transactions are pipelined (a write nobody reads goes out with the commit, and its error fails the
// transaction there, as a DuplicateKeyError for a unique key), each transaction commits or rolls
// back alone among concurrent ones, the claim's commit is asynchronous and the work's synchronous,
// and a young database gets the planner statistics that keep a payment's look-ups on their unique
// indexes.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment, PaymentOperation, Scope } from '../../sandbox/domain/types.js';
import { openPostgres } from '../../sandbox/store/dialects/postgres/open.js';
import { tablesWithoutStatistics } from '../../sandbox/store/dialects/postgres/statistics.js';
import { DuplicateKeyError, StaleWriteError, type Store } from '../../sandbox/store/store.js';
import { databases } from '../support/postgres.js';
import { sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();
let database: string;
const sandbox = sandboxPerSuite(async () => {
  database = await dbs.database('postgres');
  return database;
});
let store: Store;
let scope: Scope;
/** A payment made through the API, and its first operation, to copy under new ids. */
let model: { payment: Payment; operation: PaymentOperation };
let seq = 0;

beforeAll(async () => {
  store = sandbox().sandbox.store;
  scope = { merchantId: sandbox().merchant.merchantId, environment: 'test' };
  const created = await sandbox().call('POST', '/payments', {
    body: {
      transId: 'PG-MODEL',
      amount: { value: 2500, currency: 'EUR' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    },
  });
  expect(created.status).toBe(201);
  model = await store.transaction(async (tx) => ({
    payment: (await tx.payments.get(scope, created.body.payId))!,
    operation: (await tx.operations.listByPayment(scope, created.body.payId))[0]!,
  }));
});

/** A copy of the model payment under new ids (or the transId given), and its operation. */
function copy(transId = `PG-${process.pid}-${++seq}`): { payment: Payment; operation: PaymentOperation } {
  const payId = `pgtest${Date.now().toString(16)}${(++seq).toString(16).padStart(8, '0')}`;
  return {
    payment: { ...model.payment, payId, transId },
    operation: { ...model.operation, payId, xId: `x${payId}` },
  };
}

async function write(record: { payment: Payment; operation: PaymentOperation }, fail?: Error): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.payments.insert(record.payment, '{}');
    await tx.operations.insert(record.operation, 1);
    if (fail) throw fail;
  });
}

const stored = (payId: string) =>
  store.transaction(async (tx) => ({
    payment: await tx.payments.get(scope, payId),
    operations: await tx.operations.listByPayment(scope, payId),
  }));

describe('PostgreSQL transactions (pipelined)', () => {
  it('a transId taken already fails the transaction at its commit, as DuplicateKeyError, and none of its writes stays', async () => {
    const first = copy();
    await write(first);
    const second = copy(first.payment.transId);
    await expect(write(second)).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await stored(second.payment.payId)).toEqual({ payment: undefined, operations: [] });
    // The connection goes back to the pool usable: the next transaction commits.
    const third = copy();
    await write(third);
    expect((await stored(third.payment.payId)).operations).toHaveLength(1);
  });

  it('a read after a failed write throws the write’s error, not a later one’s', async () => {
    const first = copy();
    await write(first);
    await expect(
      store.transaction(async (tx) => {
        await tx.payments.insert(copy(first.payment.transId).payment, '{}');
        return tx.payments.getByTransId(scope, first.payment.transId);
      }),
    ).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('a completion of a key taken over fails the transaction, sent with its commit, and the work rolls back with it', async () => {
    const claim = (now: string) =>
      store.idempotency.claim({
        scope,
        key: `pg-taken-${process.pid}`,
        operationId: 'createPayment',
        requestHash: 'h',
        now,
        leaseMs: 30_000,
        retentionMs: 24 * 3_600_000,
      });
    const first = (await claim('2026-11-24T10:00:00.000Z')) as { token: string };
    expect((await claim('2026-11-24T10:00:31.000Z')).outcome).toBe('claimed');
    const record = copy();
    await expect(
      store.transaction(async (tx) => {
        await tx.payments.insert(record.payment, '{}');
        await tx.operations.insert(record.operation, 1);
        await tx.idempotency.complete({
          scope,
          key: `pg-taken-${process.pid}`,
          token: first.token,
          response: { status: 201, headers: {}, body: '{}' },
          now: '2026-11-24T10:00:00.000Z',
        });
      }),
    ).rejects.toBeInstanceOf(StaleWriteError);
    expect(await stored(record.payment.payId)).toEqual({ payment: undefined, operations: [] });
  });

  it('among concurrent transactions, each that fails rolls back alone', async () => {
    const records = Array.from({ length: 30 }, () => copy());
    const results = await Promise.allSettled(
      records.map((r, i) => write(r, i % 3 === 0 ? new Error(`work ${i} failed`) : undefined)),
    );
    for (const [i, r] of records.entries()) {
      const { payment, operations } = await stored(r.payment.payId);
      if (i % 3 === 0) {
        expect(results[i]).toMatchObject({ status: 'rejected', reason: { message: `work ${i} failed` } });
        expect(payment).toBeUndefined();
        expect(operations).toEqual([]);
      } else {
        expect(results[i]!.status).toBe('fulfilled');
        expect(payment?.transId).toBe(r.payment.transId);
        expect(operations.map((o) => o.xId)).toEqual([r.operation.xId]);
      }
    }
  });

  it('concurrent creates of one transId without a key: one 201, the others the duplicate decline', async () => {
    const body = {
      transId: `PG-RACE-${process.pid}`,
      amount: { value: 100, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    };
    const answers = await Promise.all(Array.from({ length: 12 }, () => sandbox().call('POST', '/payments', { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(11).fill(422)]);
  });
});

describe('PostgreSQL group commit', () => {
  /** Transaction ids assigned meanwhile: one per database transaction that wrote. */
  async function xidsDuring(work: () => Promise<unknown>): Promise<number> {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const next = async () =>
        Number((await client.query('select pg_snapshot_xmax(pg_current_snapshot())::text as x')).rows[0].x);
      const before = await next();
      await work();
      return (await next()) - before;
    } finally {
      await client.end();
    }
  }

  it('concurrent transactions share commits', async () => {
    const records = Array.from({ length: 40 }, () => copy());
    const xids = await xidsDuring(() => Promise.all(records.map((r) => write(r))));
    expect(xids).toBeLessThanOrEqual(20);
    for (const r of records) expect((await stored(r.payment.payId)).operations).toHaveLength(1);
  });

  it('transactions that lock a row run alone: concurrent read-modify-writes of one locked row lose nothing', async () => {
    const clock = { merchantId: `pg-lock-${process.pid}`, environment: 'test' as const };
    // A test clock's row: the locking read first prepares it (an insert), then reads it.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        store.transaction(async (tx) => tx.clocks.set(clock, (await tx.clocks.get(clock, { lock: true })) + 1)),
      ),
    );
    expect(await store.transaction((tx) => tx.clocks.get(clock))).toBe(20);
  });

  it('concurrent captures of one payment serialize on its lock: never more than authorized, never an error', async () => {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: `PG-CAPTURES-${process.pid}`,
        amount: { value: 5000, currency: 'EUR' },
        captureMethod: { type: 'MANUAL' },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      },
    });
    const payId = created.body.payId as string;
    // With creates in the same batches: the captures leave them, the creates commit.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 === 0
          ? sandbox().call('POST', `/payments/${payId}/captures`, {
              body: { transId: `PG-CAPTURES-${process.pid}-${i}`, amount: { value: 1000, currency: 'EUR' } },
            })
          : sandbox().call('POST', '/payments', {
              body: {
                transId: `PG-CAPTURES-${process.pid}-P${i}`,
                amount: { value: 100, currency: 'EUR' },
                paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
              },
            }),
      ),
    );
    const captures = answers.filter((_, i) => i % 2 === 0).map((a) => a.status);
    expect(captures.filter((s) => s === 200)).toHaveLength(5);
    expect(captures.filter((s) => s !== 200).every((s) => s === 422)).toBe(true);
    expect(answers.filter((_, i) => i % 2 === 1).every((a) => a.status === 201)).toBe(true);
    const details = await sandbox().call('GET', `/payments/getByPayId/${payId}`);
    expect(details.body.capturedAmount.value).toBe(5000);
  });
});

describe('PostgreSQL commits and statistics', () => {
  let dialect: Awaited<ReturnType<typeof openPostgres>>;
  let client: pg.Client;
  beforeAll(async () => {
    dialect = await openPostgres(database);
    client = new pg.Client({ connectionString: database });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await dialect?.close();
  });

  it('the work commits synchronously (an acknowledged write survives a crash of PostgreSQL)', async () => {
    const setting = await dialect.runTransaction(async (tx) =>
      sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(tx),
    );
    expect(setting.rows[0]?.synchronous_commit).toBe('on');
  });

  it('a young table is analyzed once it holds a few hundred rows; the look-ups use the unique indexes', async () => {
    // The payments written above and these: enough for the first ANALYZE.
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 40 }, () => write(copy())));
    const analyzed = async () =>
      (
        await client.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_user_tables where relname = 'payments' and (last_analyze is not null or last_autoanalyze is not null)",
        )
      ).rows[0]!.n === 1;
    const deadline = Date.now() + 15_000;
    while (!(await analyzed()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await analyzed()).toBe(true);
    expect(await tablesWithoutStatistics(dialect.db)).not.toContain('payments');
    const plan = async (column: string) =>
      (
        await client.query(
          `explain select data from payments where merchant_id = $1 and environment = $2 and ${column} = $3`,
          [scope.merchantId, scope.environment, 'x'],
        )
      ).rows
        .map((r: Record<string, string>) => r['QUERY PLAN'])
        .join('\n');
    expect(await plan('trans_id')).toMatch(/using payments_trans_id/);
    expect(await plan('pay_id')).toMatch(/using payments_pk/);
  });
});
