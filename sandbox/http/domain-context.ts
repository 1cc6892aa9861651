// What the HTTP layer hands the state machines for one moment: the time, ids minted at it, and the
// contract's tables. Requests, the hosted page and the test clock all make it here.
import type { DomainContext } from '../domain/context.js';
import type { Contract } from './contract.js';
import { newId } from './ids.js';

export const domainContextAt = (now: Date, tables: Contract['tables']): DomainContext => ({ now, newId: (kind) => newId(kind, now), ...tables });
