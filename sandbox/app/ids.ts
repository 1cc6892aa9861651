// Identifiers of the sandbox, shaped like the contract's examples: 32 hex digits for payments and
// operations (`2f0c5a8e4b7d4e1f9a3c6b2d8e0f1a7c`), a ULID for plans (`pp_01JD8Z3K6Q2W9X7Y5V4T3S2R1P`),
// short prefixed hex for the rest (`cus_8f2d6a1b3c9e4d7f`).
import type { IdKind } from '../domain/context.js';
import { randomBytes } from './random.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48 bits of milliseconds, 80 random bits, Crockford base32 (26 characters, sortable by time). */
function ulid(now: number): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = randomBytes(16);
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[random[i]! % 32];
  return time + rest;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * 32 hex digits as in the contract's examples, time-ordered like a UUIDv7: 12 digits of
 * milliseconds, then 20 random. New rows then land at the end of the indexes, which keeps a
 * commit's pages few (the sandbox's throughput depends on it), and ids still reveal nothing guessable.
 */
function timeOrderedHex(ms: number): string {
  return ms.toString(16).padStart(12, '0').slice(-12) + hex(10);
}
const PREFIXES: Partial<Record<IdKind, string>> = {
  session: 'cs_',
  link: 'pl_',
  intent: 'pi_',
  customer: 'cus_',
  paymentMethod: 'pm_',
  pseudoNumber: 'pn_',
  quote: 'dq_',
};

export function newId(kind: IdKind, now: Date = new Date()): string {
  switch (kind) {
    case 'payment':
    case 'operation':
      return timeOrderedHex(now.getTime());
    case 'plan':
      return `pp_${ulid(now.getTime())}`;
    case 'trace':
      return `00-${hex(16)}-${hex(8)}-01`; // W3C traceparent, as the contract's examples
    case 'pseudoNumber':
      return `pn_${hex(12)}`;
    default:
      return `${PREFIXES[kind] ?? ''}${hex(8)}`;
  }
}
