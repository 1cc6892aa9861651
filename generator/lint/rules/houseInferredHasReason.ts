// house-inferred-has-reason: what the contract INFERRED (the interface document is silent) is
// never presented as documented, nor the reverse.
//  - `x-provenance` may only be `inferred` (documented is the default and is left unmarked);
//  - an object with `x-provenance: inferred` has a description starting with "Inferred:";
//  - a description starting with "Inferred:" needs `x-provenance: inferred` on the same object;
//  - a `required` the contract chose on a documented schema (`x-inferred-constraints: [required]`)
//    says why in `x-inferred-reason`, which stands nowhere else.
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
    const constraints = node['x-inferred-constraints'];
    const requiredInferred = Array.isArray(constraints) && constraints.includes('required');
    const reason = node['x-inferred-reason'];
    if (requiredInferred && (typeof reason !== 'string' || reason.trim() === '')) {
      results.push({
        message: 'x-inferred-constraints lists `required`: say why those fields are always there in x-inferred-reason.',
        path: [...path, 'x-inferred-constraints'],
      });
    }
    if (reason !== undefined && !requiredInferred) {
      results.push({
        message: 'x-inferred-reason gives the reason for an inferred `required`: list it in x-inferred-constraints.',
        path: [...path, 'x-inferred-reason'],
      });
    }
  });
  return results;
};
export default houseInferredHasReason;
