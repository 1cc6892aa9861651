// What PostgreSQL's concurrency makes the API do, on a real PostgreSQL: transactions run side by side
// there, so a transId taken by a concurrent create reaches the request pipeline as a unique violation
// at its commit (it runs the work again and answers the duplicate decline), and concurrent captures
// of one payment serialize on its row lock while creates share group commits beside them. The
// store's own machinery (pipelined transactions, group commit, claims, row locks, statistics) is
// held on both stores in test/sandbox/store-contract.test.ts.
import { describe, expect, it } from 'vitest';
import { databases } from '../support/postgres.js';
import { sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();

describe('the API on PostgreSQL, under concurrency', () => {
  const sandbox = sandboxPerSuite(() => dbs.database('postgres'));

  it('concurrent creates of one transId without a key: one 201, the others the duplicate decline', async () => {
    const body = {
      transId: `PG-RACE-${process.pid}`,
      amount: { value: 100, currency: 'EUR' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    };
    const answers = await Promise.all(Array.from({ length: 12 }, () => sandbox().call('POST', '/payments', { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(11).fill(422)]);
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
