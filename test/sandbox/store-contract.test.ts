// The store's contract (sandbox/store/), on SQLite (better-sqlite3, and compiled to WebAssembly) and
// on PostgreSQL, called directly: no HTTP. What every store promises (claims taken once, leases that
// run out, round-robin across merchants, row locks, duplicate keys, Idempotency-Key claims,
// housekeeping, the clock's due work and its record), what the WebAssembly driver under the SQLite
// store owes as better-sqlite3's stand-in (error codes, bound values, statements prepared again),
// and on PostgreSQL what several processes on one database rely on (two stores on one database
// never take the same delivery or key, group commit, pipelined transactions, synchronous commits,
// planner statistics). The races between housekeeping, the claims and the clock are played on
// PostgreSQL deterministically: a second connection holds a row lock (or a delete) open at the
// point where the store's statement must meet it, and lets go once that statement waits for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockDeps, type ClockRun, createClocks } from '../../sandbox/app/clock.js';
import { domainContextAt } from '../../sandbox/app/context.js';
import { DEFAULT_RETENTION, runHousekeeping } from '../../sandbox/app/housekeeping.js';
import { persist } from '../../sandbox/app/payments.js';
import { capturePayment, createPayment, type NewPayment } from '../../sandbox/domain/payments.js';
import type { Payment, Scope, WebhookDelivery } from '../../sandbox/domain/types.js';
import { openPostgres } from '../../sandbox/store/dialects/postgres/open.js';
import { tablesWithoutStatistics } from '../../sandbox/store/dialects/postgres/statistics.js';
import type { SqliteLike } from '../../sandbox/store/dialects/sqlite/wasm-driver.js';
import { openWasmDatabase } from '../../sandbox/store/dialects/sqlite/wasm-node.js';
import { openStore, StoreOpenError } from '../../sandbox/store/index.js';
import {
  type ClaimRequest,
  DuplicateKeyError,
  StaleWriteError,
  type Store,
  type StoreTransaction,
} from '../../sandbox/store/store.js';
import { newPayment } from '../support/domain.js';
import { databases, STORES } from '../support/postgres.js';
import { sandboxContract } from '../support/sandbox.js';

const dbs = databases();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let seq = 0;
/** A name no other test of the run uses. */
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${++seq}`;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const merchant = (merchantId: string) => ({
  merchantId,
  apiKeyHash: `${merchantId}-hash`,
  sealedWebhookSecrets: 'whsec_sealed',
  createdAt: new Date().toISOString(),
});

/** A webhook delivery of `merchantId` (test), PENDING and due `agoMs` ago unless told otherwise. */
function delivery(
  merchantId: string,
  options: { agoMs?: number; status?: WebhookDelivery['status']; endedDaysAgo?: number } = {},
): WebhookDelivery {
  const id = `dlv-${Date.now().toString(36)}-${(++seq).toString().padStart(5, '0')}`;
  const status = options.status ?? 'PENDING';
  const ended = iso(Date.now() - (options.endedDaysAgo ?? 0) * DAY);
  return {
    id,
    scope: { merchantId, environment: 'test' },
    payId: `pay-${id}`,
    kind: 'basic',
    url: `https://${merchantId}.example/hooks`,
    body: JSON.stringify({ payId: `pay-${id}` }),
    status,
    attempts:
      status === 'PENDING' ? [] : [{ at: ended, durationMs: 3, statusCode: status === 'DELIVERED' ? 200 : 500 }],
    nextAttemptAt: status === 'PENDING' ? iso(Date.now() - (options.agoMs ?? 1_000)) : ended,
    createdAt: ended,
    ...(status === 'DELIVERED' ? { deliveredAt: ended } : {}),
  };
}

const queue = (store: Store, deliveries: WebhookDelivery[]) =>
  store.transaction(async (tx) => {
    for (const d of deliveries) await tx.webhooks.insert(d);
  });

/** A claim of the deliverer at `now`, held for a minute. */
const dueClaim = (token: string, perMerchant: number, limit = 64, now = Date.now()) => ({
  token,
  now: iso(now),
  lockedUntil: iso(now + 60_000),
  limit,
  perMerchant,
});

/** A card payment of `scope` authorized at `at` (MANUAL unless `captureMethod` says otherwise), stored. */
async function storedPayment(
  store: Store,
  scope: Scope,
  options: { value?: number; at?: Date; captureMethod?: NewPayment['captureMethod'] } = {},
): Promise<Payment> {
  const ctx = domainContextAt(options.at ?? new Date(), sandboxContract().tables);
  const decision = createPayment(
    newPayment({
      scope,
      transId: unique('T'),
      amount: { value: options.value ?? 5_000, currency: 'EUR' },
      captureMethod: options.captureMethod ?? { type: 'MANUAL' },
    }),
    ctx,
  );
  await store.transaction((tx) => persist(tx, decision, 'insert'));
  return decision.payment;
}

/** An Idempotency-Key claim of `scope` at `now` (a 30 s lease, kept 24 hours). */
const claimOf = (scope: Scope, key: string, now: string, requestHash = 'h'): ClaimRequest => ({
  scope,
  key,
  operationId: 'createPayment',
  requestHash,
  now,
  leaseMs: 30_000,
  retentionMs: DAY,
});

const completion = (scope: Scope, key: string, token: string, now: string, body = '{}') => ({
  scope,
  key,
  token,
  response: { status: 201, headers: { 'content-type': 'application/json' }, body },
  now,
});

/** PostgreSQL only: a connection of the test's own beside the store's, to hold rows and look at what waits. */
class Holder {
  readonly client: pg.Client;
  constructor(url: string) {
    this.client = new pg.Client({ connectionString: url });
  }
  async open(): Promise<this> {
    await this.client.connect();
    return this;
  }
  query(text: string, values: unknown[] = []) {
    return this.client.query(text, values);
  }
  /**
   * Resolves once another connection of the database waits for a lock (the store's statement met the
   * held row), or once `settled` has (the statement went past the row without waiting for it).
   */
  async someoneWaits(settled?: Promise<unknown>): Promise<void> {
    let done = false;
    void settled?.then(
      () => (done = true),
      () => (done = true),
    );
    const deadline = Date.now() + 10_000;
    while (!done) {
      const { rows } = await this.query(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
      );
      if (rows[0].n > 0) return;
      if (Date.now() > deadline) throw new Error('no statement of the store came to wait for the held lock');
      await sleep(20);
    }
  }
  close() {
    return this.client.end();
  }
}

/** STORES, and `:memory:` on SQLite compiled to WebAssembly (sql.js), the store where better-sqlite3 does not load. */
const KINDS = [...STORES, 'sqlite-wasm'] as const;

for (const kind of KINDS) {
  describe(kind, () => {
    let url: string;
    let store: Store;
    /** PostgreSQL: a second store on the same database, as a second sandbox process would hold it. */
    let second: Store | undefined;
    /** PostgreSQL: the test's own connection, which holds rows where a race needs them held. */
    let holder: Holder;
    beforeAll(async () => {
      url = await dbs.database(kind === 'sqlite-wasm' ? 'sqlite' : kind);
      store = await openStore({ database: url, ...(kind === 'sqlite-wasm' ? { sqliteDriver: 'wasm' } : {}) });
      if (kind === 'postgres') {
        second = await openStore({ database: url });
        holder = await new Holder(url).open();
      }
    });
    afterAll(async () => {
      await holder?.close();
      await second?.close();
      await store?.close();
    });

    describe('delivery claims', () => {
      it('take every merchant’s next delivery before any merchant’s one after it, and no more than a merchant’s cap in all', async () => {
        const [hang, fine, third] = [unique('hang'), unique('fine'), unique('third')];
        for (const m of [hang, fine, third]) await store.merchants.upsert(merchant(m));
        const hung = Array.from({ length: 50 }, (_, i) => delivery(hang, { agoMs: 10_000 - i }));
        const fines = [delivery(fine, { agoMs: 5_000 }), delivery(fine, { agoMs: 4_000 })];
        await queue(store, [...hung, ...fines]);
        const claim = (perMerchant: number, limit = 64) =>
          store.webhooks
            .claimDue(dueClaim(unique('deliverer'), perMerchant, limit))
            .then((ds) => ds.filter((d) => [hang, fine, third].includes(d.scope.merchantId)).map((d) => d.id));
        expect(await claim(3, 4)).toEqual([hung[0]!.id, fines[0]!.id, hung[1]!.id, fines[1]!.id]);
        expect(await claim(3)).toEqual([hung[2]!.id]); // its third; fine has none left
        expect(await claim(3)).toEqual([]); // hang holds 3: its cap
        // A merchant that holds nothing comes first.
        const first = delivery(third, { agoMs: 60_000 });
        await queue(store, [first]);
        expect(await claim(4, 1)).toEqual([first.id]);
      });

      it('leave the scope of a connected listener to it', async () => {
        const m = unique('listened');
        await store.merchants.upsert(merchant(m));
        const d = delivery(m);
        await queue(store, [d]);
        const now = Date.now();
        const registered = await store.listeners.register(
          { scope: d.scope, id: 'lst_contract', now: iso(now), expiresAt: iso(now + 60_000) },
          4,
        );
        expect(registered).toBe('registered');
        const taken = async () => (await store.webhooks.claimDue(dueClaim(unique('deliverer'), 100))).map((x) => x.id);
        expect(await taken()).not.toContain(d.id);
        expect(await store.listeners.remove(m, 'lst_contract')).toBe(true);
        expect(await taken()).toContain(d.id);
      });

      it('claiming at once (on PostgreSQL from two stores, as two processes), never take the same delivery', async () => {
        const ms = [unique('c1'), unique('c2'), unique('c3')];
        for (const m of ms) await store.merchants.upsert(merchant(m));
        const all = ms.flatMap((m) => Array.from({ length: 20 }, () => delivery(m)));
        await queue(store, all);
        const stores = [store, second ?? store, store, second ?? store];
        const taken: string[] = [];
        for (let round = 0; round < 10; round++) {
          const claims = await Promise.all(
            stores.map((s) => s.webhooks.claimDue(dueClaim(unique('deliverer'), 100, 8))),
          );
          taken.push(...claims.flat().map((d) => d.id));
        }
        const mine = taken.filter((id) => all.some((d) => d.id === id));
        expect(new Set(mine).size).toBe(mine.length);
        expect(new Set(mine)).toEqual(new Set(all.map((d) => d.id)));
      });

      it('a hold that ran out is taken again; the claim that outlived it can no longer record its attempt, and the newer claim’s result stands', async () => {
        const m = unique('lease');
        await store.merchants.upsert(merchant(m));
        const d = delivery(m, { agoMs: 10_000 });
        await queue(store, [d]);
        const t0 = Date.now();
        const mineOnly = (ds: WebhookDelivery[]) => ds.filter((x) => x.id === d.id);
        const old = {
          token: unique('deliverer-old'),
          now: iso(t0),
          lockedUntil: iso(t0 + 1_000),
          limit: 64,
          perMerchant: 4,
        };
        expect(mineOnly(await store.webhooks.claimDue(old))).toHaveLength(1);
        // Held: nobody takes it before its hold ends…
        expect(mineOnly(await store.webhooks.claimDue(dueClaim(unique('deliverer'), 4, 64, t0 + 500)))).toEqual([]);
        // …and then the next claim does (its process died, or it hung).
        const newer = dueClaim(unique('deliverer-new'), 4, 64, t0 + 2_000);
        expect(mineOnly(await store.webhooks.claimDue(newer))).toHaveLength(1);

        const attempt = (statusCode: number, status: WebhookDelivery['status']): WebhookDelivery => ({
          ...d,
          status,
          attempts: [{ at: iso(t0), durationMs: 5, statusCode }],
          ...(status === 'DELIVERED' ? { deliveredAt: iso(t0) } : {}),
        });
        // The old claim's late result (a final failure) is refused: it would have ended a delivery the
        // newer claim holds, and housekeeping could then have deleted it under that claim.
        expect(await store.webhooks.record(attempt(500, 'DEAD'), old.token)).toBe(false);
        const later = iso(Date.now() + DAY);
        await store.housekeeping.purgeDeliveries('DEAD', later);
        await store.housekeeping.purgeDeliveries('DELIVERED', later);
        expect((await store.webhooks.find(d.id))?.status).toBe('PENDING');
        expect(await store.webhooks.record(attempt(200, 'DELIVERED'), newer.token)).toBe(true);
        expect(await store.webhooks.record(attempt(200, 'DELIVERED'), newer.token)).toBe(false); // released
        expect(await store.webhooks.find(d.id)).toMatchObject({ status: 'DELIVERED', attempts: [{ statusCode: 200 }] });
      });
    });

    describe('listener claims', () => {
      it('take the scope’s due deliveries up to what the listener may hold; a removed listener’s are due again at once; a gone listener takes nothing', async () => {
        const m = unique('lsn');
        await store.merchants.upsert(merchant(m));
        const scope: Scope = { merchantId: m, environment: 'test' };
        const ds = Array.from({ length: 5 }, (_, i) => delivery(m, { agoMs: 5_000 - i }));
        await queue(store, ds);
        const now = Date.now();
        await store.listeners.register({ scope, id: 'lst_a', now: iso(now), expiresAt: iso(now + 60_000) }, 4);
        const claim = (token: string, limit: number, id = 'lst_a') =>
          store.listeners.claim({
            scope,
            listenerId: id,
            token: `${id}.${token}`,
            now: iso(Date.now()),
            lockedUntil: iso(Date.now() + 60_000),
            limit,
            maxHeld: 3,
          });
        expect((await claim('one', 2))?.map((d) => d.id)).toEqual([ds[0]!.id, ds[1]!.id]);
        expect((await claim('two', 5))?.map((d) => d.id)).toEqual([ds[2]!.id]); // holds 3: its bound
        expect(await claim('three', 5)).toEqual([]);
        expect(await store.listeners.remove(m, 'lst_a')).toBe(true);
        expect(await claim('four', 5)).toBeUndefined();
        // What it held is free again: the deliverer takes all five.
        const taken = await store.webhooks.claimDue(dueClaim(unique('deliverer'), 100));
        expect(taken.filter((d) => d.scope.merchantId === m)).toHaveLength(5);
      });

      it('registrations of one merchant are bounded, also when they come at once', async () => {
        const m = unique('bound');
        await store.merchants.upsert(merchant(m));
        const now = Date.now();
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? store : (second ?? store)).listeners.register(
              {
                scope: { merchantId: m, environment: 'test' },
                id: `lst_${i}`,
                now: iso(now),
                expiresAt: iso(now + 60_000),
              },
              4,
            ),
          ),
        );
        expect(outcomes.filter((o) => o === 'registered')).toHaveLength(4);
      });
    });

    describe('row locks', () => {
      it('concurrent captures of one payment, among other transactions, never capture more than it authorized', async () => {
        const scope: Scope = { merchantId: unique('locks'), environment: 'test' };
        const payment = await storedPayment(store, scope, { value: 5_000 });
        const capture = (i: number) =>
          (i % 2 === 0 ? store : (second ?? store)).transaction(async (tx) => {
            const current = (await tx.payments.get(scope, payment.payId, { lock: true }))!;
            const ctx = domainContextAt(new Date(), sandboxContract().tables);
            const decision = capturePayment(
              current,
              { transId: unique('C'), amount: { value: 1_000, currency: 'EUR' } },
              ctx,
            );
            if (decision.outcome === 'ok') await persist(tx, decision, 'update');
            return decision.outcome;
          });
        // Creates in the same moments: on PostgreSQL they share group commits, which the captures leave.
        const outcomes = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            i % 2 === 0 ? capture(i) : storedPayment(store, scope, { value: 100 }),
          ),
        );
        const captures = outcomes.filter((_, i) => i % 2 === 0);
        expect(captures.filter((o) => o === 'ok')).toHaveLength(5);
        const after = await store.transaction((tx) => tx.payments.get(scope, payment.payId));
        expect(after).toMatchObject({ capturedValue: 5_000, state: 'CAPTURED', version: 6 });
      });

      it('locked read-modify-writes of a test clock, even one never advanced, lose nothing', async () => {
        const clock: Scope = { merchantId: unique('clock'), environment: 'test' };
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : (second ?? store)).transaction(async (tx) =>
              tx.clocks.set(clock, (await tx.clocks.get(clock, { lock: true })) + 1),
            ),
          ),
        );
        expect(await store.transaction((tx) => tx.clocks.get(clock))).toBe(20);
        expect(await store.clocks()).toContainEqual({ scope: clock, offsetMs: 20 });
      });
    });

    describe('merchants', () => {
      it('insert writes a new id only (a taken one is false, the first merchant unchanged); deleteMerchant takes its scopes, listeners and credentials, no one else’s', async () => {
        const [mine, theirs] = [unique('mine'), unique('theirs')];
        expect(await store.merchants.insert(merchant(mine))).toBe(true);
        expect(await store.merchants.insert({ ...merchant(mine), apiKeyHash: 'another-hash' })).toBe(false);
        expect((await store.merchants.get(mine))?.apiKeyHash).toBe(`${mine}-hash`);
        await store.merchants.upsert(merchant(theirs));
        const kept = await storedPayment(store, { merchantId: theirs, environment: 'test' });
        const gone = [
          await storedPayment(store, { merchantId: mine, environment: 'test' }),
          await storedPayment(store, { merchantId: mine, environment: 'live' }),
        ];
        await queue(store, [delivery(mine)]);
        const now = Date.now();
        const listener = { scope: { merchantId: mine, environment: 'test' as const }, id: 'lst_gone' };
        expect(await store.listeners.register({ ...listener, now: iso(now), expiresAt: iso(now + 60_000) }, 4)).toBe(
          'registered',
        );

        expect(await store.transaction((tx) => tx.data.deleteMerchant(mine))).toBe(true);
        expect(await store.merchants.get(mine)).toBeUndefined();
        expect(await store.merchants.getByApiKeyHash(`${mine}-hash`)).toBeUndefined();
        for (const p of gone) expect(await store.paymentDocument(p.scope, p.payId)).toBeUndefined();
        expect(await store.webhooks.list({ merchantId: mine })).toEqual([]);
        expect(await store.listeners.touch(mine, listener.id, iso(now), iso(now + 60_000))).toBeUndefined();
        expect(await store.paymentDocument(kept.scope, kept.payId)).toBeDefined();
        expect(await store.transaction((tx) => tx.data.deleteMerchant(mine))).toBe(false);
        // The id is free again.
        expect(await store.merchants.insert(merchant(mine))).toBe(true);
      });
    });

    describe('snapshots', () => {
      it('take a scope’s rows and restore them in place of what it holds then: payments as they were, later ones gone, claims on deliveries released, other scopes untouched', async () => {
        const m = unique('snap');
        await store.merchants.upsert(merchant(m));
        const scope: Scope = { merchantId: m, environment: 'test' };
        const kept = await storedPayment(store, scope, { value: 4_200 });
        const live = await storedPayment(store, { merchantId: m, environment: 'live' });
        const before = await store.paymentDocument(scope, kept.payId);
        const d = delivery(m);
        await queue(store, [d]);
        await store.transaction((tx) => tx.clocks.set(scope, 60_000));
        const counts = await store.transaction((tx) =>
          tx.snapshots.take({ id: `snap_${m}`, filter: scope, createdAt: iso(Date.now()) }),
        );
        expect(counts).toMatchObject({ payments: 1, webhookDeliveries: 1, clocks: 1 });

        // Afterwards: a delivery claimed, a payment deleted, another made, the clock moved on.
        expect((await store.webhooks.claimDue(dueClaim(unique('deliverer'), 100))).map((x) => x.id)).toContain(d.id);
        const later = await storedPayment(store, scope);
        await store.transaction((tx) => tx.clocks.set(scope, 120_000));
        await store.transaction((tx) => tx.data.reset({ merchantId: m, environment: 'test' }));
        const liveAfter = await storedPayment(store, { merchantId: m, environment: 'live' });

        expect(await store.transaction((tx) => tx.snapshots.restore(`snap_${m}`))).toEqual(counts);
        expect(await store.paymentDocument(scope, kept.payId)).toBe(before);
        expect(await store.paymentDocument(scope, later.payId)).toBeUndefined();
        expect(await store.transaction((tx) => tx.clocks.get(scope))).toBe(60_000);
        // The restored delivery is due and nobody's: the next claim takes it.
        expect((await store.webhooks.claimDue(dueClaim(unique('deliverer'), 100))).map((x) => x.id)).toContain(d.id);
        // The live scope was not in the snapshot: restoring left it as it was.
        expect(await store.paymentDocument(live.scope, live.payId)).toBeDefined();
        expect(await store.paymentDocument(liveAfter.scope, liveAfter.payId)).toBeDefined();
        // Restored again, the same; an unknown id restores nothing.
        expect(await store.transaction((tx) => tx.snapshots.restore(`snap_${m}`))).toEqual(counts);
        expect(await store.transaction((tx) => tx.snapshots.restore('snap_none'))).toBeUndefined();
        expect(await store.transaction((tx) => tx.snapshots.get(`snap_${m}`))).toMatchObject({
          filter: scope,
          merchants: [m],
        });
      });

      it('restore more rows than one batch insert holds (120 payments and their operations): every one as it was', async () => {
        const m = unique('snapmany');
        await store.merchants.upsert(merchant(m));
        const scope: Scope = { merchantId: m, environment: 'test' };
        const payments = [];
        for (let i = 0; i < 120; i++) payments.push(await storedPayment(store, scope, { value: 100 + i }));
        const before = await Promise.all(payments.map((p) => store.paymentDocument(scope, p.payId)));
        const counts = await store.transaction((tx) =>
          tx.snapshots.take({ id: `snap_${m}`, filter: scope, createdAt: iso(Date.now()) }),
        );
        expect(counts.payments).toBe(120);
        await store.transaction((tx) => tx.data.reset({ merchantId: m }));
        expect(await store.transaction((tx) => tx.snapshots.restore(`snap_${m}`))).toEqual(counts);
        expect(await Promise.all(payments.map((p) => store.paymentDocument(scope, p.payId)))).toEqual(before);
      });
    });

    describe('duplicate keys', () => {
      const scope: Scope = { merchantId: 'dup', environment: 'test' };
      const insert = (tx: StoreTransaction, transId: string) => {
        const ctx = domainContextAt(new Date(), sandboxContract().tables);
        return persist(tx, createPayment(newPayment({ scope, transId }), ctx), 'insert');
      };

      it('a transId taken already fails its transaction as DuplicateKeyError; nothing of it stays; the next one commits', async () => {
        const transId = unique('DUP');
        await store.transaction((tx) => insert(tx, transId));
        let payId = '';
        await expect(
          store.transaction(async (tx) => {
            const ctx = domainContextAt(new Date(), sandboxContract().tables);
            const decision = createPayment(newPayment({ scope, transId }), ctx);
            payId = decision.payment.payId;
            await persist(tx, decision, 'insert');
          }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await store.transaction((tx) => tx.operations.listByPayment(scope, payId))).toEqual([]);
        const next = unique('DUP');
        await store.transaction((tx) => insert(tx, next));
        expect(await store.paymentDocumentByTransId(scope, next)).toBeDefined();
      });

      it('a read after a failed write throws the write’s error, not a later one’s', async () => {
        const transId = unique('DUP');
        await store.transaction((tx) => insert(tx, transId));
        await expect(
          store.transaction(async (tx) => {
            await insert(tx, transId);
            return tx.payments.getByTransId(scope, transId);
          }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
      });

      it('concurrent inserts of one transId: one commits, each other fails alone as DuplicateKeyError', async () => {
        const transId = unique('DUP');
        const others = Array.from({ length: 6 }, () => unique('OTHER'));
        const results = await Promise.allSettled([
          ...Array.from({ length: 6 }, () => store.transaction((tx) => insert(tx, transId))),
          ...others.map((t) => store.transaction((tx) => insert(tx, t))),
        ]);
        const same = results.slice(0, 6);
        expect(same.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of same.filter((r) => r.status === 'rejected'))
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateKeyError);
        expect(results.slice(6).every((r) => r.status === 'fulfilled')).toBe(true);
      });

      it('among concurrent transactions, each that fails rolls back alone', async () => {
        const transIds = Array.from({ length: 30 }, () => unique('ALONE'));
        const results = await Promise.allSettled(
          transIds.map((transId, i) =>
            store.transaction(async (tx) => {
              await insert(tx, transId);
              if (i % 3 === 0) throw new Error(`work ${i} failed`);
            }),
          ),
        );
        for (const [i, transId] of transIds.entries()) {
          const stored = await store.paymentDocumentByTransId(scope, transId);
          if (i % 3 === 0) {
            expect(results[i]).toMatchObject({ status: 'rejected', reason: { message: `work ${i} failed` } });
            expect(stored).toBeUndefined();
          } else expect(stored).toBeDefined();
        }
      });
    });

    describe('Idempotency-Key claims', () => {
      const scope: Scope = { merchantId: 'idem', environment: 'test' };
      const t0 = '2026-11-24T10:00:00.000Z';

      it('a key in flight is a conflict until its request completes or gives it up', async () => {
        const key = unique('flight');
        const first = (await store.idempotency.claim(claimOf(scope, key, t0))) as { outcome: string; token: string };
        expect(first.outcome).toBe('claimed');
        expect(await store.idempotency.claim(claimOf(scope, key, '2026-11-24T10:00:10.000Z'))).toEqual({
          outcome: 'conflict',
          reason: 'in_progress',
        });
        await store.idempotency.release({ scope, key, token: first.token });
        expect((await store.idempotency.claim(claimOf(scope, key, '2026-11-24T10:00:11.000Z'))).outcome).toBe(
          'claimed',
        );
      });

      it('claimed at once (on PostgreSQL from two stores), a key is one request’s', async () => {
        const key = unique('race');
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : (second ?? store)).idempotency.claim(claimOf(scope, key, t0)),
          ),
        );
        expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
        expect(outcomes.filter((o) => o.outcome !== 'claimed')).toEqual(
          Array(19).fill({ outcome: 'conflict', reason: 'in_progress' }),
        );
      });

      it('a completed key replays for 24 hours (a different request is a conflict), then it is new again', async () => {
        const key = unique('retention');
        const first = (await store.idempotency.claim(claimOf(scope, key, t0))) as { token: string };
        await store.transaction((tx) => tx.idempotency.complete(completion(scope, key, first.token, t0, '{"a":1}')));
        expect(await store.idempotency.claim(claimOf(scope, key, '2026-11-25T09:59:59.000Z'))).toEqual({
          outcome: 'replay',
          response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
        });
        expect(await store.idempotency.claim(claimOf(scope, key, '2026-11-25T09:59:59.000Z', 'other'))).toEqual({
          outcome: 'conflict',
          reason: 'different_request',
        });
        const renewed = (await store.idempotency.claim(claimOf(scope, key, '2026-11-25T10:00:01.000Z', 'other'))) as {
          outcome: string;
          token: string;
        };
        expect(renewed.outcome).toBe('claimed');
        await store.transaction((tx) =>
          tx.idempotency.complete(completion(scope, key, renewed.token, '2026-11-25T10:00:01.000Z', '{"b":2}')),
        );
        expect(await store.idempotency.claim(claimOf(scope, key, '2026-11-25T10:00:02.000Z', 'other'))).toMatchObject({
          outcome: 'replay',
          response: { body: '{"b":2}' },
        });
      });

      it('a completion rolls back with its transaction: nothing is replayed', async () => {
        const key = unique('rollback');
        const first = (await store.idempotency.claim(claimOf(scope, key, t0))) as { token: string };
        await expect(
          store.transaction(async (tx) => {
            await tx.idempotency.complete(completion(scope, key, first.token, t0));
            throw new Error('the work failed');
          }),
        ).rejects.toThrow('the work failed');
        await store.idempotency.release({ scope, key, token: first.token });
        expect((await store.idempotency.claim(claimOf(scope, key, '2026-11-24T10:00:01.000Z'))).outcome).toBe(
          'claimed',
        );
      });

      it.runIf(kind === 'postgres')(
        'PostgreSQL: a key whose lease ran out (its process died) is taken over; the old token’s completion fails, and the work it came with rolls back',
        async () => {
          const key = unique('lease');
          const first = (await store.idempotency.claim(claimOf(scope, key, t0))) as { token: string };
          expect((await second!.idempotency.claim(claimOf(scope, key, '2026-11-24T10:00:31.000Z'))).outcome).toBe(
            'claimed',
          );
          const transId = unique('TAKEN');
          await expect(
            store.transaction(async (tx) => {
              const ctx = domainContextAt(new Date(), sandboxContract().tables);
              await persist(tx, createPayment(newPayment({ scope, transId }), ctx), 'insert');
              await tx.idempotency.complete(completion(scope, key, first.token, t0));
            }),
          ).rejects.toBeInstanceOf(StaleWriteError);
          expect(await store.paymentDocumentByTransId(scope, transId)).toBeUndefined();
        },
      );
    });

    describe('housekeeping', () => {
      it('deletes delivered deliveries after their retention and dead ones after theirs; pending ones stay', async () => {
        const m = unique('hk');
        const rows = {
          deliveredOld: delivery(m, { status: 'DELIVERED', endedDaysAgo: 8 }),
          deliveredRecent: delivery(m, { status: 'DELIVERED', endedDaysAgo: 6 }),
          deadOld: delivery(m, { status: 'DEAD', endedDaysAgo: 31 }),
          deadRecent: delivery(m, { status: 'DEAD', endedDaysAgo: 29 }),
          pendingOld: { ...delivery(m, { agoMs: -HOUR }), createdAt: iso(Date.now() - 60 * DAY) },
        };
        await queue(store, Object.values(rows));
        expect(await runHousekeeping(store, DEFAULT_RETENTION)).toMatchObject({
          deliveredWebhooks: 1,
          deadWebhooks: 1,
        });
        const left = new Set((await store.webhooks.list({ merchantId: m })).map((d) => d.id));
        expect(left).toEqual(new Set([rows.deliveredRecent.id, rows.deadRecent.id, rows.pendingOld.id]));
        expect(await runHousekeeping(store, DEFAULT_RETENTION)).toMatchObject({
          deliveredWebhooks: 0,
          deadWebhooks: 0,
        });
      });

      it('deletes idempotency keys past 24 hours on the clock of their scope: an advanced clock expires its own, not the others’', async () => {
        const wall = Date.now();
        const advanced: Scope = { merchantId: unique('ahead'), environment: 'test' };
        const other: Scope = { merchantId: unique('behind'), environment: 'test' };
        const key = unique('hk');
        for (const scope of [advanced, other]) {
          const claimed = (await store.idempotency.claim(claimOf(scope, key, iso(wall)))) as { token: string };
          await store.transaction((tx) => tx.idempotency.complete(completion(scope, key, claimed.token, iso(wall))));
        }
        await store.transaction((tx) => tx.clocks.set(advanced, 25 * HOUR));
        const purged = await runHousekeeping(store, DEFAULT_RETENTION, new Date(wall + 1_000));
        expect(purged.idempotencyKeys).toBeGreaterThanOrEqual(1);
        expect((await store.idempotency.claim(claimOf(advanced, key, iso(wall + 25 * HOUR + 2_000)))).outcome).toBe(
          'claimed',
        );
        expect((await store.idempotency.claim(claimOf(other, key, iso(wall + 2_000)))).outcome).toBe('replay');
        await store.transaction((tx) => tx.clocks.set(advanced, 0));
      });

      it('never deletes a key whose request is in flight with its lease holding on the wall clock, even past its retention on its scope’s clock', async () => {
        const wall = Date.now();
        const scope: Scope = { merchantId: unique('inflight'), environment: 'test' };
        const key = unique('hk');
        const claimed = (await store.idempotency.claim(claimOf(scope, key, iso(wall)))) as { token: string };
        // Another process advanced the scope's clock by 25 hours meanwhile: on it, the key has expired.
        expect(await store.idempotency.purgeExpired(iso(wall + 25 * HOUR), scope, iso(wall + 1_000))).toBe(0);
        await store.transaction((tx) => tx.idempotency.complete(completion(scope, key, claimed.token, iso(wall))));
        expect(await store.idempotency.purgeExpired(iso(wall + 25 * HOUR), scope, iso(wall + 1_000))).toBe(1);
      });

      it('deletes listeners past their expiry, and no other', async () => {
        const m = unique('lsn-hk');
        const scope: Scope = { merchantId: m, environment: 'test' };
        await store.merchants.upsert(merchant(m));
        const now = Date.now();
        await store.listeners.register({ scope, id: 'lst_gone', now: iso(now - 60_000), expiresAt: iso(now - 1) }, 4);
        await store.listeners.register({ scope, id: 'lst_alive', now: iso(now), expiresAt: iso(now + 60_000) }, 4);
        expect(await store.housekeeping.purgeListeners(iso(now))).toBeGreaterThanOrEqual(1);
        expect(await store.listeners.touch(m, 'lst_gone', iso(now), iso(now + 1_000))).toBeUndefined();
        expect(await store.listeners.touch(m, 'lst_alive', iso(now), iso(now + 60_000))).toEqual(scope);
      });
    });

    describe('the clock', () => {
      const clockDeps = (over: Partial<ClockDeps> = {}): ClockDeps => ({
        store,
        tables: sandboxContract().tables,
        fingerprint: (text) => `fp-${text}`,
        ...over,
      });
      /** A merchant of its own and a DELAYED payment of it whose capture fell due `agoMs` ago. */
      async function dueCapture(agoMs: number): Promise<{ scope: Scope; payment: Payment }> {
        const scope: Scope = { merchantId: unique('due'), environment: 'test' };
        await store.merchants.upsert(merchant(scope.merchantId));
        const payment = await storedPayment(store, scope, {
          value: 2_500,
          at: new Date(Date.now() - HOUR - agoMs),
          captureMethod: { type: 'DELAYED', delayed: { delayedHours: 1 } },
        });
        return { scope, payment };
      }
      const stateOf = async (scope: Scope, payId: string) =>
        (await store.transaction((tx) => tx.payments.get(scope, payId)))?.state;
      const operationsOf = (scope: Scope, payId: string) =>
        store.transaction((tx) => tx.operations.listByPayment(scope, payId));
      const runsOf = (runs: ClockRun[], scope: Scope) => runs.filter((r) => r.scope.merchantId === scope.merchantId);

      it('an advance runs what falls due in between, at its own time, holds the clock, and reports what it ran', async () => {
        const scope: Scope = { merchantId: unique('adv'), environment: 'test' };
        await store.merchants.upsert(merchant(scope.merchantId));
        const payment = await storedPayment(store, scope, {
          value: 2_500,
          captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } },
        });
        const clocks = await createClocks(clockDeps());
        const early = await clocks.advance(scope, { byMs: HOUR });
        expect(early.captured).toEqual([]);
        const late = await clocks.advance(scope, { byMs: 2 * HOUR });
        expect(late.captured).toEqual([
          { payId: payment.payId, at: payment.captureAt, amount: { value: 2_500, currency: 'EUR' } },
        ]);
        expect(await stateOf(scope, payment.payId)).toBe('CAPTURED');
        expect((await clocks.get(scope)).offsetMs).toBeGreaterThanOrEqual(3 * HOUR);
        expect((await clocks.advance(scope, { byMs: DAY })).captured).toEqual([]);
      });

      it('the wall clock’s passing runs what fell due, once, and reports it', async () => {
        const { scope, payment } = await dueCapture(60_000);
        const clocks = await createClocks(clockDeps());
        const runs = runsOf(await clocks.runDue(), scope);
        expect(runs).toEqual([{ scope, captured: [expect.objectContaining({ payId: payment.payId })], billed: [] }]);
        expect(await stateOf(scope, payment.payId)).toBe('CAPTURED');
        expect(runsOf(await clocks.runDue(), scope)).toEqual([]);
      });

      it('what runDue reports is what committed: a transaction the store runs again (as group commit does) is reported once', async () => {
        const { scope, payment } = await dueCapture(60_000);
        // Each transaction's work runs once and rolls back (a batch that failed), then runs again alone.
        const again: Store = {
          ...store,
          transaction: async (work) => {
            const rolledBack = new Error('rolled back');
            await store
              .transaction(async (tx) => {
                await work(tx);
                throw rolledBack;
              })
              .catch((error: unknown) => {
                if (error !== rolledBack) throw error;
              });
            return store.transaction(work);
          },
        };
        const clocks = await createClocks(clockDeps({ store: again }));
        const runs = runsOf(await clocks.runDue(), scope);
        expect(runs.flatMap((r) => r.captured).map((c) => c.payId)).toEqual([payment.payId]);
        expect((await operationsOf(scope, payment.payId)).map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
      });

      it('a scope whose transaction fails at its commit ran nothing and reports nothing; the others still run; the next run does it', async () => {
        const failing = await dueCapture(120_000);
        const fine = await dueCapture(60_000);
        const lines: string[] = [];
        const commitFails: Store = {
          ...store,
          transaction: (work) =>
            store.transaction(async (tx) => {
              let doomed = false;
              const watched: StoreTransaction = {
                ...tx,
                clocks: {
                  ...tx.clocks,
                  get: (scope, options) => {
                    if (options?.lock && scope.merchantId === failing.scope.merchantId) doomed = true;
                    return tx.clocks.get(scope, options);
                  },
                },
              };
              const value = await work(watched);
              if (doomed) throw new Error('the commit failed');
              return value;
            }),
        };
        const clocks = await createClocks(clockDeps({ store: commitFails, log: (line) => lines.push(line) }));
        const runs = await clocks.runDue();
        expect(runsOf(runs, failing.scope)).toEqual([]);
        expect(
          runsOf(runs, fine.scope)
            .flatMap((r) => r.captured)
            .map((c) => c.payId),
        ).toEqual([fine.payment.payId]);
        expect(await stateOf(failing.scope, failing.payment.payId)).toBe('AUTHORIZED');
        expect(await stateOf(fine.scope, fine.payment.payId)).toBe('CAPTURED');
        expect(lines.filter((l) => l.includes(failing.scope.merchantId))).toEqual([
          expect.stringContaining('the commit failed'),
        ]);
        const next = runsOf(await (await createClocks(clockDeps())).runDue(), failing.scope);
        expect(next.flatMap((r) => r.captured).map((c) => c.payId)).toEqual([failing.payment.payId]);
      });
    });

    describe.runIf(kind === 'postgres')(
      'PostgreSQL: races with housekeeping and the claims, played deterministically',
      () => {
        it('a claim renewing an expired key that housekeeping deletes meanwhile claims it anew (not a 409 for a free key)', async () => {
          const scope: Scope = { merchantId: unique('renew'), environment: 'test' };
          const key = unique('k');
          const t0 = '2026-11-24T10:00:00.000Z';
          const first = (await store.idempotency.claim(claimOf(scope, key, t0))) as { token: string };
          await store.transaction((tx) => tx.idempotency.complete(completion(scope, key, first.token, t0)));
          // Housekeeping's delete takes the row's lock; the claim reads the expired row and waits to renew it.
          await holder.query('begin');
          await holder.query(
            'select 1 from idempotency_keys where merchant_id = $1 and idempotency_key = $2 for update',
            [scope.merchantId, key],
          );
          const claim = store.idempotency.claim(claimOf(scope, key, '2026-11-25T11:00:00.000Z'));
          await holder.someoneWaits(claim);
          await holder.query('delete from idempotency_keys where merchant_id = $1 and idempotency_key = $2', [
            scope.merchantId,
            key,
          ]);
          await holder.query('commit');
          expect((await claim).outcome).toBe('claimed');
        });

        it('a listener’s claim meets its listener being deleted: it waits, then takes nothing, and its deliveries stay free', async () => {
          const m = unique('lsn-race');
          const scope: Scope = { merchantId: m, environment: 'test' };
          await store.merchants.upsert(merchant(m));
          const ds = [delivery(m), delivery(m)];
          await queue(store, ds);
          const now = Date.now();
          await store.listeners.register({ scope, id: 'lst_race', now: iso(now), expiresAt: iso(now + 60_000) }, 4);
          // Housekeeping (or a removal) deletes the listener, not committed yet.
          await holder.query('begin');
          await holder.query('delete from webhook_listeners where merchant_id = $1 and id = $2', [m, 'lst_race']);
          const claim = store.listeners.claim({
            scope,
            listenerId: 'lst_race',
            token: 'lst_race.x',
            now: iso(now),
            lockedUntil: iso(now + 60_000),
            limit: 8,
            maxHeld: 8,
          });
          await holder.someoneWaits(claim);
          await holder.query('commit');
          expect(await claim).toBeUndefined();
          const taken = await store.webhooks.claimDue(dueClaim(unique('deliverer'), 100));
          expect(
            taken
              .filter((d) => d.scope.merchantId === m)
              .map((d) => d.id)
              .sort(),
          ).toEqual(ds.map((d) => d.id).sort());
        });

        it('a clock advance bringing retries forward meets an attempt’s result being recorded: the result is never overwritten with what was read before it', async () => {
          const m = unique('fwd');
          const scope: Scope = { merchantId: m, environment: 'test' };
          const d = delivery(m, { agoMs: -HOUR });
          await queue(store, [d]);
          const delivered = {
            ...d,
            status: 'DELIVERED' as const,
            deliveredAt: iso(Date.now()),
            attempts: [{ at: iso(Date.now()), durationMs: 4, statusCode: 200 }],
          };
          // The attempt's result is being written (its row locked)…
          await holder.query('begin');
          await holder.query('select 1 from webhook_deliveries where id = $1 for update', [d.id]);
          const forward = store.transaction((tx) => tx.webhooks.bringForward(scope, 2 * HOUR, iso(Date.now())));
          await holder.someoneWaits(forward);
          // …and commits while the advance waits for it.
          await holder.query(
            "update webhook_deliveries set status = 'DELIVERED', finished_at = $2, data = $3 where id = $1",
            [d.id, delivered.deliveredAt, JSON.stringify(delivered)],
          );
          await holder.query('commit');
          expect(await forward).toBe(0);
          const row = await holder.query('select status, data from webhook_deliveries where id = $1', [d.id]);
          expect(row.rows[0].status).toBe('DELIVERED');
          expect(JSON.parse(row.rows[0].data)).toMatchObject({ status: 'DELIVERED', attempts: [{ statusCode: 200 }] });
        });

        it('a resend meets housekeeping deleting the dead delivery: it waits, then the delivery is gone, never half resent', async () => {
          const m = unique('resend');
          const d = delivery(m, { status: 'DEAD', endedDaysAgo: 31 });
          await queue(store, [d]);
          await holder.query('begin');
          await holder.query("delete from webhook_deliveries where status = 'DEAD' and id = $1", [d.id]);
          const resend = store.transaction(async (tx) => {
            const found = await tx.webhooks.find(d.id, { lock: true });
            if (found) await tx.webhooks.update({ ...found, status: 'PENDING' });
            return found;
          });
          await holder.someoneWaits(resend);
          await holder.query('commit');
          expect(await resend).toBeUndefined();
          expect(await store.webhooks.find(d.id)).toBeUndefined();
        });
      },
    );

    describe.runIf(kind === 'postgres')('PostgreSQL: transactions, commits and statistics', () => {
      /** Transaction ids assigned meanwhile: one per database transaction that wrote. */
      async function xidsDuring(work: () => Promise<unknown>): Promise<number> {
        const client = await new Holder(url).open();
        try {
          const next = async () =>
            Number((await client.query('select pg_snapshot_xmax(pg_current_snapshot())::text as x')).rows[0].x);
          const before = await next();
          await work();
          return (await next()) - before;
        } finally {
          await client.close();
        }
      }
      const scope: Scope = { merchantId: 'pg', environment: 'test' };

      it('concurrent transactions share commits (group commit), their reads and writes interleaved on one connection', async () => {
        const transIds = Array.from({ length: 40 }, () => unique('GC'));
        let histories: number[] = [];
        const xids = await xidsDuring(async () => {
          histories = await Promise.all(
            transIds.map((transId) =>
              store.transaction(async (tx) => {
                if (await tx.payments.getByTransId(scope, transId)) throw new Error(`${transId} is taken`);
                const ctx = domainContextAt(new Date(), sandboxContract().tables);
                const decision = createPayment(newPayment({ scope, transId }), ctx);
                await persist(tx, decision, 'insert');
                // A read after the writes sees them: one transaction, in order.
                return (await tx.operations.listByPayment(scope, decision.payment.payId)).length;
              }),
            ),
          );
        });
        expect(xids).toBeLessThanOrEqual(20);
        expect(histories).toEqual(Array(40).fill(1));
      });

      it('a connection that breaks once a batch’s commit is sent fails each of its transactions as CommitOutcomeUnknown (they may have committed), runs none again, and the store goes on', async () => {
        const [blocked, beside] = [unique('BROKEN'), unique('BESIDE')];
        // A payment with the transId, not committed: the store's insert of it waits, its commit sent behind it.
        await holder.query('begin');
        await holder.query(
          "insert into payments (merchant_id, environment, pay_id, kind, trans_id, state, amount_value, currency, created_at, version, data, document) values ($1, $2, $3, 'PAYMENT', $4, 'AUTHORIZED', 1, 'EUR', '', 1, '{}', '{}')",
          [scope.merchantId, scope.environment, unique('held'), blocked],
        );
        const insert = (transId: string) =>
          store.transaction((tx) =>
            persist(
              tx,
              createPayment(newPayment({ scope, transId }), domainContextAt(new Date(), sandboxContract().tables)),
              'insert',
            ),
          );
        const batch = Promise.allSettled([insert(blocked), insert(beside)]);
        await holder.someoneWaits(batch);
        await holder.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
        );
        await holder.query('rollback');
        const outcomes = await batch;
        expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : o.status))).toEqual([
          'CommitOutcomeUnknown',
          'CommitOutcomeUnknown',
        ]);
        expect(await store.paymentDocumentByTransId(scope, beside)).toBeUndefined();
        const after = unique('AFTER');
        await insert(after);
        expect(await store.paymentDocumentByTransId(scope, after)).toBeDefined();
      });

      it('the work commits synchronously (an acknowledged write survives a crash of PostgreSQL)', async () => {
        const dialect = await openPostgres(url);
        try {
          const setting = await dialect.runTransaction((tx) =>
            sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(tx),
          );
          expect(setting.rows[0]?.synchronous_commit).toBe('on');
          // A precompiled statement given the wrong number of values says so, naming its SQL.
          const statement = dialect.precompile(
            dialect.db.selectFrom('settings').select('value').where('name', '=', ''),
          );
          expect(() => statement(dialect.db, [])).toThrow(/0 values for 1 parameters/);
        } finally {
          await dialect.close();
        }
      });

      it('a young table is analyzed once it holds a few hundred rows; a payment’s look-ups then use the unique indexes', async () => {
        // A database of its own: the other tests' payments, analyzed before this scope's were written,
        // would make this scope look as rare as one row, where any index leading with it ties.
        const young = await dbs.database('postgres');
        const youngStore = await openStore({ database: young });
        const client = await new Holder(young).open();
        try {
          for (let i = 0; i < 4; i++)
            await Promise.all(Array.from({ length: 40 }, () => storedPayment(youngStore, scope)));
          const analyzed = async () =>
            (
              await client.query(
                "select count(*)::int as n from pg_stat_user_tables where relname = 'payments' and (last_analyze is not null or last_autoanalyze is not null)",
              )
            ).rows[0].n === 1;
          const deadline = Date.now() + 15_000;
          while (!(await analyzed()) && Date.now() < deadline) await sleep(200);
          expect(await analyzed()).toBe(true);
          const dialect = await openPostgres(young);
          try {
            expect(await tablesWithoutStatistics(dialect.db)).not.toContain('payments');
          } finally {
            await dialect.close();
          }
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
        } finally {
          await client.close();
          await youngStore.close();
        }
      });

      it('a database that cannot be reached is refused with one line, without its password', async () => {
        const unreachable = url.replace(/:\d+\//, ':1/');
        const refused = await openStore({ database: unreachable }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(StoreOpenError);
        expect((refused as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@/);
      });
    });
  });
}

/** The `code` and name of what `run` throws. */
function failureOf(run: () => unknown): { name: string; code: string | undefined } {
  try {
    run();
  } catch (error) {
    return { name: (error as Error).name, code: (error as { code?: string }).code };
  }
  throw new Error('did not throw');
}

describe('sqlite-wasm: the driver under the store, as better-sqlite3 behaves', () => {
  let db: SqliteLike;
  beforeAll(async () => {
    db = await openWasmDatabase();
    db.pragma('foreign_keys = ON');
    for (const statement of [
      'create table parent (a text not null, b text not null, code text unique, primary key (a, b))',
      'create table child (id integer primary key, a text, b text, foreign key (a, b) references parent (a, b))',
    ])
      db.prepare(statement).run([]);
  });
  afterAll(() => db?.close());

  it('codes a failure as better-sqlite3 does: the primary key, a unique index, NOT NULL, a foreign key', () => {
    const insert = db.prepare('insert into parent (a, b, code) values (?, ?, ?)');
    expect(insert.run(['x', 'y', 'c1']).changes).toBe(1);
    expect(failureOf(() => insert.run(['x', 'y', 'c2']))).toEqual({
      name: 'SqliteError',
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(failureOf(() => insert.run(['x', 'z', 'c1'])).code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(failureOf(() => insert.run(['x', null, 'c3'])).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    const child = db.prepare('insert into child (id, a, b) values (?, ?, ?)');
    expect(failureOf(() => child.run([1, 'no', 'parent'])).code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    const inserted = child.run([7, 'x', 'y']);
    expect([inserted.changes, inserted.lastInsertRowid]).toEqual([1, 7]);
    expect(failureOf(() => child.run([7, 'x', 'y'])).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(failureOf(() => db.prepare('select nothing from nowhere')).code).toBe('SQLITE_ERROR');
    // The statement that failed runs again with other values.
    expect(insert.run(['x', 'w', 'c4']).changes).toBe(1);
  });

  it('binds undefined as NULL, a bigint as an integer, a boolean as 1 or 0; refuses an object', () => {
    const select = db.prepare('select ? as v, typeof(?) as t');
    expect(select.reader).toBe(true);
    expect(select.all([undefined, undefined])).toEqual([{ v: null, t: 'null' }]);
    expect(select.all([42n, 42n])).toEqual([{ v: 42, t: 'integer' }]);
    expect(select.all([true, false])).toEqual([{ v: 1, t: 'integer' }]);
    expect(() => select.all([{}, 1])).toThrow(TypeError);
    expect([...select.iterate(['it', 'it'])]).toEqual([{ v: 'it', t: 'text' }]);
  });

  it('prepares a statement once per SQL text, and again once it was freed among many others', () => {
    const first = db.prepare('select 1 as n');
    for (let i = 0; i < 600; i++) expect(db.prepare(`select ${i} as n`).all([])).toEqual([{ n: i }]);
    expect(first.all([])).toEqual([{ n: 1 }]);
    expect(db.prepare('delete from child where id = ?').reader).toBe(false);
  });

  it('holds :memory: alone: a store on a file is refused with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasm-store-'));
    try {
      const refused = await openStore({ database: join(dir, 'store.db'), sqliteDriver: 'wasm' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreOpenError);
      expect((refused as Error).message).toMatch(/holds :memory: alone/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
