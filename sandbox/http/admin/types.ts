// What the admin API's handlers are given: the sandbox's parts (AdminDeps) and a validated request.

import type { operations } from '../../../generated/admin/types.js';
import type { TestClocks } from '../../app/clock.js';
import type { Listeners } from '../../app/listeners.js';
import type { SandboxSecrets } from '../../app/secrets.js';
import type { ExampleDeps } from '../../app/seed.js';
import type { Merchant } from '../../domain/types.js';
import type { Store } from '../../store/store.js';
import type { AuthResult } from '../auth.js';
import type { RequestHeaders } from '../exchange.js';
import type { BodyOf, ParametersOf, Reply } from '../pipeline.js';
import type { ProblemInput } from '../problems.js';
import type { AdminDocument, AdminOperationId } from './document.js';

export interface AdminDeps {
  /** The admin key: `Authorization: Bearer <key>`. */
  key: string;
  store: Store;
  clocks: TestClocks;
  /** The keys derived from the sandbox secret (a rotated API key's digest). */
  secrets: SandboxSecrets;
  /** After a resend: the deliverer looks at the outbox at once. */
  onWebhookQueued(): void;
  /** Forgets this process's verified credentials of a merchant (all without one) after they changed. */
  forgetCredentials(merchantId?: string): void;
  /** What the contract's examples are made from (seedExamples, and a reset of scopes that had them). */
  examples: ExampleDeps;
  /** The merchants' listeners (`npm run sandbox -- listen`). */
  listeners: Listeners;
  /** A merchant's HTTP Basic credentials checked as the merchant roots check them (the listener operations'). */
  authenticateMerchant(headers: RequestHeaders): Promise<AuthResult>;
  /** The admin API's document (sandbox/admin/openapi.yaml), prepared. */
  document: AdminDocument;
}

/** A request of the admin operation `Id`, validated: its parameters and body have the operation's types. */
export interface AdminRequest<Id extends AdminOperationId = AdminOperationId> {
  path: ParametersOf<operations[Id], 'path'>;
  query: ParametersOf<operations[Id], 'query'>;
  body: BodyOf<operations[Id]>;
  problem(status: number, input: ProblemInput): Reply;
  /** The merchant whose credentials a listener operation was called with (undefined for the others). */
  merchant: Merchant | undefined;
  /** Aborts when the client goes away before the answer (a long poll stops waiting). */
  signal: AbortSignal;
}

export type AdminHandler<Id extends AdminOperationId> = (request: AdminRequest<Id>) => Promise<Reply>;

/** The handlers of some admin operations, each typed by its operation. */
export type AdminHandlersOf<Ids extends AdminOperationId> = { [Id in Ids]: AdminHandler<Id> };

/** A handler per admin operation. */
export type AdminHandlers = AdminHandlersOf<AdminOperationId>;
