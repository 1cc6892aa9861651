// house-camel-case-operation-id: operationIds become method names in generated clients.
import { operations } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const CAMEL = /^[a-z][a-zA-Z0-9]*$/;

const houseCamelCaseOperationId: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  for (const { operation, tokens } of operations(doc)) {
    const id = operation.operationId;
    if (typeof id !== 'string' || !CAMEL.test(id)) {
      results.push({
        message:
          id === undefined ? 'Operation has no operationId.' : `operationId "${id}" is not camelCase (${CAMEL}).`,
        path: id === undefined ? tokens : [...tokens, 'operationId'],
      });
    }
  }
  return results;
};
export default houseCamelCaseOperationId;
