// house-bounded-strings: a string schema (parameters' and headers' schemas included) says what
// it may hold, with at least one of enum, const, pattern, format, maxLength; or it is an
// anyOf/oneOf whose every branch is bounded (or not a string).
import { derefLenient, isObject, type JsonObject, schemaTypes, walkSchemas } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const BOUNDS = ['enum', 'const', 'pattern', 'format', 'maxLength'];
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const houseBoundedStrings: HouseRule = (doc) => {
  const node = (schema: unknown) => derefLenient<unknown>(doc, schema);
  const hasBound = (schema: unknown) => {
    const s = node(schema);
    return isObject(s) && BOUNDS.some((k) => s[k] !== undefined);
  };
  const notString = (schema: unknown) => {
    const types = schemaTypes(node(schema));
    return types.length > 0 && !types.includes('string');
  };
  const bounded = (schema: unknown, depth = 0): boolean => {
    const s = node(schema);
    if (!isObject(s) || depth > 8) return true;
    if (hasBound(s)) return true;
    // allOf: one branch that carries a bound narrows the whole schema
    if (list(s.allOf).some(hasBound)) return true;
    const alternatives = [...list(s.anyOf), ...list(s.oneOf)];
    return alternatives.length > 0 && alternatives.every((b) => notString(b) || bounded(b, depth + 1));
  };

  const results: ReturnType<HouseRule> = [];
  walkSchemas(doc, (schema, path) => {
    if (!schemaTypes(schema).includes('string')) return;
    if (!bounded(schema as JsonObject)) {
      results.push({
        message:
          'String schema must carry enum, const, pattern, format or maxLength (or be an anyOf/oneOf of bounded branches).',
        path,
      });
    }
  });
  return results;
};
export default houseBoundedStrings;
