// house-operation-documented: every operation, webhooks included (Spectral's own
// operation-* rules look at `paths` only), has non-empty `tags`, `summary` and `description`.
// One result per operation: Spectral drops a second result with the same rule and path.
import { operations } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const nonEmpty = (s: unknown) => typeof s === 'string' && s.trim() !== '';

const houseOperationDocumented: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  for (const { operation, tokens } of operations(doc)) {
    const missing: string[] = [];
    if (!Array.isArray(operation.tags) || operation.tags.length === 0 || !operation.tags.every(nonEmpty))
      missing.push('tags');
    if (!nonEmpty(operation.summary)) missing.push('summary');
    if (!nonEmpty(operation.description)) missing.push('description');
    if (missing.length > 0) {
      const id = operation.operationId ? ` ${operation.operationId}` : '';
      results.push({ message: `Operation${id} lacks non-empty ${missing.join(', ')}.`, path: tokens });
    }
  }
  return results;
};
export default houseOperationDocumented;
