// JSON Schema helpers for tests: the generator's own (generator/lint/examples.ts), so that the tests
// and `npm run lint` give every example the same verdict.
import { type Declared as DeclaredIn, declared as declaredIn } from '../../generator/lint/examples.js';
import type { Json, JsonObject } from './openapi.js';

export {
  createSchemaValidator,
  formatErrors,
  type SchemaValidator,
  undeclaredMembers,
} from '../../generator/lint/examples.js';

/** What an object schema declares (generator/lint/examples.ts), typed with the tests' JSON types. */
export type Declared = Omit<DeclaredIn, 'properties' | 'additional'> & {
  properties: Map<string, Json[]>;
  additional: Json[];
};
export const declared = (doc: JsonObject, schema: Json): Declared => declaredIn(doc, schema) as Declared;
