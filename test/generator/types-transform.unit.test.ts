// transformDocument (generator/steps/types.ts) is openapi-typescript's openapiTS() without the lint
// and bundle of its embedded Redocly core: for a bundled document it must give the same types,
// default for default, so that an upgrade of openapi-typescript that changes a default shows here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPITSOptions } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../generator/steps/bundle.js';
import { transformDocument } from '../../generator/steps/types.js';
import { REPO_ROOT } from '../../generator/support/paths.js';

const read = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as OpenApiDocument;

/** A discriminated union; nullable, defaulted, read-only, deprecated and enumerated members: the context's other paths. */
const PETS = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'A pet',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
      },
      Cat: {
        type: 'object',
        required: ['kind'],
        properties: {
          kind: { type: 'string' },
          lives: { type: 'integer', default: 9 },
          id: { type: 'string', readOnly: true },
        },
      },
      Dog: {
        type: 'object',
        properties: {
          kind: { type: 'string' },
          owner: { type: ['string', 'null'] },
          tag: { type: 'string', deprecated: true },
          size: { type: 'string', enum: ['small', 'large'] },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

const cases: Array<[string, OpenApiDocument]> = [
  ['the contract', read('generated/openapi.json')],
  ['the admin document', read('generated/admin/openapi.json')],
  ['a discriminated union', PETS],
];

const OPTIONS: Array<Pick<OpenAPITSOptions, 'rootTypes' | 'rootTypesNoSchemaPrefix' | 'additionalProperties'>> = [
  {},
  { rootTypes: true, rootTypesNoSchemaPrefix: true, additionalProperties: false },
];

describe('transformDocument', () => {
  for (const [name, document] of cases) {
    for (const options of OPTIONS) {
      it(`gives openapiTS()'s types for ${name} with ${JSON.stringify(options)}`, async () => {
        const expected = astToString(await openapiTS(structuredClone(document) as never, { ...options, silent: true }));
        const actual = astToString(transformDocument(document, options));
        expect(actual.length).toBeGreaterThan(200);
        expect(actual).toBe(expected);
      });
    }
  }

  it('leaves the document it is given as it was', () => {
    const document = structuredClone(PETS);
    transformDocument(document, { rootTypes: true });
    expect(document).toEqual(PETS);
  });
});
