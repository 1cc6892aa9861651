/**
 * `members` without those whose value is undefined. For the few places where an absent key and a
 * key holding undefined differ: an options object whose present keys override defaults, keys that
 * are enumerated, compared or stored. Everywhere else `{ key: value }` with an optional value is
 * what TypeScript and JSON already treat as absent.
 */
export function definedMembers<T extends Record<string, unknown>>(
  members: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(members)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
