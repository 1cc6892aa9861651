// The PostgreSQL store's own machinery (sandbox/store/dialects/postgres/), on a real PostgreSQL: a
// young database gets the planner statistics that keep a payment's look-ups on their unique
// indexes.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment, PaymentOperation, Scope } from '../../sandbox/domain/types.js';
import { openPostgres } from '../../sandbox/store/dialects/postgres/open.js';
import { tablesWithoutStatistics } from '../../sandbox/store/dialects/postgres/statistics.js';
import type { Store } from '../../sandbox/store/store.js';
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

async function write(record: { payment: Payment; operation: PaymentOperation }): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.payments.insert(record.payment, '{}');
    await tx.operations.insert(record.operation, 1);
  });
}

describe('PostgreSQL planner statistics', () => {
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

  it('a young table is analyzed once it holds a few hundred rows; the look-ups use the unique indexes', async () => {
    // Enough payments for the first ANALYZE.
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
