// house-bounded-strings: a string schema (parameters' and headers' schemas included) says what
// it may hold, with at least one of enum, const, pattern, format, maxLength; or it is an
// anyOf/oneOf whose every branch is bounded (or not a string).
import { walkSchemas, deref, typesOf, isObj } from './_oas.js';

const BOUNDS = ['enum', 'const', 'pattern', 'format', 'maxLength'];

function bounded(doc, schema, depth = 0) {
  const { node } = deref(doc, schema, []);
  if (!isObj(node) || depth > 8) return true;
  if (BOUNDS.some((k) => node[k] !== undefined)) return true;
  // allOf: one branch that carries a bound narrows the whole schema
  if ((node.allOf ?? []).some((b) => hasBound(doc, b))) return true;
  const alts = [...(node.anyOf ?? []), ...(node.oneOf ?? [])];
  if (alts.length > 0 && alts.every((b) => notString(doc, b) || bounded(doc, b, depth + 1))) return true;
  return false;
}
function hasBound(doc, b) {
  const { node } = deref(doc, b, []);
  return isObj(node) && BOUNDS.some((k) => node[k] !== undefined);
}
function notString(doc, b) {
  const t = typesOf(deref(doc, b, []).node);
  return t.length > 0 && !t.includes('string');
}

export default function houseBoundedStrings(doc) {
  const results = [];
  walkSchemas(doc, (schema, path) => {
    if (!typesOf(schema).includes('string')) return;
    if (!bounded(doc, schema)) {
      results.push({
        message: 'String schema must carry enum, const, pattern, format or maxLength (or be an anyOf/oneOf of bounded branches).',
        path,
      });
    }
  });
  return results;
}
