// house-money-integer: money travels as an integer count of minor units (cents), never as a
// float. Checked: schema properties named `value`, `amount`, `price` or `discount`, or ending
// in `Amount`, `Price`, `Total` or `Discount` (`taxTotal`, `grossDiscount`, `netShippingAmount`…),
// and the query parameters `Amount`, `AmountFrom`, `AmountTo`. A bare `total` is NOT money: the
// interface document uses it for counts (`installments.total` = number of installments).
// A property whose resolved schema is an object or array (e.g. `amount: {$ref: Amount}`) or a
// string/boolean is not a number and is skipped; a numeric or untyped scalar must say
// `type: integer`.
import { walkSchemas, operations, deref, typesOf, isObj } from './_oas.js';

const MONEY_PROPERTY = /^(value|amount|price|discount)$|(Amount|Price|Total|Discount)$/;
const MONEY_PARAM = /^Amount(From|To)?$/;
const NON_NUMERIC = new Set(['object', 'array', 'string', 'boolean']);

/** Why `schema` breaks the rule, or null when it is fine or not numeric. */
function problem(doc, schema, depth = 0) {
  const { node } = deref(doc, schema, []);
  if (!isObj(node) || depth > 8) return null;
  const types = typesOf(node).filter((t) => t !== 'null');
  if (types.some((t) => NON_NUMERIC.has(t))) return null;
  if (types.length === 0 && (node.properties || node.items || node.prefixItems)) return null;
  const branches = [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])];
  if (types.length === 0 && branches.length > 0) {
    // all branches must be fine; allOf with one integer branch is enough
    if ((node.allOf ?? []).some((b) => typesOf(deref(doc, b, []).node).includes('integer'))) return null;
    for (const b of branches) {
      const p = problem(doc, b, depth + 1);
      if (p) return p;
    }
    return null;
  }
  if (types.includes('number')) return 'is `number`; money must be `type: integer` (minor units)';
  if (types.length === 0) return 'has no type; money must be `type: integer` (minor units)';
  return null; // integer
}

export default function houseMoneyInteger(doc) {
  const results = [];
  walkSchemas(doc, (schema, path) => {
    if (!isObj(schema.properties)) return;
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (!MONEY_PROPERTY.test(name)) continue;
      const why = problem(doc, prop);
      if (why) results.push({ message: `Money property "${name}" ${why}.`, path: [...path, 'properties', name] });
    }
  });
  const seen = new Set();
  const param = (p, path) => {
    const { node, path: where } = deref(doc, p, path);
    if (!isObj(node) || node.in !== 'query' || !MONEY_PARAM.test(node.name ?? '')) return;
    const key = JSON.stringify(where);
    if (seen.has(key)) return;
    seen.add(key);
    const why = problem(doc, node.schema ?? {});
    if (why) results.push({ message: `Money query parameter "${node.name}" ${why}.`, path: [...where, 'schema'] });
  };
  for (const { operation, path, pathItem } of operations(doc)) {
    (pathItem.parameters ?? []).forEach((p, i) => param(p, [...path.slice(0, -1), 'parameters', i]));
    (operation.parameters ?? []).forEach((p, i) => param(p, [...path, 'parameters', i]));
  }
  if (isObj(doc.components?.parameters)) {
    for (const [k, p] of Object.entries(doc.components.parameters)) param(p, ['components', 'parameters', k]);
  }
  return results;
}
