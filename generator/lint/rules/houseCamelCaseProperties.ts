// house-camel-case-properties: every schema property name is camelCase; a leading underscore is
// admitted for HAL's `_links`/`_embedded`.
//
// Exception: a schema carrying `x-naming: rfc6749` keeps the OAuth 2.0 wire names fixed by
// RFC 6749 (`grant_type`, `access_token`, `token_type`, `expires_in`, `error_description`).
// Spectral `overrides` match by source file, and Spectral lints the single-file BUNDLE, so a
// file-based override cannot reach those schemas; the vendor extension travels with the schema.
// It exempts only that schema's own `properties`, not nested inline schemas.
import { isObject, walkSchemas } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const CAMEL = /^_?[a-z][a-zA-Z0-9]*$/;

const houseCamelCaseProperties: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  walkSchemas(doc, (schema, path) => {
    if (!isObject(schema.properties) || schema['x-naming'] === 'rfc6749') return;
    for (const name of Object.keys(schema.properties)) {
      if (!CAMEL.test(name)) {
        results.push({
          message: `Property name "${name}" is not camelCase (${CAMEL}); mark RFC 6749 wire schemas with x-naming: rfc6749.`,
          path: [...path, 'properties', name],
        });
      }
    }
  });
  return results;
};
export default houseCamelCaseProperties;
