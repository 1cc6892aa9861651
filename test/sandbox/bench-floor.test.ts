// The bench's floor for POST (bench/floor-server.ts) writes what the sandbox's create writes, on
// the sandbox's own schema: a payment with its document, its first operation and the Idempotency-Key
// with the response it answered. `npm run bench` runs outside CI; this keeps its floor working when
// the schema changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startFloorServer } from '../../bench/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bench floor server', () => {
  it('stores a create as the sandbox does and answers it', async () => {
    const file = join(dir, 'floor.db');
    const server = await startFloorServer(file);
    let text: string;
    try {
      const response = await fetch(`${server.baseUrl}/api/v2/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'MYSHOP-42' },
        body: JSON.stringify({
          transId: 'MYSHOP-42',
          amount: { value: 2500, currency: 'USD' },
          captureMethod: { type: 'MANUAL' },
        }),
      });
      expect(response.status).toBe(201);
      text = await response.text();
    } finally {
      await server.stop();
    }
    const answer = JSON.parse(text) as { payId: string; xId: string; transId: string };
    expect(answer).toMatchObject({
      transId: 'MYSHOP-42',
      status: 'OK',
      payId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const db = new Database(file, { readonly: true });
    try {
      const payment = db
        .prepare('select trans_id, amount_value, currency, data, document from payments where pay_id = ?')
        .get(answer.payId) as Record<string, string | number>;
      expect(payment).toMatchObject({ trans_id: 'MYSHOP-42', amount_value: 2500, currency: 'USD' });
      expect(JSON.parse(payment.document as string)).toMatchObject({
        payId: answer.payId,
        captureMethod: { type: 'MANUAL' },
        operations: [{ xId: answer.xId }],
      });
      expect(db.prepare('select pay_id, position from payment_operations where x_id = ?').get(answer.xId)).toEqual({
        pay_id: answer.payId,
        position: 1,
      });
      expect(
        db
          .prepare('select response_status, response_body from idempotency_keys where idempotency_key = ?')
          .get('MYSHOP-42'),
      ).toEqual({ response_status: 201, response_body: text });
    } finally {
      db.close();
    }
  });
});
