// JSON Schema helpers for tests: the generator's own (generator/lint/examples.ts), so that the tests
// and `npm run lint` give every example the same verdict.
import {
  createSchemaValidator as createValidator,
  type Declared as DeclaredIn,
  declared as declaredIn,
  type SchemaValidator,
} from '../../generator/lint/examples.js';
import type { Json, JsonObject } from './openapi.js';

export { formatErrors, type SchemaValidator, undeclaredMembers } from '../../generator/lint/examples.js';

/**
 * The generator's validator of `doc`'s schemas, as lint makes it: a test validates a few values
 * against each schema, for which Ajv's code optimisation costs more to compile than it saves.
 */
export const createSchemaValidator = (doc: object): SchemaValidator => createValidator(doc, { compileOnce: true });

/** What an object schema declares (generator/lint/examples.ts), typed with the tests' JSON types. */
export type Declared = Omit<DeclaredIn, 'properties' | 'additional'> & {
  properties: Map<string, Json[]>;
  additional: Json[];
};
export const declared = (doc: JsonObject, schema: Json): Declared => declaredIn(doc, schema) as Declared;
