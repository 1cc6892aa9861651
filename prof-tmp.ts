import { startSandbox } from '/work/main/sandbox/server.ts';
const m = { merchantId: 'm1', apiKey: 'k1', webhookSecret: 'w' };
const s = await startSandbox({ port: 0, database: process.argv[2] ?? ':memory:', merchants: [m] });
const auth = 'Basic ' + Buffer.from('m1:k1').toString('base64');
let i = 0;
const body = () => JSON.stringify({ transId: 'T' + (++i), amount: { value: 2500, currency: 'USD' }, captureMethod: { type: 'MANUAL' }, paymentMethods: { integrationType: 'DIRECT', type: 'CARD' } });
for (let k = 0; k < 300; k++) await s.app.inject({ method: 'POST', url: '/api/v2/payments', headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': 'k' + i }, payload: body() });
const t0 = performance.now(); const N = 2000;
for (let k = 0; k < N; k++) { const r = await s.app.inject({ method: 'POST', url: '/api/v2/payments', headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': 'k' + i }, payload: body() }); if (r.statusCode !== 201) throw new Error(r.body); }
console.log('POST µs/req', ((performance.now() - t0) / N * 1000).toFixed(0));
const r = await s.app.inject({ method: 'POST', url: '/api/v2/payments', headers: { authorization: auth, 'content-type': 'application/json' }, payload: body() });
const pay = JSON.parse(r.body).payId;
const t1 = performance.now();
for (let k = 0; k < N; k++) await s.app.inject({ method: 'GET', url: '/api/v2/payments/getByPayId/' + pay, headers: { authorization: auth } });
console.log('GET µs/req', ((performance.now() - t1) / N * 1000).toFixed(0));
await s.close();
