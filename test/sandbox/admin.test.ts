// The admin API (/_sandbox, sandbox/admin/openapi.yaml), on SQLite (HTTP_STORES): its own
// credential, a reset of one scope or of everything, the test clock shown and advanced (a DELAYED
// capture runs), webhook deliveries listed with their attempts and resent (409 while pending, 404
// unknown), and validation from its document. Every admin response is held to the admin document.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUIDES_DIR, REPO_ROOT } from '../../generator/support/paths.js';
import { loadAdminDocument } from '../../sandbox/documents.js';
import { ADMIN_PREFIX, type AdminOperationId } from '../../sandbox/http/admin.js';
import { checkResponse, matchOperation } from '../support/contract-check.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { eventually } from '../support/receiver.js';
import { payOnHostedPage, sandboxWithReceiverPerSuite, transId } from '../support/sandbox.js';

const dbs = databases();
const HOUR = 3_600_000;

/** Every response of an admin operation checked against the admin document (throws naming the violation). */
async function adminFetch(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  const document = loadAdminDocument();
  const path = new URL(url).pathname;
  const match = matchOperation(document, init.method ?? 'GET', path);
  if (match) {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    const violations = checkResponse(document, match.operation.id, response.status, headers, text);
    if (violations.length > 0)
      throw new Error(`the admin API sent a response its document does not declare:\n  ${violations.join('\n  ')}`);
  }
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

describe('the admin document as the sandbox reads it', () => {
  it('has every operation under /_sandbox, and the response check can fail', () => {
    const document = loadAdminDocument();
    expect([...document.operations.keys()].sort()).toEqual([
      'advanceClock',
      'answerListenedDelivery',
      'createListener',
      'createMerchant',
      'deleteListener',
      'deleteMerchant',
      'getClock',
      'getWebhookDelivery',
      'listMerchants',
      'listWebhookDeliveries',
      'loadData',
      'pollListener',
      'resendWebhookDelivery',
      'resetData',
      'restoreSnapshot',
      'rotateMerchantApiKey',
      'seedExamples',
      'takeSnapshot',
    ] satisfies AdminOperationId[]);
    for (const op of document.operations.values()) expect(op.path.startsWith(`${ADMIN_PREFIX}/`)).toBe(true);
    const json = { 'content-type': 'application/json' };
    expect(
      checkResponse(
        document,
        'listMerchants',
        200,
        json,
        '{"data":[{"merchantId":"m","webhookKind":"enhanced","createdAt":"2026-01-01T00:00:00Z"}]}',
      ),
    ).toEqual([]);
    expect(
      checkResponse(document, 'listMerchants', 200, json, '{"data":[{"merchantId":"m","apiKey":"sk"}]}').join(),
    ).toMatch(/webhookKind/);
    expect(checkResponse(document, 'listMerchants', 404, json, '{}').join()).toMatch(/does not declare/);
    expect(
      checkResponse(
        document,
        'resendWebhookDelivery',
        409,
        json,
        '{"type":"https://x.example/p","title":"t","status":409}',
      ).join(),
    ).toMatch(/not application\/problem\+json/);
  });

  it('is a page of the docs site that a guide links to, showing every admin operation', () => {
    const linking = readdirSync(GUIDES_DIR).filter(
      (f) => f.endsWith('.md') && readFileSync(join(GUIDES_DIR, f), 'utf8').includes('](sandbox-admin.html)'),
    );
    expect(linking, 'a guide links the admin reference (docs/guides/*.md: [..](sandbox-admin.html))').not.toEqual([]);
    const page = readFileSync(join(REPO_ROOT, 'generated', 'docs', 'sandbox-admin.html'), 'utf8');
    for (const id of loadAdminDocument().operations.keys())
      expect(page, `generated/docs/sandbox-admin.html shows ${id}`).toContain(`"operationId":"${id}"`);
  });
});

describe.each(HTTP_STORES)('admin API on %s', (kind) => {
  // Retries an hour apart: a failed delivery stays PENDING until the clock is advanced. An attempt
  // waits 10 s for its answer: what is listed is the receiver's 500, which on a busy machine (a run's
  // start, PostgreSQL and Chromium starting beside four workers) can take more than 2 s to come.
  const { sandbox, receiver } = sandboxWithReceiverPerSuite(() => dbs.database(kind), {
    webhooks: { maxAttempts: 2, retryBaseMs: HOUR, retryCapMs: 24 * HOUR, timeoutMs: 10_000, pollMs: 25 },
  });

  const admin = (
    method: string,
    path: string,
    options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const key = options.key === undefined ? sandbox().sandbox.adminKey : options.key;
    const headers: Record<string, string> = {
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      ...options.headers,
    };
    if (options.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    return adminFetch(`${sandbox().url}${ADMIN_PREFIX}${path}`, {
      method,
      headers,
      ...(options.body !== undefined
        ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
  };
  const merchantId = () => sandbox().merchant.merchantId;
  const details = async (payId: string, root: 'test' | 'live' = 'test') =>
    (await sandbox().call('GET', `/payments/getByPayId/${payId}`, { root })).body;
  /** A HOSTED payment paid on the hosted page: its notification goes to the receiver's `/hooks/<transId>`. */
  const paidHosted = (id: string) =>
    payOnHostedPage(sandbox().call, { transId: id, webhook: `${receiver.url}/hooks/${id}` });

  it('takes only its admin key: none, a wrong one or merchant credentials are a 401 problem; the key opens no merchant root', async () => {
    const none = await admin('GET', '/merchants', { key: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="sandbox-admin"');
    expect(none.body).toMatchObject({ status: 401, title: 'Authentication required.' });
    expect((await admin('GET', '/merchants', { key: 'sbx_admin_wrong' })).status).toBe(401);
    expect(
      (await admin('GET', '/merchants', { key: null, headers: { authorization: sandbox().basic() } })).status,
    ).toBe(401);
    expect((await admin('POST', '/reset', { key: 'wrong', body: {} })).status).toBe(401);
    const onMerchantRoot = await sandbox().call('GET', '/customers', {
      headers: { authorization: `Bearer ${sandbox().sandbox.adminKey}` },
    });
    expect(onMerchantRoot.status).toBe(401);
  });

  it('lists the merchants without their API keys', async () => {
    const r = await admin('GET', '/merchants');
    expect(r.status).toBe(200);
    const ids = r.body.data.map((m: { merchantId: string }) => m.merchantId);
    expect(ids).toEqual(expect.arrayContaining([merchantId(), sandbox().other.merchantId]));
    expect(JSON.stringify(r.body)).not.toContain(sandbox().merchant.apiKey);
  });

  it('validates from its document: 400 naming the field, 404 for unknown merchants, paths and deliveries, 415 for another media type', async () => {
    const zero = await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { seconds: 0 } });
    expect(zero.status).toBe(400);
    expect(Object.keys(zero.body.errors)).toContain('seconds');
    expect(
      (
        await admin('POST', `/clocks/${merchantId()}/test/advance`, {
          body: { seconds: 1, to: '2030-01-01T00:00:00Z' },
        })
      ).status,
    ).toBe(400);
    expect((await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: '{"seconds":' })).status).toBe(400);
    expect((await admin('POST', `/clocks/${merchantId()}/test/advance`)).status).toBe(400);
    const environment = await admin('GET', `/clocks/${merchantId()}/prod`);
    expect(environment.status).toBe(400);
    expect(environment.body.errors).toHaveProperty('environment');
    const unknownFilter = await admin('GET', '/webhook-deliveries?state=DEAD');
    expect(unknownFilter.status).toBe(400);
    expect(unknownFilter.body.errors).toEqual({ state: ['is not a known field'] });
    expect((await admin('GET', '/webhook-deliveries?status=LOST')).status).toBe(400);
    expect((await admin('POST', '/reset', { body: { merchantId: merchantId(), everything: true } })).status).toBe(400);
    expect((await admin('GET', '/clocks/nobody/test')).status).toBe(404);
    expect((await admin('POST', '/reset', { body: { merchantId: 'nobody' } })).status).toBe(404);
    const path = await admin('GET', '/nothing-here');
    expect(path.status).toBe(404);
    expect(path.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await admin('GET', '/webhook-deliveries/no-such-delivery')).status).toBe(404);
    expect((await admin('POST', '/webhook-deliveries/no-such-delivery/resend')).status).toBe(404);
    const media = await admin('POST', '/reset', { body: 'merchantId=x', headers: { 'content-type': 'text/plain' } });
    expect(media.status).toBe(415);
    expect(media.body).toMatchObject({ status: 415 });
  });

  it('shows and advances a clock: a DELAYED payment is captured on the advance; a clock never goes back (409)', async () => {
    const created = await sandbox().call('POST', '/payments', {
      body: {
        transId: transId('DELAYED'),
        amount: { value: 2500, currency: 'USD' },
        captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } },
        paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
      },
    });
    expect(created.status).toBe(201);
    const before = await admin('GET', `/clocks/${merchantId()}/test`);
    expect(before.status).toBe(200);
    expect(before.body.scope).toEqual({ merchantId: merchantId(), environment: 'test' });

    const early = await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { seconds: 3600 } });
    expect(early.status).toBe(200);
    expect(early.body.captured.map((c: { payId: string }) => c.payId)).not.toContain(created.body.payId);
    expect((await details(created.body.payId)).state).toBe('AUTHORIZED');

    const to = new Date(Date.parse(early.body.clock.now) + HOUR + 1_000).toISOString();
    const late = await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { to } });
    expect(late.status).toBe(200);
    expect(late.body.clock.now).toBe(to);
    // The clock ran on with the wall clock since the first advance.
    expect(Date.parse(late.body.from)).toBeGreaterThanOrEqual(Date.parse(early.body.clock.now));
    expect(late.body.captured).toContainEqual(
      expect.objectContaining({ payId: created.body.payId, amount: { value: 2500, currency: 'USD' } }),
    );
    expect((await details(created.body.payId)).state).toBe('CAPTURED');
    const after = await admin('GET', `/clocks/${merchantId()}/test`);
    expect(after.body.offsetMs).toBeGreaterThanOrEqual(2 * HOUR);
    // Other scopes keep their time.
    expect((await admin('GET', `/clocks/${merchantId()}/live`)).body.offsetMs).toBe(0);

    const back = await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { to: early.body.clock.now } });
    expect(back.status).toBe(409);
    expect(back.body.detail).toMatch(/cannot go back/);
  });

  it('lists deliveries with their attempts and filters; resends a dead one (409 while it is pending), which is then delivered', async () => {
    const id = transId('HOOK');
    receiver.answer(`/hooks/${id}`, [500, 500]);
    const payId = await paidHosted(id);
    const pending = await eventually('the first failed attempt', async () => {
      const r = await admin('GET', `/webhook-deliveries?payId=${payId}`);
      const d = r.body.data[0];
      return d?.attempts.length === 1 ? d : undefined;
    });
    expect(pending).toMatchObject({
      status: 'PENDING',
      payId,
      scope: { merchantId: merchantId(), environment: 'test' },
      url: `${receiver.url}/hooks/${id}`,
      kind: 'enhanced',
    });
    expect(pending.attempts[0]).toMatchObject({ statusCode: 500 });
    expect(JSON.parse(pending.body)).toMatchObject({ payId });

    const conflict = await admin('POST', `/webhook-deliveries/${pending.id}/resend`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.type).toMatch(/delivery-pending$/);

    // The retry is an hour away: the clock brings it forward, it fails again, the delivery is dead.
    const advanced = await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { seconds: 3600 } });
    expect(advanced.body.webhooksDue).toBeGreaterThanOrEqual(1);
    const dead = await eventually('the dead letter', async () => {
      const r = await admin('GET', `/webhook-deliveries/${pending.id}`);
      return r.body.status === 'DEAD' ? r.body : undefined;
    });
    expect(dead.attempts).toHaveLength(2);
    const filtered = await admin('GET', `/webhook-deliveries?status=DEAD&merchantId=${merchantId()}&environment=test`);
    expect(filtered.body.data.map((d: { id: string }) => d.id)).toContain(pending.id);
    expect(
      (await admin('GET', `/webhook-deliveries?status=DEAD&merchantId=${sandbox().other.merchantId}`)).body.data,
    ).toEqual([]);
    expect((await admin('GET', `/webhook-deliveries?payId=${payId}&environment=live`)).body.data).toEqual([]);

    const resent = await admin('POST', `/webhook-deliveries/${pending.id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ id: pending.id, status: 'PENDING', resentAfterAttempts: 2 });
    const delivered = await eventually('the resent delivery', async () => {
      const r = await admin('GET', `/webhook-deliveries/${pending.id}`);
      return r.body.status === 'DELIVERED' ? r.body : undefined;
    });
    expect(delivered.attempts.map((a: { statusCode?: number }) => a.statusCode)).toEqual([500, 500, 200]);
    expect(receiver.on(`/hooks/${id}`)).toHaveLength(3);
    // A delivered one may be sent again too.
    expect((await admin('POST', `/webhook-deliveries/${pending.id}/resend`)).status).toBe(202);
    await eventually('the second resend', () => (receiver.on(`/hooks/${id}`).length === 4 ? true : undefined));
  });

  it('creates a merchant (its credentials shown once, its id taken afterwards) and deletes it with all its data', async () => {
    const id = `worker_${Date.now().toString(36)}`;
    const created = await admin('POST', '/merchants', { body: { merchantId: id } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ merchantId: id, webhookKind: 'enhanced' });
    expect(created.body.apiKey).toMatch(/^sk_test_[0-9a-f]{32}$/);
    expect(created.body.webhookSecret).toMatch(/^whsec_/);
    expect(created.body).not.toHaveProperty('examples');
    const worker = { merchantId: id, apiKey: created.body.apiKey, webhookSecret: created.body.webhookSecret };
    const customers = await sandbox().call('GET', '/customers', { who: worker });
    expect(customers.status).toBe(200);
    expect(customers.body.totalNumberOfItems).toBe(0);
    const payment = await sandbox().call('POST', '/payments', {
      who: worker,
      body: { transId: transId('WORKER'), amount: { value: 1250, currency: 'EUR' } },
    });
    expect(payment.status).toBe(201);
    // Isolated both ways: the suite's merchant does not see the worker's payment, nor the other way round.
    expect((await sandbox().call('GET', `/payments/getByPayId/${payment.body.payId}`)).status).toBe(404);
    const listed = await admin('GET', '/merchants');
    expect(JSON.stringify(listed.body)).not.toContain(worker.apiKey);
    expect(listed.body.data.map((m: { merchantId: string }) => m.merchantId)).toContain(id);

    const taken = await admin('POST', '/merchants', { body: { merchantId: id } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ status: 409, detail: expect.stringContaining(id) });
    // The refused creation changed nothing: the first key still works.
    expect((await sandbox().call('GET', '/customers', { who: worker })).status).toBe(200);
    // A reset of everything keeps every merchant's credentials.
    expect((await admin('POST', '/reset', { body: { merchantId: id } })).status).toBe(200);
    expect((await sandbox().call('GET', '/customers', { who: worker })).status).toBe(200);

    const deleted = await admin('DELETE', `/merchants/${id}`);
    expect(deleted.status).toBe(204);
    expect((await sandbox().call('GET', '/customers', { who: worker })).status).toBe(401);
    expect((await admin('DELETE', `/merchants/${id}`)).status).toBe(404);
    expect((await admin('GET', `/clocks/${id}/test`)).status).toBe(404);
    // The id is free again, and the new merchant under it starts empty with new credentials.
    const again = await admin('POST', '/merchants', { body: { merchantId: id } });
    expect(again.status).toBe(201);
    expect(again.body.apiKey).not.toBe(worker.apiKey);
    const reborn = { ...worker, apiKey: again.body.apiKey };
    expect((await sandbox().call('GET', `/payments/getByPayId/${payment.body.payId}`, { who: reborn })).status).toBe(
      404,
    );
    expect((await admin('DELETE', `/merchants/${id}`)).status).toBe(204);
  });

  it("creates a merchant with an id of its own making, or with the contract's examples; refuses a malformed one", async () => {
    const generated = await admin('POST', '/merchants', { body: { webhookKind: 'basic' } });
    expect(generated.status).toBe(201);
    expect(generated.body.merchantId).toMatch(/^merchant_[0-9a-f]{16}$/);
    expect(generated.body.webhookKind).toBe('basic');
    const bodiless = await admin('POST', '/merchants');
    expect(bodiless.status).toBe(201);
    expect(bodiless.body.merchantId).not.toBe(generated.body.merchantId);

    const seeded = await admin('POST', '/merchants', { body: { examples: true } });
    expect(seeded.status).toBe(201);
    const objects = seeded.body.examples as Array<{ kind: string; id: string }>;
    const payment = objects.find((o) => o.kind === 'payment');
    expect(payment).toBeDefined();
    const who = {
      merchantId: seeded.body.merchantId,
      apiKey: seeded.body.apiKey,
      webhookSecret: seeded.body.webhookSecret,
    };
    expect((await sandbox().call('GET', `/payments/getByPayId/${payment!.id}`, { who })).status).toBe(200);

    const malformed = await admin('POST', '/merchants', { body: { merchantId: 'no spaces/slashes' } });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body.errors)).toContain('merchantId');
    expect((await admin('POST', '/merchants', { body: { merchantId: 'x', apiKey: 'mine' } })).status).toBe(400);
    for (const m of [generated.body, bodiless.body, seeded.body])
      expect((await admin('DELETE', `/merchants/${m.merchantId}`)).status).toBe(204);
  });

  it('takes a snapshot of a scope and restores it as often as asked: payments, idempotency records and the clock as they were; 404 and 409 where it cannot', async () => {
    const id = `snap_${Date.now().toString(36)}`;
    const credentials = async (merchantId: string) => {
      const made = await admin('POST', '/merchants', { body: { merchantId } });
      expect(made.status).toBe(201);
      return { merchantId, apiKey: made.body.apiKey as string, webhookSecret: made.body.webhookSecret as string };
    };
    const worker = await credentials(id);
    const other = await credentials(`${id}_b`);
    const body = (t: string) => ({
      transId: t,
      amount: { value: 11_900, currency: 'EUR' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    });
    const key = { 'idempotency-key': `${id}-create` };
    const first = await sandbox().call('POST', '/payments', { who: worker, body: body('ORD-1'), headers: key });
    expect(first.status).toBe(201);
    await admin('POST', `/clocks/${id}/test/advance`, { body: { seconds: 60 } });

    const taken = await admin('POST', '/snapshots', { body: { merchantId: id, environment: 'test' } });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ merchantId: id, environment: 'test', rows: { payments: 1, clocks: 1 } });
    expect(taken.body.snapshotId).toMatch(/^snap_[0-9a-f]{16}$/);

    const capture = { transId: 'ORD-1-CAP', amount: { value: 11_900, currency: 'EUR' } };
    expect(
      (await sandbox().call('POST', `/payments/${first.body.payId}/captures`, { who: worker, body: capture })).status,
    ).toBe(200);
    const second = await sandbox().call('POST', '/payments', { who: worker, body: body('ORD-2') });
    await admin('POST', `/clocks/${id}/test/advance`, { body: { seconds: 3600 } });
    const theirs = await sandbox().call('POST', '/payments', { who: other, body: body('ORD-3') });

    for (let round = 0; round < 2; round++) {
      const restored = await admin('POST', `/snapshots/${taken.body.snapshotId}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.rows).toEqual(taken.body.rows);
      expect(
        (await sandbox().call('GET', `/payments/getByPayId/${first.body.payId}`, { who: worker })).body.state,
      ).toBe('AUTHORIZED');
      expect((await sandbox().call('GET', `/payments/getByPayId/${second.body.payId}`, { who: worker })).status).toBe(
        404,
      );
      expect((await admin('GET', `/clocks/${id}/test`)).body.offsetMs).toBe(60_000);
      const replay = await sandbox().call('POST', '/payments', { who: worker, body: body('ORD-1'), headers: key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.payId).toBe(first.body.payId);
      // Another merchant's data is not the snapshot's: untouched.
      expect((await sandbox().call('GET', `/payments/getByPayId/${theirs.body.payId}`, { who: other })).status).toBe(
        200,
      );
    }

    expect((await admin('POST', '/snapshots/snap_unknown/restore')).status).toBe(404);
    expect((await admin('POST', '/snapshots', { body: { merchantId: 'nobody' } })).status).toBe(404);
    expect((await admin('POST', '/snapshots', { body: { merchantId: id, credentials: true } })).status).toBe(400);
    expect((await admin('DELETE', `/merchants/${id}`)).status).toBe(204);
    const orphan = await admin('POST', `/snapshots/${taken.body.snapshotId}/restore`);
    expect(orphan.status).toBe(409);
    expect(orphan.body.detail).toContain(id);
    expect((await admin('DELETE', `/merchants/${other.merchantId}`)).status).toBe(204);
  });

  it('resets one scope (its clock included), leaving the other scopes; then everything, merchants staying', async () => {
    const mine = await sandbox().call('POST', '/payments', {
      body: { transId: transId('MINE'), amount: { value: 100, currency: 'EUR' } },
    });
    const live = await sandbox().call('POST', '/payments', {
      root: 'live',
      body: { transId: transId('LIVE'), amount: { value: 100, currency: 'EUR' } },
    });
    const theirs = await sandbox().call('POST', '/payments', {
      who: sandbox().other,
      body: { transId: transId('THEIRS'), amount: { value: 100, currency: 'EUR' } },
    });
    expect([mine.status, live.status, theirs.status]).toEqual([201, 201, 201]);
    await admin('POST', `/clocks/${merchantId()}/test/advance`, { body: { seconds: 60 } });
    // Read before the reset: a document the sandbox has served must not outlive its deletion.
    expect((await details(mine.body.payId)).payId).toBe(mine.body.payId);
    expect((await sandbox().call('GET', `/payments/getByTransId/${mine.body.transId}`)).status).toBe(200);

    const scoped = await admin('POST', '/reset', { body: { merchantId: merchantId(), environment: 'test' } });
    expect(scoped.status).toBe(200);
    expect(scoped.body).toMatchObject({ merchantId: merchantId(), environment: 'test' });
    expect(scoped.body.deleted.payments).toBeGreaterThanOrEqual(1);
    expect(scoped.body.deleted.paymentOperations).toBeGreaterThanOrEqual(1);
    expect(scoped.body.deleted.webhookDeliveries).toBeGreaterThanOrEqual(1);
    expect(scoped.body.deleted.clocks).toBe(1);
    expect((await sandbox().call('GET', `/payments/getByPayId/${mine.body.payId}`)).status).toBe(404);
    expect((await sandbox().call('GET', `/payments/getByTransId/${mine.body.transId}`)).status).toBe(404);
    expect((await details(live.body.payId, 'live')).payId).toBe(live.body.payId);
    expect(
      (await sandbox().call('GET', `/payments/getByPayId/${theirs.body.payId}`, { who: sandbox().other })).status,
    ).toBe(200);
    expect((await admin('GET', `/clocks/${merchantId()}/test`)).body.offsetMs).toBe(0);
    expect(sandbox().sandbox.clocks.now({ merchantId: merchantId(), environment: 'test' }).getTime()).toBeLessThan(
      Date.now() + 5_000,
    );
    // The merchant keeps working: a new payment with the same transId is a new payment.
    expect(
      (
        await sandbox().call('POST', '/payments', {
          body: { transId: mine.body.transId, amount: { value: 100, currency: 'EUR' } },
        })
      ).status,
    ).toBe(201);

    const all = await admin('POST', '/reset');
    expect(all.status).toBe(200);
    expect(all.body.deleted.payments).toBeGreaterThanOrEqual(3);
    expect(
      (await sandbox().call('GET', `/payments/getByPayId/${theirs.body.payId}`, { who: sandbox().other })).status,
    ).toBe(404);
    expect((await sandbox().call('GET', `/payments/getByPayId/${live.body.payId}`, { root: 'live' })).status).toBe(404);
    expect((await admin('GET', '/merchants')).body.data.length).toBeGreaterThanOrEqual(2);
    expect((await admin('GET', '/webhook-deliveries')).body.data).toEqual([]);
  });
});
