// The bundle is a valid OpenAPI 3.1 document by an independent validator (the official OAS 3.1
// JSON Schema, via @seriousme/openapi-schema-validator), and has the shape this project relies on.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { loadBundle, type JsonObject } from './support/openapi.js';
import { operations } from '../src/openapi/walker.js';

const doc = loadBundle();

describe('OpenAPI document', () => {
  it('is valid against the official OAS 3.1 schema', async () => {
    const validator = new Validator();
    // A deep copy: the validator annotates what it is given.
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator catches a broken document (sanity check)', async () => {
    const broken = structuredClone(doc) as JsonObject;
    (broken.paths as JsonObject)['/payments'] = { post: { responses: 'none' } } as unknown as JsonObject;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('declares OpenAPI 3.1 with the JSON Schema 2020-12 dialect (Prism validates requests only then)', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('is a single file: every $ref is local', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((r) => !r.startsWith('"$ref":"#/'))).toEqual([]);
  });

  it('gives every operation a unique camelCase verb operationId and an SDK method name', () => {
    const ids = operations(doc).map((o) => o.operation.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^(create|get|list|update|delete|confirm|increment|reverse|capture|refund|charge|check|receive)[A-Z][A-Za-z]*$/);
    const sdk = operations(doc, ['paths']).map((o) => o.operation['x-sdk-method'] as string);
    expect(sdk.every((m) => /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(m))).toBe(true);
    expect(new Set(sdk).size).toBe(sdk.length);
  });

  it('declares every required key where the generated types can see it', () => {
    // openapi-typescript applies a schema's `required` only to its own properties and to those of
    // the schemas its allOf $refs directly; a key declared deeper would silently become optional
    // in the client. Keep composed schemas in the shape {allOf: [$ref], required, properties}.
    const schemas = (doc.components as JsonObject).schemas as Record<string, JsonObject>;
    const problems: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      for (const key of (schema.required ?? []) as string[]) {
        const own = (schema.properties as JsonObject | undefined)?.[key] !== undefined;
        const viaRef = ((schema.allOf ?? []) as JsonObject[]).some((m) => {
          const target = typeof m.$ref === 'string' ? schemas[m.$ref.split('/').pop()!] : m;
          return (target?.properties as JsonObject | undefined)?.[key] !== undefined;
        });
        if (!own && !viaRef) problems.push(`${name}.required: ${key}`);
      }
      for (const member of (schema.allOf ?? []) as JsonObject[]) {
        if (member.required && !member.properties) problems.push(`${name}: put \`required\` at the root, not in an allOf member`);
      }
    }
    expect(problems).toEqual([]);
  });
});
