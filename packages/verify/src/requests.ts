// Valid requests built from the contract: each operation's documented example, made this run's own
// (a fresh transId and references marked with the run id, the verifier's webhook receiver, a future expiry), and a variant of it drawn
// from the schema (the members it requires, nothing else). A variant is sent only when the
// verifier's own validator finds it inside the request schema.

import type { RunContext } from './context.js';
import type { OperationSpec } from './contract.js';

type Json = unknown;

const isPlainObject = (v: unknown): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The operation's first documented request example, or undefined. */
export function exampleOf(op: OperationSpec): Json {
  const [first] = op.body?.examples.values() ?? [];
  return first === undefined ? undefined : structuredClone(first);
}

/** An example made this run's own: transIds and references marked with the run id, webhooks to the receiver, expiries in the future. */
export function personalize(ctx: RunContext, value: Json, label: string): Json {
  if (!isPlainObject(value)) return value;
  const out: Record<string, Json> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === 'transId' && typeof member === 'string') out[key] = ctx.ref(label);
    else if ((key === 'refNr' || key === 'merchantReference') && typeof member === 'string') out[key] = ctx.ref('ref');
    else if (key === 'expirationTime' && typeof member === 'string')
      out[key] = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    else if (key === 'webhook' && typeof member === 'string' && ctx.receiver) out[key] = ctx.receiver.url;
    else out[key] = isPlainObject(member) ? personalize(ctx, member, label) : member;
  }
  return out;
}

/** The value with only the members its schema requires (at every level), per `requiredAt`. */
export function requiredOnly(
  value: Json,
  requiredAt: (path: string[]) => Set<string> | undefined,
  path: string[] = [],
): Json {
  if (!isPlainObject(value)) return value;
  const required = requiredAt(path);
  if (!required) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => required.has(k))
      .map(([k, v]) => [k, requiredOnly(v, requiredAt, [...path, k])]),
  );
}

/** The members of a JSON value, as dot paths to each leaf and object (`amount`, `amount.value`). */
export function memberPaths(value: Json, prefix: string[] = []): string[][] {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...memberPaths(v, [...prefix, k])]);
}

export function getPath(value: Json, path: readonly string[]): Json {
  return path.reduce<Json>((node, key) => (isPlainObject(node) ? node[key] : undefined), value);
}

/** A copy with the member at `path` set to `member` (removed when undefined). */
export function withPath(value: Json, path: readonly string[], member: Json): Json {
  const copy = structuredClone(value) as Record<string, Json>;
  const parent = getPath(copy, path.slice(0, -1));
  if (!isPlainObject(parent)) return copy;
  const last = path.at(-1)!;
  if (member === undefined) delete parent[last];
  else parent[last] = member;
  return copy;
}
