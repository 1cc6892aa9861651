// house-inferred-has-reason: what the contract INFERRED (the interface document is silent) is
// never presented as documented, nor the reverse.
//  - `x-provenance` may only be `inferred` (documented is the default and is left unmarked);
//  - an object with `x-provenance: inferred` has a description starting with "Inferred:";
//  - a description starting with "Inferred:" needs `x-provenance: inferred` on the same object.
// Example payloads (example, examples[].value, default, enum, const) are data: the walker skips them.
import { walkObjects } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const houseInferredHasReason: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  walkObjects(doc, (node, path) => {
    const provenance = node['x-provenance'];
    const description = typeof node.description === 'string' ? node.description.trimStart() : undefined;
    if (provenance !== undefined && provenance !== 'inferred') {
      results.push({
        message: `x-provenance must be "inferred" (got ${JSON.stringify(provenance)}); documented items carry no x-provenance.`,
        path: [...path, 'x-provenance'],
      });
    }
    if (provenance === 'inferred' && !(description ?? '').startsWith('Inferred:')) {
      results.push({
        message:
          'Item marked x-provenance: inferred needs a description starting with "Inferred:" that gives the reason.',
        path: description === undefined ? path : [...path, 'description'],
      });
    }
    if (provenance !== 'inferred' && description?.startsWith('Inferred:')) {
      results.push({
        message: 'Description starts with "Inferred:" but the item lacks x-provenance: inferred.',
        path: [...path, 'description'],
      });
    }
  });
  return results;
};
export default houseInferredHasReason;
