// What the repositories of one transaction share.
import type { Db, PaymentWrites, StoreDialect } from '../dialect.js';

export interface Context {
  /** The transaction (on SQLite, the group-commit batch's, whose transactions run one after another). */
  readonly db: Db;
  readonly dialect: StoreDialect;
  /** Hears of the payments written (see PaymentWrites); none where no cache listens. */
  readonly written: PaymentWrites | undefined;
}
