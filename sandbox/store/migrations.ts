// The one set of migrations, for SQLite and PostgreSQL alike (Kysely's schema builder with portable
// column types: text, integer and bigint for money, JSON as text, timestamps as ISO 8601 text).
// Kysely's Migrator runs them at open, holding its migration lock: several sandbox processes may
// start at once on one PostgreSQL database.
import { type CreateTableBuilder, type Kysely, type Migration, sql } from 'kysely';

/** Every table leads with the scope. */
const scoped = <TB extends string>(table: CreateTableBuilder<TB, never>) =>
  table.addColumn('merchant_id', 'text', (c) => c.notNull()).addColumn('environment', 'text', (c) => c.notNull());

/** The settings shared by every process, and the merchants with their key hashes. */
async function createSettingsAndMerchants(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('merchants')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey())
    .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
}

/** Payments and their operations (the history, in order). */
async function createPayments(db: Kysely<unknown>): Promise<void> {
  await scoped(db.schema.createTable('payments'))
    .addColumn('pay_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('trans_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('amount_value', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('merchant_customer_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payments_pk', ['merchant_id', 'environment', 'pay_id'])
    // One payment per transId in a scope: getByTransId is unambiguous.
    .addUniqueConstraint('payments_trans_id', ['merchant_id', 'environment', 'trans_id'])
    .execute();
  await db.schema
    .createIndex('payments_duplicates')
    .on('payments')
    .columns(['merchant_id', 'environment', 'amount_value', 'currency', 'created_at'])
    .execute();

  await scoped(db.schema.createTable('payment_operations'))
    .addColumn('x_id', 'text', (c) => c.notNull())
    .addColumn('pay_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_operations_pk', ['merchant_id', 'environment', 'x_id'])
    .addUniqueConstraint('payment_operations_order', ['merchant_id', 'environment', 'pay_id', 'position'])
    .execute();
}

/** Idempotency-Key claims and the responses they replay. */
async function createIdempotencyKeys(db: Kysely<unknown>): Promise<void> {
  await scoped(db.schema.createTable('idempotency_keys'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['merchant_id', 'environment', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}

/** Checkout sessions, payment links and payment intents: one shape. */
async function createFlows(db: Kysely<unknown>): Promise<void> {
  for (const table of ['checkout_sessions', 'payment_links', 'payment_intents']) {
    await scoped(db.schema.createTable(table))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['merchant_id', 'environment', 'id'])
      .execute();
  }
}

/** Payment plans and the payments billed under them. */
async function createPlans(db: Kysely<unknown>): Promise<void> {
  await scoped(db.schema.createTable('payment_plans'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('merchant_customer_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_value', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_billing_at', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_plans_pk', ['merchant_id', 'environment', 'id'])
    .execute();
  await db.schema
    .createIndex('payment_plans_created')
    .on('payment_plans')
    .columns(['merchant_id', 'environment', 'created_at'])
    .execute();
  await db.schema
    .createIndex('payment_plans_customer')
    .on('payment_plans')
    .columns(['merchant_id', 'environment', 'customer_id'])
    .execute();

  await scoped(db.schema.createTable('plan_payments'))
    .addColumn('plan_id', 'text', (c) => c.notNull())
    .addColumn('pay_id', 'text', (c) => c.notNull())
    .addColumn('billing_date', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('plan_payments_pk', ['merchant_id', 'environment', 'plan_id', 'pay_id'])
    .execute();
}

/** Customers, their stored payment methods, and the cards' pseudo numbers. */
async function createCustomersAndCards(db: Kysely<unknown>): Promise<void> {
  await scoped(db.schema.createTable('customers'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('merchant_customer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customers_pk', ['merchant_id', 'environment', 'id'])
    .addUniqueConstraint('customers_merchant_customer_id', ['merchant_id', 'environment', 'merchant_customer_id'])
    .execute();

  await scoped(db.schema.createTable('payment_methods'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('pseudo_number', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_methods_pk', ['merchant_id', 'environment', 'id'])
    .addUniqueConstraint('payment_methods_card', ['merchant_id', 'environment', 'customer_id', 'pseudo_number'])
    .execute();

  await scoped(db.schema.createTable('pseudo_numbers'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('pseudo_number', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pseudo_numbers_pk', ['merchant_id', 'environment', 'fingerprint'])
    .addUniqueConstraint('pseudo_numbers_token', ['merchant_id', 'environment', 'pseudo_number'])
    .execute();
}

export const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<unknown>) {
      await createSettingsAndMerchants(db);
      await createPayments(db);
      await createIdempotencyKeys(db);
      await createFlows(db);
      await createPlans(db);
      await createCustomersAndCards(db);
    },
  },
  '0002_webhook_deliveries': {
    async up(db: Kysely<unknown>) {
      await scoped(db.schema.createTable('webhook_deliveries'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('pay_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_deliveries_pk', ['merchant_id', 'environment', 'id'])
        .execute();
      // The deliverer's question: which PENDING deliveries are due.
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
    },
  },
  '0003_test_clocks': {
    async up(db: Kysely<unknown>) {
      // One clock per scope: how far it was advanced past the wall clock.
      await scoped(db.schema.createTable('clocks'))
        .addColumn('offset_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('clocks_pk', ['merchant_id', 'environment'])
        .execute();
      // What falls due on a clock: DELAYED captures and plan billings (null: never).
      await db.schema.alterTable('payments').addColumn('capture_at', 'text').execute();
      await db.schema.createIndex('payments_capture_due').on('payments').columns(['capture_at']).execute();
      await db.schema.alterTable('payment_plans').addColumn('billing_due_at', 'text').execute();
      await db.schema
        .createIndex('payment_plans_billing_due')
        .on('payment_plans')
        .columns(['billing_due_at'])
        .execute();
    },
  },
  '0004_secrets_out_of_the_database': {
    async up(db: Kysely<unknown>) {
      // The token-signing and card-fingerprint keys are derived from the sandbox secret, outside the
      // database: the copies an earlier version kept here would let a copied file forge tokens and
      // try card numbers against their fingerprints.
      await sql`delete from settings where name in ('jwt-signing-key', 'pseudo-number-key')`.execute(db);
    },
  },
  '0005_example_scopes': {
    async up(db: Kysely<unknown>) {
      // The scopes that were given the contract's examples: a reset brings theirs back.
      await scoped(db.schema.createTable('example_scopes'))
        .addPrimaryKeyConstraint('example_scopes_pk', ['merchant_id', 'environment'])
        .execute();
    },
  },
  '0006_webhook_retention': {
    async up(db: Kysely<unknown>) {
      // When a delivery ended (DELIVERED or DEAD): its retention counts from then. Rows that ended
      // before this migration count from their last schedule.
      await db.schema.alterTable('webhook_deliveries').addColumn('finished_at', 'text').execute();
      await sql`update webhook_deliveries set finished_at = next_attempt_at where status <> 'PENDING'`.execute(db);
      await db.schema
        .createIndex('webhook_deliveries_finished')
        .on('webhook_deliveries')
        .columns(['status', 'finished_at'])
        .execute();
    },
  },
  '0007_webhook_listeners': {
    async up(db: Kysely<unknown>) {
      // The merchants' connected `listen` clients (a row lives while its client polls), and which
      // listener's claim holds a delivery.
      await scoped(db.schema.createTable('webhook_listeners'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_listeners_pk', ['merchant_id', 'environment', 'id'])
        .execute();
      await db.schema.alterTable('webhook_deliveries').addColumn('claim_token', 'text').execute();
    },
  },
  '0008_explicit_seeding': {
    async up(db: Kysely<unknown>) {
      // A reset gives the contract's examples only when asked (admin API 2.0.0): no scope is marked.
      await db.schema.dropTable('example_scopes').execute();
    },
  },
  '0009_snapshots': {
    async up(db: Kysely<unknown>) {
      // Snapshots live in the database, so that any process of a team restores what another took.
      await db.schema
        .createTable('snapshots')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text')
        .addColumn('environment', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('counts', 'text', (c) => c.notNull())
        .addColumn('merchants', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
    },
  },
};
