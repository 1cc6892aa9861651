// The contract as vitest's global setup bundled it from openapi/, and JSON types for tests.
// Walking it (operations, $refs, pointers): tooling/openapi/walker.ts.
import { inject } from 'vitest';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function loadBundle(): JsonObject {
  return inject('bundle') as JsonObject;
}
