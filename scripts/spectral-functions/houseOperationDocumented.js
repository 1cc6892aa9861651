// house-operation-documented: every operation, webhooks included (Spectral's own
// operation-* rules look at `paths` only), has non-empty `tags`, `summary` and `description`.
// One result per operation: Spectral drops a second result with the same rule and path.
import { operations } from './_oas.js';

const nonEmpty = (s) => typeof s === 'string' && s.trim() !== '';

export default function houseOperationDocumented(doc) {
  const results = [];
  for (const { operation, path } of operations(doc)) {
    const missing = [];
    if (!Array.isArray(operation.tags) || operation.tags.length === 0 || !operation.tags.every(nonEmpty)) missing.push('tags');
    for (const field of ['summary', 'description']) if (!nonEmpty(operation[field])) missing.push(field);
    if (missing.length > 0) {
      const id = operation.operationId ? ` ${operation.operationId}` : '';
      results.push({ message: `Operation${id} lacks non-empty ${missing.join(', ')}.`, path });
    }
  }
  return results;
}
