// house-camel-case-operation-id: operationIds become method names in generated clients.
import { operations } from './_oas.js';

const CAMEL = /^[a-z][a-zA-Z0-9]*$/;

export default function houseCamelCaseOperationId(doc) {
  const results = [];
  for (const { operation, path } of operations(doc)) {
    const id = operation.operationId;
    if (typeof id !== 'string' || !CAMEL.test(id)) {
      results.push({
        message: id === undefined ? 'Operation has no operationId.' : `operationId "${id}" is not camelCase (${CAMEL}).`,
        path: id === undefined ? path : [...path, 'operationId'],
      });
    }
  }
  return results;
}
