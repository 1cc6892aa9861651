// JSON Schema validation in OpenAPI 3.1's dialect with @hyperjump/json-schema: a validator of its own,
// independent of the Ajv the sandbox compiles, so that a verdict never rests on the code under test.
// Schemas are addressed by their location in the bundle (a file), compiled once each.
import '@hyperjump/json-schema/openapi-3-1'; // the dialect
import { BASIC, type CompiledSchema, compile, getSchema, interpret } from '@hyperjump/json-schema/experimental';
import * as Instance from '@hyperjump/json-schema/instance/experimental';
import type { Output, OutputUnit } from '@hyperjump/json-schema/openapi-3-1';
import { getAt, isObject, parsePointer } from '../../../tooling/openapi/walker.js';

type Json = Parameters<typeof Instance.fromJs>[0];

const KEYWORD_PREFIX = 'https://json-schema.org/keyword/';

/**
 * The schemas of the document at `documentUrl` (a `file:` URL), each compiled on its first use. The
 * document is read once and each schema looked up in it: hyperjump's validate() reads and indexes
 * the whole document anew for each schema it compiles.
 */
export function schemaCompiler(documentUrl: string): (pointer: string) => Promise<CompiledSchema> {
  const compiled = new Map<string, Promise<CompiledSchema>>();
  let document: ReturnType<typeof getSchema> | undefined;
  return (pointer) => {
    let schema = compiled.get(pointer);
    if (!schema) {
      document ??= getSchema(documentUrl);
      schema = document.then((read) => getSchema(`${documentUrl}${pointer}`, read)).then(compile);
      compiled.set(pointer, schema);
    }
    return schema;
  };
}

/** A compiled schema's verdict on `value`, with every error (hyperjump's BASIC output). */
export function judged(schema: CompiledSchema, value: unknown): Output {
  return interpret(schema, Instance.fromJs(value as Json), BASIC);
}

export class SchemaValidator {
  readonly #compiled: ReturnType<typeof schemaCompiler>;

  /** `bundleUrl`: the bundle's `file:` URL; `document`: the same bundle, parsed (for messages). */
  constructor(
    readonly bundleUrl: string,
    readonly document: unknown,
  ) {
    this.#compiled = schemaCompiler(bundleUrl);
  }

  /** What is wrong with `value` under the schema at `pointer` (a URI fragment `#/…`); empty when valid. */
  async problems(pointer: string, value: unknown): Promise<string[]> {
    const output = judged(await this.#compiled(pointer), value);
    if (output.valid) return [];
    const messages = (output.errors ?? []).map((e) => this.#message(e, value)).filter((m) => m !== undefined);
    return [...new Set(messages.length > 0 ? messages : ['does not match its schema'])];
  }

  /** One error in words: where in the value, which keyword, and what the keyword asked. */
  #message(error: OutputUnit, value: unknown): string | undefined {
    const keyword = error.keyword.startsWith(KEYWORD_PREFIX)
      ? error.keyword.slice(KEYWORD_PREFIX.length)
      : error.keyword;
    // Applicators (allOf, properties…) fail because a keyword under them did: that one is reported.
    if (
      ['allOf', 'anyOf', 'oneOf', 'properties', 'items', 'ref', 'validation', 'dynamicRef', 'prefixItems'].includes(
        keyword,
      )
    )
      return undefined;
    const at = error.instanceLocation.replace(/^#/, '') || '/';
    const instance = getAt(value, error.instanceLocation === '#' ? [] : parsePointer(error.instanceLocation));
    const schemaFragment = error.absoluteKeywordLocation.slice(error.absoluteKeywordLocation.indexOf('#'));
    const asked = getAt(this.document, parsePointer(schemaFragment));
    switch (keyword) {
      case 'required': {
        const missing = (Array.isArray(asked) ? asked : []).filter(
          (name) => !isObject(instance) || !(name in instance),
        );
        return `${at}: required member${missing.length === 1 ? '' : 's'} ${missing.join(', ')} missing`;
      }
      case 'type':
        return `${at}: must be of type ${JSON.stringify(asked)}, is ${JSON.stringify(instance)?.slice(0, 60)}`;
      case 'enum':
      case 'const':
        return `${at}: must be ${keyword === 'enum' ? 'one of ' : ''}${JSON.stringify(asked)}, is ${JSON.stringify(instance)?.slice(0, 60)}`;
      default:
        return `${at}: fails ${keyword}${asked !== undefined && typeof asked !== 'object' ? ` ${JSON.stringify(asked)}` : ''}`;
    }
  }
}
