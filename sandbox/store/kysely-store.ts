// The store on Kysely: one implementation of store.ts for SQLite and PostgreSQL, on the dialect
// that index.ts opened.
import type { StoreDialect } from './dialect.js';
import {
  advancedClocks,
  housekeeping,
  idempotencyStore,
  merchantsRepository,
  paymentDocuments,
  paymentStatements,
  repositoriesOn,
  setting,
  webhookListeners,
  webhookOutbox,
} from './repositories/index.js';
import type { Store } from './store.js';

/**
 * The Store on a migrated database. The dialect's `reader` (on a SQLite file: a second connection,
 * else the writer's) serves the reads outside transactions (GET's document, the claim's look-up),
 * which WAL lets run beside the writer, so that they never wait for a commit.
 */
export function kyselyStore(dialect: StoreDialect): Store {
  const payments = paymentStatements(dialect);
  const documents = dialect.documents(paymentDocuments(dialect, payments));
  return {
    dialect: dialect.name,
    location: dialect.location,
    transaction: dialect.transactions(repositoriesOn(dialect, payments)),
    paymentDocument: documents.paymentDocument,
    paymentDocumentByTransId: documents.paymentDocumentByTransId,
    idempotency: idempotencyStore(dialect),
    webhooks: webhookOutbox(dialect),
    listeners: webhookListeners(dialect),
    housekeeping: housekeeping(dialect),
    merchants: merchantsRepository(dialect),
    clocks: advancedClocks(dialect),
    setting: setting(dialect),
    close: () => dialect.close(),
  };
}
