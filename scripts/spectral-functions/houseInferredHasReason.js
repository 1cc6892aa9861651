// house-inferred-has-reason: what the contract INFERRED (the interface document is silent) is
// never presented as documented, nor the reverse.
//  - `x-provenance` may only be `inferred` (documented is the default and is left unmarked);
//  - an object with `x-provenance: inferred` has a description starting with "Inferred:";
//  - a description starting with "Inferred:" needs `x-provenance: inferred` on the same object.
// Example payloads (example, examples[].value, default, enum, const) are data and are skipped.
import { isObj } from './_oas.js';

const DATA_KEYS = new Set(['example', 'default', 'enum', 'const']);
// Maps whose keys are names (a property called `default`, the `default` response), not keywords.
const NAME_MAPS = new Set([
  'properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'paths', 'webhooks',
  'schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'securitySchemes', 'links',
  'callbacks', 'pathItems', 'content', 'encoding', 'variables', 'mapping',
]);

export default function houseInferredHasReason(doc) {
  const results = [];
  const visit = (node, path) => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => visit(v, [...path, i]));
      return;
    }
    if (!isObj(node)) return;
    const prov = node['x-provenance'];
    const desc = typeof node.description === 'string' ? node.description.trimStart() : undefined;
    if (prov !== undefined && prov !== 'inferred') {
      results.push({ message: `x-provenance must be "inferred" (got ${JSON.stringify(prov)}); documented items carry no x-provenance.`, path: [...path, 'x-provenance'] });
    }
    if (prov === 'inferred' && !(desc ?? '').startsWith('Inferred:')) {
      results.push({ message: 'Item marked x-provenance: inferred needs a description starting with "Inferred:" that gives the reason.', path: desc === undefined ? path : [...path, 'description'] });
    }
    if (prov !== 'inferred' && desc?.startsWith('Inferred:')) {
      results.push({ message: 'Description starts with "Inferred:" but the item lacks x-provenance: inferred.', path: [...path, 'description'] });
    }
    const isNameMap = NAME_MAPS.has(path.at(-1));
    for (const [k, v] of Object.entries(node)) {
      if (DATA_KEYS.has(k) && !isNameMap) continue;
      if (k === 'examples' && Array.isArray(v) && !isNameMap) continue; // JSON Schema examples: data
      if (k === 'examples' && isObj(v) && !isNameMap) {
        // Example Objects: their metadata is contract, their `value` is data
        for (const [name, ex] of Object.entries(v)) {
          if (isObj(ex)) visit(Object.fromEntries(Object.entries(ex).filter(([kk]) => kk !== 'value')), [...path, k, name]);
        }
        continue;
      }
      visit(v, [...path, k]);
    }
  };
  visit(doc, []);
  return results;
}
