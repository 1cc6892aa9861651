// Every operation of the contract and its handler, typed by its operation. `satisfies Handlers`: an
// operation added to the contract without a handler is a compile error (and app.ts refuses to start).
import type { Authenticator } from '../auth.js';
import type { Handlers } from '../pipeline.js';
import { customerHandlers } from './customers.js';
import { intentHandlers } from './intents.js';
import { paymentHandlers } from './payments.js';
import { planHandlers } from './plans.js';
import { serviceHandlers } from './services.js';
import { tokenHandlers } from './token.js';

export function createHandlers(auth: Authenticator): Handlers {
  return {
    ...tokenHandlers(auth),
    ...paymentHandlers,
    ...intentHandlers,
    ...planHandlers,
    ...customerHandlers,
    ...serviceHandlers,
  } satisfies Handlers;
}
