// Every operation of the contract and its handler. `satisfies Record<OperationId, Handler>`: an
// operation added to the contract without a handler is a compile error (and app.ts refuses to start).
import type { OperationId } from '../../../generated/operations.js';
import type { Authenticator } from '../auth.js';
import type { Handler } from '../pipeline.js';
import { customerHandlers } from './customers.js';
import { intentHandlers } from './intents.js';
import { paymentHandlers } from './payments.js';
import { planHandlers } from './plans.js';
import { serviceHandlers } from './services.js';
import { tokenHandlers } from './token.js';

export function createHandlers(auth: Authenticator): Record<OperationId, Handler> {
  return {
    ...tokenHandlers(auth),
    ...paymentHandlers,
    ...intentHandlers,
    ...planHandlers,
    ...customerHandlers,
    ...serviceHandlers,
  } satisfies Record<OperationId, Handler>;
}
