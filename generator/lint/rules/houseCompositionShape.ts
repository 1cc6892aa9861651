// house-composition-shape: composed schemas in the shape every mainstream generator reads alike.
//  - Beside `allOf`, only annotations, `type` and the keywords that only work beside it
//    (`unevaluatedProperties`, `discriminator`): properties, required and the other validation
//    keywords go into an allOf member of their own. Measured: openapi-zod-client drops properties
//    that stand beside allOf, and typed-openapi's zod output then fails to load.
//  - A `required` names only properties of its own schema object: a name declared only in an
//    allOf base becomes optional in typed-openapi and hey-api. Conditional branches (if/then/else,
//    not, anyOf/oneOf members) are exempt: there `required` constrains the schema they apply to.
import { isObject, walkSchemas } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const BESIDE_ALL_OF = new Set([
  'allOf',
  'type',
  'title',
  'description',
  'examples',
  'example',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'unevaluatedProperties',
  'discriminator',
]);
const CONDITIONAL = new Set(['if', 'then', 'else', 'not', 'anyOf', 'oneOf']);

const houseCompositionShape: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  walkSchemas(doc, (schema, path) => {
    if (Array.isArray(schema.allOf)) {
      for (const key of Object.keys(schema)) {
        if (!BESIDE_ALL_OF.has(key) && !key.startsWith('x-')) {
          results.push({
            message: `\`${key}\` stands beside \`allOf\`: move it into an allOf member of its own (generators drop what stands beside allOf).`,
            path: [...path, key],
          });
        }
      }
    }
    if (Array.isArray(schema.required) && !path.some((token) => CONDITIONAL.has(String(token)))) {
      const own = isObject(schema.properties) ? schema.properties : {};
      const missing = schema.required.filter((name) => !(String(name) in own));
      if (missing.length > 0) {
        results.push({
          message: `\`required\` names ${missing.map((n) => `\`${String(n)}\``).join(', ')}, not declared in this schema's own properties: repeat the property beside its \`required\`.`,
          path: [...path, 'required'],
        });
      }
    }
  });
  return results;
};
export default houseCompositionShape;
