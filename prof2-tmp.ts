import { openStore } from './sandbox/store/index.ts';
import { loadContract } from './sandbox/http/contract.ts';
const store = await openStore({ database: ':memory:' });
const scope = { merchantId: 'm', environment: 'test' as const };
const N = 3000;
let t = performance.now();
for (let i = 0; i < N; i++) {
  await store.transaction(async (tx) => {
    const p: any = { payId: 'p' + i, scope, kind: 'PAYMENT', transId: 't' + i, state: 'AUTHORIZED', integrationType: 'DIRECT', currency: 'USD', amount: { value: 1, currency: 'USD' }, authorizedValue: 1, capturedValue: 0, refundedValue: 0, reversedValue: 0, captureMode: 'MANUAL', details: {}, createdAt: 'x', updatedAt: 'x', version: 1 };
    await tx.payments.getByTransId(scope, 't' + i);
    await tx.payments.insert(p, '{}');
    await tx.operations.insert({ xId: 'x' + i, payId: 'p' + i, scope, type: 'AUTHORIZATION', transId: 't', status: 'OK', responseCode: '0', responseDescription: 'ok', createdAt: 'x' });
  });
}
console.log('store tx µs', ((performance.now() - t) / N * 1000).toFixed(0));
t = performance.now();
for (let i = 0; i < N; i++) await store.idempotency.claim({ scope, key: 'k' + i, operationId: 'createPayment', requestHash: 'h', now: new Date().toISOString(), leaseMs: 1000, retentionMs: 100000 });
console.log('claim µs', ((performance.now() - t) / N * 1000).toFixed(0));
t = performance.now();
for (let i = 0; i < N; i++) await store.paymentDocument(scope, 'p' + i);
console.log('doc µs', ((performance.now() - t) / N * 1000).toFixed(0));
const c = loadContract();
const op = c.operations.get('createPayment')!;
const body = { transId: 'T1', amount: { value: 2500, currency: 'USD' }, captureMethod: { type: 'MANUAL' }, paymentMethods: { integrationType: 'DIRECT', type: 'CARD' } };
op.validateBody(body);
t = performance.now();
for (let i = 0; i < N; i++) { op.validateBody(body); op.validateParameters({ path: {}, query: {}, headers: { 'idempotency-key': 'x' } }); }
console.log('validate µs', ((performance.now() - t) / N * 1000).toFixed(0));
