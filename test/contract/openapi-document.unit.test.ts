// The bundle is a valid OpenAPI 3.1 document by an independent validator (the official OAS 3.1
// JSON Schema, via @seriousme/openapi-schema-validator), and has the shape this project relies on.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { operations } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';

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
    for (const id of ids)
      expect(id).toMatch(
        /^(create|get|list|update|delete|confirm|increment|reverse|capture|refund|charge|check|receive)[A-Z][A-Za-z]*$/,
      );
    const sdk = operations(doc, ['paths']).map((o) => o.operation['x-sdk-method'] as string);
    expect(sdk.every((m) => /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(m))).toBe(true);
    expect(new Set(sdk).size).toBe(sdk.length);
  });

  it('lists security alternatives in one order everywhere: Basic, bearer, API key', () => {
    // The contract's choice (openapi/info-description.md): tools that take the first alternative send
    // the merchant id and API key; tools that take the last agree with them on which comes first.
    const ORDER = ['basicAuth', 'bearerAuth', 'apiKeyAuth'];
    const lists = [
      doc.security as JsonObject[],
      ...operations(doc, ['paths']).map((o) => (o.operation.security ?? doc.security) as JsonObject[]),
    ];
    for (const list of lists) {
      const names = list.map((requirement) => Object.keys(requirement)[0]!);
      expect(names).toEqual([...names].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)));
    }
    expect(lists.some((l) => l.length === 3)).toBe(true);
  });
});
