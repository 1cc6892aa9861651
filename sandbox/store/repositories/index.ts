// The repositories of a transaction, one file per aggregate, on a dialect.
import type { CheckoutSession, PaymentIntent, PaymentLink } from '../../domain/types.js';
import type { RepositoriesOf, StoreDialect } from '../dialect.js';
import { clocksRepository } from './clocks.js';
import type { Context } from './context.js';
import { customersRepository } from './customers.js';
import { dataRepository } from './data.js';
import { flowRepository } from './flows.js';
import { idempotencyRepository } from './idempotency.js';
import { operationStatements, operationsRepository } from './operations.js';
import { paymentMethodsRepository } from './payment-methods.js';
import { type PaymentStatements, paymentsRepository } from './payments.js';
import { planPaymentsRepository, plansRepository } from './plans.js';
import { pseudoNumbersRepository } from './pseudo-numbers.js';
import { snapshotsRepository } from './snapshots.js';
import { webhooksRepository } from './webhooks.js';

/**
 * How to make the repositories of a transaction; their hot statements are compiled here, once. On
 * SQLite a group-commit batch makes one set for all of its transactions, which run one after another.
 */
export function repositoriesOn(dialect: StoreDialect, payments: PaymentStatements): RepositoriesOf {
  const operations = operationStatements(dialect);
  return (db, written) => {
    const context: Context = { db, dialect, written };
    return {
      payments: paymentsRepository(context, payments),
      operations: operationsRepository(context, operations),
      idempotency: idempotencyRepository(context),
      sessions: flowRepository<CheckoutSession>(context, 'checkout_sessions'),
      links: flowRepository<PaymentLink>(context, 'payment_links'),
      intents: flowRepository<PaymentIntent>(context, 'payment_intents'),
      plans: plansRepository(context),
      planPayments: planPaymentsRepository(context),
      customers: customersRepository(context),
      paymentMethods: paymentMethodsRepository(context),
      pseudoNumbers: pseudoNumbersRepository(context),
      webhooks: webhooksRepository(context),
      data: dataRepository(context),
      snapshots: snapshotsRepository(context),
      clocks: clocksRepository(context),
    };
  };
}

export { advancedClocks } from './clocks.js';
export { housekeeping } from './housekeeping.js';
export { idempotencyStore } from './idempotency.js';
export { merchantsRepository } from './merchants.js';
export { paymentDocuments, paymentStatements } from './payments.js';
export { setting } from './settings.js';
export { webhookListeners } from './webhook-listeners.js';
export { webhookOutbox } from './webhooks.js';
