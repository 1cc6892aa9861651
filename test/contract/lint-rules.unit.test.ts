// The Spectral house rules (generator/lint/rules/): each reports its counter-example at the place
// where the offending object lives, and stays silent on the contract (npm run lint holds the
// contract at zero problems; these tests hold the rules themselves; lint-source.test.ts holds one in
// npm run lint, at its source line).

import { describe, expect, it } from 'vitest';
import houseBoundedStrings from '../../generator/lint/rules/houseBoundedStrings.js';
import houseCamelCaseOperationId from '../../generator/lint/rules/houseCamelCaseOperationId.js';
import houseCamelCaseProperties from '../../generator/lint/rules/houseCamelCaseProperties.js';
import houseCompositionShape from '../../generator/lint/rules/houseCompositionShape.js';
import houseInferredHasReason from '../../generator/lint/rules/houseInferredHasReason.js';
import houseLinksResolve from '../../generator/lint/rules/houseLinksResolve.js';
import houseMoneyInteger from '../../generator/lint/rules/houseMoneyInteger.js';
import houseOperationDocumented from '../../generator/lint/rules/houseOperationDocumented.js';
import houseOperationExamples from '../../generator/lint/rules/houseOperationExamples.js';
import type { HouseRule } from '../../generator/lint/rules/types.js';
import { loadBundle } from '../support/openapi.js';

const RULES: Record<string, HouseRule> = {
  houseBoundedStrings,
  houseCamelCaseOperationId,
  houseCamelCaseProperties,
  houseCompositionShape,
  houseInferredHasReason,
  houseLinksResolve,
  houseMoneyInteger,
  houseOperationDocumented,
  houseOperationExamples,
};

/** A small valid document; each case below breaks one thing in it. */
function documentWith(
  schemas: Record<string, unknown>,
  operation: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    openapi: '3.1.1',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          tags: ['Things'],
          summary: 'Get a thing',
          description: 'Returns one thing.',
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: {} } },
            },
          },
          ...operation,
        },
      },
    },
    components: {
      schemas: { Thing: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } }, ...schemas },
    },
  };
}

const run = (rule: HouseRule, doc: Record<string, unknown>) =>
  rule(doc).map((r) => ({ path: r.path.join('/'), message: r.message }));

describe('house rules', () => {
  it.each(Object.entries(RULES))('%s finds nothing in the contract or in the small valid document', (_name, rule) => {
    expect(run(rule, loadBundle())).toEqual([]);
    expect(run(rule, documentWith({}))).toEqual([]);
  });

  it('house-bounded-strings: an unbounded string, also as a branch of anyOf', () => {
    const found = run(
      houseBoundedStrings,
      documentWith({ Note: { type: 'string' }, Either: { anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    );
    expect(found.map((f) => f.path)).toEqual(['components/schemas/Note', 'components/schemas/Either/anyOf/1']);
  });

  it('house-camel-case-operation-id: snake_case and missing operationIds', () => {
    expect(run(houseCamelCaseOperationId, documentWith({}, { operationId: 'get_thing' }))).toEqual([
      {
        path: 'paths//things/{id}/get/operationId',
        message: 'operationId "get_thing" is not camelCase (/^[a-z][a-zA-Z0-9]*$/).',
      },
    ]);
    expect(run(houseCamelCaseOperationId, documentWith({}, { operationId: undefined }))[0]?.message).toBe(
      'Operation has no operationId.',
    );
  });

  it('house-camel-case-properties: snake_case properties, unless the schema is an RFC 6749 wire schema', () => {
    const snake = { type: 'object', properties: { access_token: { type: 'string', maxLength: 9 } } };
    expect(run(houseCamelCaseProperties, documentWith({ Token: snake })).map((f) => f.path)).toEqual([
      'components/schemas/Token/properties/access_token',
    ]);
    expect(run(houseCamelCaseProperties, documentWith({ Token: { ...snake, 'x-naming': 'rfc6749' } }))).toEqual([]);
  });

  it('house-composition-shape: properties, required or other keywords beside allOf; a required naming an inherited property', () => {
    const found = run(
      houseCompositionShape,
      documentWith({
        Beside: {
          type: 'object',
          description: 'ok',
          allOf: [{ $ref: '#/components/schemas/Thing' }],
          properties: { extra: { type: 'string', maxLength: 9 } },
          required: ['extra'],
          minProperties: 1,
        },
        Inherited: {
          allOf: [
            { $ref: '#/components/schemas/Thing' },
            { type: 'object', required: ['name'], properties: { other: { type: 'integer' } } },
          ],
        },
        Fine: {
          type: 'object',
          'x-provenance': 'inferred',
          allOf: [
            { $ref: '#/components/schemas/Thing' },
            { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 9 } } },
          ],
        },
        Conditional: {
          type: 'object',
          properties: { kind: { type: 'string', enum: ['A'] } },
          if: { required: ['kind'] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword, not a thenable
          then: { required: ['extra'] },
        },
      }),
    );
    expect(found.map((f) => f.path)).toEqual([
      'components/schemas/Beside/properties',
      'components/schemas/Beside/required',
      'components/schemas/Beside/minProperties',
      'components/schemas/Inherited/allOf/1/required',
    ]);
    expect(found[0]!.message).toMatch(/stands beside `allOf`/);
    expect(found[3]!.message).toMatch(/`name`, not declared in this schema's own properties/);
  });

  it('house-inferred-has-reason: a marker without a reason, a reason without a marker, another marker value', () => {
    const found = run(
      houseInferredHasReason,
      documentWith({
        A: { type: 'object', 'x-provenance': 'inferred', description: 'No reason.' },
        B: { type: 'object', description: 'Inferred: but unmarked.' },
        C: { type: 'object', 'x-provenance': 'documented' },
      }),
    );
    expect(found.map((f) => f.path)).toEqual([
      'components/schemas/A/description',
      'components/schemas/B/description',
      'components/schemas/C/x-provenance',
    ]);
  });

  it('house-inferred-has-reason: an inferred `required` without its reason, a reason without one', () => {
    const found = run(
      houseInferredHasReason,
      documentWith({
        A: { type: 'object', required: ['id'], 'x-inferred-constraints': ['required'], properties: { id: {} } },
        B: { type: 'object', 'x-inferred-reason': 'Always sent.', properties: { id: {} } },
        C: {
          type: 'object',
          required: ['id'],
          'x-inferred-constraints': ['required'],
          'x-inferred-reason': 'Always sent.',
          properties: { id: {} },
        },
      }),
    );
    expect(found.map((f) => f.path)).toEqual([
      'components/schemas/A/x-inferred-constraints',
      'components/schemas/B/x-inferred-reason',
    ]);
  });

  it('house-money-integer: money as number or untyped; integers and non-numbers pass', () => {
    const found = run(
      houseMoneyInteger,
      documentWith({
        Price: {
          type: 'object',
          properties: {
            netPrice: { type: 'number' },
            taxTotal: {},
            value: { type: 'integer' },
            total: { type: 'number' },
            amount: { type: 'object' },
          },
        },
      }),
    );
    expect(found.map((f) => f.path)).toEqual([
      'components/schemas/Price/properties/netPrice',
      'components/schemas/Price/properties/taxTotal',
    ]);
  });

  it('house-operation-documented: an operation without tags or description', () => {
    expect(run(houseOperationDocumented, documentWith({}, { tags: [], description: ' ' }))).toEqual([
      { path: 'paths//things/{id}/get', message: 'Operation getThing lacks non-empty tags, description.' },
    ]);
  });

  it('house-operation-examples: a response media type without an example, reported where the response lives', () => {
    const doc = documentWith({}, { responses: { '200': { $ref: '#/components/responses/Thing' } } });
    (doc.components as Record<string, unknown>).responses = {
      Thing: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
    };
    expect(run(houseOperationExamples, doc)).toEqual([
      {
        path: 'components/responses/Thing/content/application/json',
        message: 'Response 200 media type "application/json" has no example or examples.',
      },
    ]);
  });

  it('house-links-resolve: an unknown target, a parameter of another operation, a missing path parameter, a pointer or parameter the source lacks', () => {
    const doc = documentWith({
      Thing: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 10 },
          parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } },
        },
      },
      Part: { type: 'object', properties: { id: { type: 'string', maxLength: 10 } } },
    });
    const getThing = (doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/things/{id}']!.get!;
    getThing.parameters = [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 10 } }];
    (doc.paths as Record<string, unknown>)['/things/{id}/parts/{partId}'] = {
      get: {
        operationId: 'getPart',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 10 } },
          { name: 'partId', in: 'path', required: true, schema: { type: 'string', maxLength: 10 } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    };
    const ok = {
      operationId: 'getPart',
      parameters: { id: '$request.path.id', 'path.partId': '$response.body#/parts/0/id' },
    };
    (doc.components as Record<string, unknown>).links = {
      Fine: ok,
      Unknown: { operationId: 'getParts', parameters: { id: '$request.path.id' } },
      Foreign: { ...ok, parameters: { ...ok.parameters, page: 1 } },
      Partial: { operationId: 'getPart', parameters: { id: '$request.path.id' } },
      Missing: { ...ok, parameters: { id: '$request.query.id', partId: '$response.body#/parts/0/name' } },
      Malformed: { ...ok, parameters: { ...ok.parameters, id: '$response.path.id' } },
      Untargeted: { operationRef: '#/paths/~1things~1{id}~1parts~1{partId}/get' },
    };
    const links = Object.fromEntries(
      ['Fine', 'Unknown', 'Foreign', 'Partial', 'Missing', 'Malformed', 'Untargeted'].map((name) => [
        name.toLowerCase(),
        { $ref: `#/components/links/${name}` },
      ]),
    );
    (getThing.responses as Record<string, Record<string, unknown>>)['200']!.links = links;
    const found = run(houseLinksResolve, doc);
    expect(found.map((f) => f.path)).toEqual([
      'components/links/Unknown/operationId',
      'components/links/Foreign/parameters/page',
      'components/links/Partial/parameters',
      'paths//things/{id}/get/responses/200/links/missing',
      'paths//things/{id}/get/responses/200/links/missing',
      'components/links/Malformed/parameters/id',
      'components/links/Untargeted',
    ]);
    expect(found.map((f) => f.message)).toEqual([
      'Link\'s operationId "getParts" is not an operation of the document.',
      'Link parameter "page" is not a parameter of getPart (path.id, path.partId).',
      'Link gives no value for getPart\'s path parameter "partId".',
      'Link missing (#/components/links/Missing) cannot be followed from GET /things/{id} 200: $request.query.id: getThing has no query parameter id.',
      'Link missing (#/components/links/Missing) cannot be followed from GET /things/{id} 200: $response.body#/parts/0/name: the response (getThing) declares nothing at /parts/0/name.',
      '"$response.path.id" is not a runtime expression.',
      'Link names no operationId: name its target by operationId (the house uses no operationRef).',
    ]);
    // a link used where its pointer exists is silent there, and reported where it does not
    const other = structuredClone(doc);
    const thing = (other.paths as Record<string, Record<string, Record<string, unknown>>>)['/things/{id}']!.get!;
    (thing.responses as Record<string, Record<string, unknown>>)['200']!.links = { fine: links.fine };
    expect(run(houseLinksResolve, other)).toEqual([]);
    (other.paths as Record<string, Record<string, Record<string, unknown>>>)['/things/{id}/parts/{partId}']!
      .get!.responses = {
      '200': {
        description: 'ok',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Part' }, example: {} } },
        links: { again: links.fine },
      },
    };
    expect(run(houseLinksResolve, other).map((f) => `${f.path}: ${f.message.split(': ').slice(1).join(': ')}`)).toEqual(
      [
        'paths//things/{id}/parts/{partId}/get/responses/200/links/again: $response.body#/parts/0/id: the response (getPart) declares nothing at /parts/0/id.',
      ],
    );
  });
});
