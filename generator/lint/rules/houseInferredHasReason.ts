// house-inferred-has-reason: what the contract INFERRED (the interface document is silent) is
// never presented as documented, nor the reverse.
//  - `x-provenance` may only be `inferred` (documented is the default and is left unmarked);
//  - an object with `x-provenance: inferred` has a description starting with "Inferred:";
//  - a description starting with "Inferred:" needs `x-provenance: inferred` on the same object.
// Example payloads (example, examples[].value, default, enum, const) are data and are skipped.
import { isObject } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const DATA_KEYS = new Set(['example', 'default', 'enum', 'const']);
// Maps whose keys are names (a property called `default`, the `default` response), not keywords.
const NAME_MAPS = new Set([
  'properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'paths', 'webhooks',
  'schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'securitySchemes', 'links',
  'callbacks', 'pathItems', 'content', 'encoding', 'variables', 'mapping',
]);

const houseInferredHasReason: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => visit(v, [...path, i]));
      return;
    }
    if (!isObject(node)) return;
    const provenance = node['x-provenance'];
    const description = typeof node.description === 'string' ? node.description.trimStart() : undefined;
    if (provenance !== undefined && provenance !== 'inferred') {
      results.push({ message: `x-provenance must be "inferred" (got ${JSON.stringify(provenance)}); documented items carry no x-provenance.`, path: [...path, 'x-provenance'] });
    }
    if (provenance === 'inferred' && !(description ?? '').startsWith('Inferred:')) {
      results.push({ message: 'Item marked x-provenance: inferred needs a description starting with "Inferred:" that gives the reason.', path: description === undefined ? path : [...path, 'description'] });
    }
    if (provenance !== 'inferred' && description?.startsWith('Inferred:')) {
      results.push({ message: 'Description starts with "Inferred:" but the item lacks x-provenance: inferred.', path: [...path, 'description'] });
    }
    const isNameMap = NAME_MAPS.has(String(path.at(-1)));
    for (const [k, v] of Object.entries(node)) {
      if (DATA_KEYS.has(k) && !isNameMap) continue;
      if (k === 'examples' && Array.isArray(v) && !isNameMap) continue; // JSON Schema examples: data
      if (k === 'examples' && isObject(v) && !isNameMap) {
        // Example Objects: their metadata is contract, their `value` is data
        for (const [name, example] of Object.entries(v)) {
          if (isObject(example)) visit(Object.fromEntries(Object.entries(example).filter(([key]) => key !== 'value')), [...path, k, name]);
        }
        continue;
      }
      visit(v, [...path, k]);
    }
  };
  visit(doc, []);
  return results;
};
export default houseInferredHasReason;
