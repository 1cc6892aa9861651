// house-money-integer: money travels as an integer count of minor units (cents), never as a
// float. Checked: schema properties named `value`, `amount`, `price` or `discount`, or ending
// in `Amount`, `Price`, `Total` or `Discount` (`taxTotal`, `grossDiscount`, `netShippingAmount`…),
// and the query parameters `Amount`, `AmountFrom`, `AmountTo`. A bare `total` is NOT money: the
// interface document uses it for counts (`installments.total` = number of installments).
// A property whose resolved schema is an object or array (e.g. `amount: {$ref: Amount}`) or a
// string/boolean is not a number and is skipped; a numeric or untyped scalar must say
// `type: integer`.
import {
  componentsOf,
  isObject,
  operations,
  type PointerTokens,
  schemaTypes,
  tryResolve,
  walkSchemas,
} from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const MONEY_PROPERTY = /^(value|amount|price|discount)$|(Amount|Price|Total|Discount)$/;
const MONEY_PARAM = /^Amount(From|To)?$/;
const NON_NUMERIC = new Set(['object', 'array', 'string', 'boolean']);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const houseMoneyInteger: HouseRule = (doc) => {
  /** The node a reference stands for, with where it lives; an unresolvable one is Redocly's to report. */
  const lookup = (node: unknown, at: PointerTokens = []) =>
    tryResolve<unknown>(doc, node, at) ?? { node: undefined, tokens: undefined };
  /** Why `schema` breaks the rule, or null when it is fine or not numeric. */
  const problem = (schema: unknown, depth = 0): string | null => {
    const { node } = lookup(schema);
    if (!isObject(node) || depth > 8) return null;
    const types = schemaTypes(node).filter((t) => t !== 'null');
    if (types.some((t) => NON_NUMERIC.has(t))) return null;
    if (types.length === 0 && (node.properties || node.items || node.prefixItems)) return null;
    const branches = [...list(node.allOf), ...list(node.anyOf), ...list(node.oneOf)];
    if (types.length === 0 && branches.length > 0) {
      // all branches must be fine; allOf with one integer branch is enough
      if (list(node.allOf).some((b) => schemaTypes(lookup(b).node).includes('integer'))) return null;
      for (const b of branches) {
        const p = problem(b, depth + 1);
        if (p) return p;
      }
      return null;
    }
    if (types.includes('number')) return 'is `number`; money must be `type: integer` (minor units)';
    if (types.length === 0) return 'has no type; money must be `type: integer` (minor units)';
    return null; // integer
  };

  const results: ReturnType<HouseRule> = [];
  walkSchemas(doc, (schema, path) => {
    if (!isObject(schema.properties)) return;
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!MONEY_PROPERTY.test(name)) continue;
      const why = problem(property);
      if (why) results.push({ message: `Money property "${name}" ${why}.`, path: [...path, 'properties', name] });
    }
  });
  const seen = new Set<string>();
  const parameter = (raw: unknown, at: PointerTokens) => {
    const { node, tokens } = lookup(raw, at);
    if (!isObject(node) || node.in !== 'query' || !MONEY_PARAM.test(String(node.name ?? ''))) return;
    const where = tokens ?? at;
    const key = JSON.stringify(where);
    if (seen.has(key)) return;
    seen.add(key);
    const why = problem(node.schema ?? {});
    if (why)
      results.push({ message: `Money query parameter "${String(node.name)}" ${why}.`, path: [...where, 'schema'] });
  };
  for (const { operation, pathItem, tokens } of operations(doc)) {
    list(pathItem.parameters).forEach((p, i) => parameter(p, [...tokens.slice(0, -1), 'parameters', i]));
    list(operation.parameters).forEach((p, i) => parameter(p, [...tokens, 'parameters', i]));
  }
  for (const [name, p] of Object.entries(componentsOf(doc, 'parameters')))
    parameter(p, ['components', 'parameters', name]);
  return results;
};
export default houseMoneyInteger;
