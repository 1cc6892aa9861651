// What a use case runs with: whose data it is (scope, merchant), the domain's context at one moment
// (the scope's time, ids minted at it, the contract's tables), and the installation's keyed hash of
// card numbers. Requests, the hosted page and the test clock each make one.
import type { ContractTables } from '../contract/contract.js';
import type { DomainContext } from '../domain/context.js';
import type { Merchant, Scope } from '../domain/types.js';
import { newId } from './ids.js';

export interface AppContext {
  readonly scope: Scope;
  readonly merchant: Merchant;
  readonly domain: DomainContext;
  /** Keyed hash of a card number or IBAN (the key is the installation's, shared through the store). */
  fingerprint(text: string): string;
}

/** The domain's context at `now`: the time, ids minted at it, and the contract's tables. */
export const domainContextAt = (now: Date, tables: ContractTables): DomainContext => ({
  now,
  newId: (kind) => newId(kind, now),
  ...tables,
});

/** The context of work the sandbox does on its own account (the hosted page's decision, the clock's due work). */
export function appContextAt(
  now: Date,
  merchant: Merchant,
  scope: Scope,
  deps: { tables: ContractTables; fingerprint: (text: string) => string },
): AppContext {
  return { scope, merchant, domain: domainContextAt(now, deps.tables), fingerprint: deps.fingerprint };
}
