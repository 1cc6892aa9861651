// The bench's floor for POST: the least a durable, idempotent create can cost on this machine. A
// raw node:http server that does only the storage work of the sandbox's create, on the sandbox's
// own schema and connections' settings: parse the JSON body, hash the request, look its
// Idempotency-Key up on a reader connection, then write the payment (with its document), its first
// operation and the key with its response, batched by group commit and committed before answering.
// Nothing else: no routing, authentication, validation, domain rules, Kysely or contract checks,
// and no checks of its own (the bench sends only valid, new requests). Whatever the sandbox does,
// it cannot create payments faster than this here; the bench reports the sandbox against it.
//
// Child process of bench/sandbox.ts: `node --import tsx bench/floor-server.ts <port> <sqlite file>`.
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { newId } from '../sandbox/app/ids.js';
import { installPlatform } from '../sandbox/app/platform.js';
import { nodePlatform } from '../sandbox/platform/node.js';
import { startCheckpointer } from '../sandbox/store/dialects/sqlite/checkpointer.js';
import { openStore } from '../sandbox/store/index.js';
import type { Database as Tables } from '../sandbox/store/schema.js';

// Its ids are the sandbox's (app/ids.ts), drawn on Node.
installPlatform(nodePlatform);

const [port, file] = [Number(process.argv[2]), process.argv[3]];
if (!Number.isInteger(port) || !file) {
  console.error('usage: floor-server.ts <port> <sqlite file>');
  process.exit(2);
}

// The sandbox's migrations make the tables and indexes; then the sandbox's settings (openStore).
await (await openStore({ database: file })).close();
const writer = new Database(file);
writer.pragma('journal_mode = WAL');
writer.pragma('synchronous = NORMAL');
writer.pragma('wal_autocheckpoint = 16000');
const reader = new Database(file, { readonly: true });
const checkpointer = startCheckpointer(file, (message) => console.error(`floor: checkpoint failed: ${message}`));

/** An insert of a whole row, its columns named by the first row's keys (bound by name). */
function inserter<T extends keyof Tables>(table: T) {
  let statement: Database.Statement | undefined;
  const prepare = (columns: string[]) =>
    writer.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`);
  return (row: Tables[T]) => {
    statement ??= prepare(Object.keys(row));
    return statement.run(row);
  };
}
// Rows spread the scope last, as the store does: on Node 20, keys added after a spread give every row hidden classes of its own.
const scope = { merchant_id: 'bench_merchant', environment: 'test' };
const insertPayment = inserter('payments');
const insertOperation = inserter('payment_operations');
const insertKey = inserter('idempotency_keys');
const findKey = reader.prepare(
  'select * from idempotency_keys where merchant_id = ? and environment = ? and idempotency_key = ?',
);
const begin = writer.prepare('begin');
const commit = writer.prepare('commit');

/** Group commit, as the sandbox's store does it: the writes queued in one turn of the event loop commit together. */
let queue: Array<{ write: () => void; answer: () => void }> = [];
function drain() {
  const batch = queue;
  queue = [];
  begin.run();
  for (const item of batch) item.write();
  commit.run();
  for (const item of batch) item.answer();
}

const headers = { 'content-type': 'application/json; charset=utf-8' };

interface CreateRequest {
  transId: string;
  amount: { value: number; currency: string };
  [field: string]: unknown;
}

const server = createServer((request, response) => {
  if (request.method !== 'POST') return void response.writeHead(404).end();
  let raw = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (raw += chunk));
  request.on('end', () => {
    const body = JSON.parse(raw) as CreateRequest;
    const key = String(request.headers['idempotency-key']);
    const requestHash = createHash('sha256').update(raw).digest('hex');
    findKey.get(scope.merchant_id, scope.environment, key);
    const now = new Date();
    const createdAt = now.toISOString();
    // The sandbox's ids: time-ordered, so that new rows land at the end of the indexes (random ids cost much more here).
    const [payId, xId] = [newId('payment', now), newId('operation', now)];
    const { transId, amount, ...details } = body;
    // Strings of the sizes the sandbox stores: the domain's record, the details document, the operation, the response.
    const [status, responseCode, responseDescription] = ['OK', '00000000', 'Request successfully processed'];
    const result = JSON.stringify({
      payId,
      merchantId: scope.merchant_id,
      transId,
      xId,
      status,
      responseCode,
      responseDescription,
    });
    const operation = {
      xId,
      payId,
      type: 'AUTHORIZATION',
      transId,
      status,
      responseCode,
      responseDescription,
      amount,
      createdAt,
    };
    const payment = {
      payId,
      scope,
      kind: 'PAYMENT',
      transId,
      state: 'AUTHORIZED',
      amount,
      authorizedValue: amount.value,
      capturedValue: 0,
      refundedValue: 0,
      reversedValue: 0,
      details,
      createdAt,
      updatedAt: createdAt,
      version: 1,
    };
    const zero = { value: 0, currency: amount.currency };
    const document = {
      payId,
      merchantId: scope.merchant_id,
      transId,
      xId,
      status,
      responseCode,
      responseDescription,
      state: 'AUTHORIZED',
      amount,
      authorizedAmount: amount,
      capturedAmount: zero,
      refundedAmount: zero,
      reversedAmount: zero,
      creationDate: createdAt,
      operations: [operation],
      ...details,
    };
    queue.push({
      write: () => {
        insertPayment({
          pay_id: payId,
          kind: 'PAYMENT',
          trans_id: transId,
          state: 'AUTHORIZED',
          amount_value: amount.value,
          currency: amount.currency,
          merchant_customer_id: null,
          created_at: createdAt,
          version: 1,
          data: JSON.stringify(payment),
          document: JSON.stringify(document),
          capture_at: null,
          ...scope,
        });
        insertOperation({ x_id: xId, pay_id: payId, position: 1, data: JSON.stringify(operation), ...scope });
        const expiresAt = new Date(now.getTime() + 24 * 3_600_000).toISOString();
        insertKey({
          idempotency_key: key,
          operation_id: 'createPayment',
          request_hash: requestHash,
          state: 'done',
          token: randomUUID(),
          locked_until: createdAt,
          expires_at: expiresAt,
          response_status: 201,
          response_headers: JSON.stringify(headers),
          response_body: result,
          ...scope,
        });
      },
      answer: () => response.writeHead(201, headers).end(result),
    });
    if (queue.length === 1) setImmediate(drain);
  });
});

server.listen(port, '127.0.0.1');
const stop = () =>
  server.close(async () => {
    await checkpointer.stop();
    reader.close();
    writer.close();
    process.exit(0);
  });
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
