// The OpenAPI walker's traversal of every object (tooling/openapi/walker.ts, walkObjects): what it
// visits, where, in which order, and which data it leaves alone; its map of one kind of components;
// the properties, required names and alternatives of a composed schema, and the schema an instance
// location falls under; JSON pointers in both forms; runtime expressions (the values of links).
import { describe, expect, it } from 'vitest';
import {
  branchesOf,
  componentsOf,
  type JsonObject,
  parsePointer,
  parseRuntimeExpression,
  propertiesOf,
  requiredOf,
  runtimeExpressionsIn,
  schemaAt,
  toPointer,
  walkObjects,
} from '../../tooling/openapi/walker.js';

const visited = (root: unknown, options?: { data?: boolean }): string[] => {
  const out: string[] = [];
  walkObjects(root, (_node, tokens) => out.push(toPointer(tokens)), options);
  return out;
};

const document: JsonObject = {
  openapi: '3.1.0',
  paths: {
    '/payments': {
      post: {
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', default: 10, enum: [10, 20] } }],
        requestBody: {
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Payment' },
              example: { amount: { value: 1 } },
              examples: {
                small: { summary: 'A small one', value: { amount: { value: 1 } } },
                shared: { $ref: '#/components/examples/Big' },
              },
            },
          },
        },
        responses: { default: { description: 'Any error', headers: { const: { schema: { type: 'string' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Payment: {
        type: 'object',
        examples: [{ amount: { value: 1 } }],
        properties: {
          default: { type: 'boolean', default: { not: 'visited' } },
          properties: { type: 'object', const: { not: 'visited' }, properties: { enum: { type: 'string' } } },
        },
      },
    },
    examples: { Big: { description: 'A big one', 'x-provenance': 'inferred', value: { amount: { value: 99 } } } },
  },
};

describe("parsePointer: both of RFC 6901's forms", () => {
  it('decodes percent-encoding in a URI fragment, and unescapes `~1` and `~0`', () => {
    expect(parsePointer('#/paths/~1payments~1%7BpayId%7D/get')).toEqual(['paths', '/payments/{payId}', 'get']);
    expect(parsePointer('#/a~0b')).toEqual(['a~b']);
    expect(parsePointer('#')).toEqual([]);
  });

  it('takes a plain pointer as it is: a `%` is a `%`, even one that does not decode', () => {
    expect(parsePointer('/labels/b%41/a%zz')).toEqual(['labels', 'b%41', 'a%zz']);
    expect(parsePointer('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
    expect(parsePointer('')).toEqual([]);
  });

  it('refuses what is neither form, and a fragment whose percent-encoding is broken', () => {
    expect(() => parsePointer('paths/x')).toThrow(/not a JSON pointer: paths\/x/);
    expect(() => parsePointer('#/a%zz')).toThrow(URIError);
  });
});

describe('walkObjects', () => {
  it('visits every object where it lives, parent first, in document order, with its tokens (array items by index)', () => {
    expect(visited(document)).toEqual([
      '#',
      '#/paths',
      '#/paths/~1payments',
      '#/paths/~1payments/post',
      '#/paths/~1payments/post/parameters/0',
      '#/paths/~1payments/post/parameters/0/schema',
      '#/paths/~1payments/post/requestBody',
      '#/paths/~1payments/post/requestBody/content',
      '#/paths/~1payments/post/requestBody/content/application~1json',
      '#/paths/~1payments/post/requestBody/content/application~1json/schema', // the $ref, not followed
      '#/paths/~1payments/post/requestBody/content/application~1json/examples',
      '#/paths/~1payments/post/requestBody/content/application~1json/examples/small', // its summary, not its value
      '#/paths/~1payments/post/requestBody/content/application~1json/examples/shared',
      '#/paths/~1payments/post/responses',
      '#/paths/~1payments/post/responses/default', // a name, not the keyword
      '#/paths/~1payments/post/responses/default/headers',
      '#/paths/~1payments/post/responses/default/headers/const',
      '#/paths/~1payments/post/responses/default/headers/const/schema',
      '#/components',
      '#/components/schemas',
      '#/components/schemas/Payment',
      '#/components/schemas/Payment/properties',
      '#/components/schemas/Payment/properties/default', // a property called default; its own default is data
      '#/components/schemas/Payment/properties/properties', // a property called properties is a schema: its const is data
      '#/components/schemas/Payment/properties/properties/properties',
      '#/components/schemas/Payment/properties/properties/properties/enum',
      '#/components/examples',
      '#/components/examples/Big',
    ]);
  });

  it('hands over the objects themselves, so that a caller may change them in place', () => {
    const copy = structuredClone(document);
    walkObjects(copy, (node) => {
      if (node['x-provenance'] === 'inferred') node.description = `(inferred) ${String(node.description)}`;
    });
    expect(((copy.components as JsonObject).examples as Record<string, JsonObject>).Big!.description).toBe(
      '(inferred) A big one',
    );
  });

  it('with { data: true } walks the data too: every object of a JSON value', () => {
    const all = visited(document, { data: true });
    expect(all).toEqual(
      expect.arrayContaining([
        '#/paths/~1payments/post/requestBody/content/application~1json/example/amount',
        '#/paths/~1payments/post/requestBody/content/application~1json/examples/small/value/amount',
        '#/components/schemas/Payment/examples/0/amount',
        '#/components/schemas/Payment/properties/default/default',
        '#/components/examples/Big/value/amount',
      ]),
    );
    expect(all.length).toBe(visited(document).length + 10);
  });

  it('takes any value as the root: a scalar or an array has no object to visit but its items', () => {
    expect(visited('text')).toEqual([]);
    expect(visited([{ a: { b: 1 } }, 2])).toEqual(['#/0', '#/0/a']);
  });
});

describe('componentsOf', () => {
  it("gives the document's own map of one kind, in document order, or an empty one", () => {
    const schemas = componentsOf(document, 'schemas');
    expect(Object.keys(schemas)).toEqual(['Payment']);
    expect(schemas).toBe((document.components as JsonObject).schemas);
    expect(componentsOf(document, 'parameters')).toEqual({});
    expect(componentsOf({ openapi: '3.1.0' }, 'schemas')).toEqual({});
  });
});

describe('propertiesOf, requiredOf and branchesOf on anyOf and oneOf', () => {
  const composed: JsonObject = {
    components: {
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title'],
          properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' } },
        },
        Validation: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            { type: 'object', required: ['errors'], properties: { errors: { type: 'object' } } },
          ],
        },
        Legacy: {
          type: 'object',
          required: ['field', 'error', 'title'],
          properties: { field: { type: 'string' }, error: { type: 'string' }, title: { type: 'string' } },
        },
        Either: { anyOf: [{ $ref: '#/components/schemas/Validation' }, { $ref: '#/components/schemas/Legacy' }] },
        OneOf: { oneOf: [{ $ref: '#/components/schemas/Validation' }, { $ref: '#/components/schemas/Legacy' }] },
        Wrapped: {
          allOf: [
            { $ref: '#/components/schemas/Either' },
            { type: 'object', required: ['traceId'], properties: { traceId: { type: 'string' } } },
          ],
        },
        Looping: {
          anyOf: [
            { $ref: '#/components/schemas/Looping' },
            { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          ],
        },
      },
    },
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const names = (map: Map<string, unknown>) => [...map.keys()].sort();

  it.each(['Either', 'OneOf'])('%s: the properties of every branch, through $ref and allOf', (name) => {
    expect(names(propertiesOf(composed, ref(name)))).toEqual(['error', 'errors', 'field', 'status', 'title', 'type']);
  });

  it.each(['Either', 'OneOf'])('%s: required only where every branch requires it', (name) => {
    // title: required in both branches (Problem through allOf, Legacy directly); type, errors, field, error: in one.
    expect([...requiredOf(composed, ref(name))].sort()).toEqual(['title']);
  });

  it('a branch that requires nothing makes every name of the alternatives optional', () => {
    const doc: JsonObject = {
      ...composed,
      x: { anyOf: [ref('Legacy'), { type: 'object', properties: { note: { type: 'string' } } }] },
    };
    expect(requiredOf(doc, { $ref: '#/x' }).size).toBe(0);
    expect(names(propertiesOf(doc, { $ref: '#/x' }))).toEqual(['error', 'field', 'note', 'title']);
  });

  it('allOf around an anyOf: the members all hold, the alternatives as above', () => {
    expect([...requiredOf(composed, ref('Wrapped'))].sort()).toEqual(['title', 'traceId']);
    expect(propertiesOf(composed, ref('Wrapped')).has('field')).toBe(true);
  });

  it('a branch that refers back to the schema adds nothing and does not loop', () => {
    expect(names(propertiesOf(composed, ref('Looping')))).toEqual(['id']);
    expect([...requiredOf(composed, ref('Looping'))]).toEqual([]);
  });

  it('a schema without anyOf/oneOf keeps its own and its allOf members', () => {
    expect(names(propertiesOf(composed, ref('Validation')))).toEqual(['errors', 'status', 'title', 'type']);
    expect([...requiredOf(composed, ref('Validation'))].sort()).toEqual(['errors', 'title', 'type']);
  });

  it('branchesOf: each branch with its tokens, or the schema itself', () => {
    expect(branchesOf(composed, ref('Either'))).toEqual([
      [ref('Validation'), ['anyOf', 0]],
      [ref('Legacy'), ['anyOf', 1]],
    ]);
    expect(branchesOf(composed, ref('OneOf')).map(([, tokens]) => tokens)).toEqual([
      ['oneOf', 0],
      ['oneOf', 1],
    ]);
    expect(branchesOf(composed, ref('Problem'))).toEqual([[ref('Problem'), []]]);
  });
});

describe('schemaAt: the schema an instance location falls under', () => {
  const doc: JsonObject = {
    components: {
      schemas: {
        Page: { type: 'object', properties: { page: { type: 'integer' } } },
        Item: { type: 'object', properties: { id: { type: 'string' } } },
        ItemPage: {
          allOf: [
            { $ref: '#/components/schemas/Page' },
            { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
          ],
        },
        Pair: { type: 'array', prefixItems: [{ type: 'string' }, { $ref: '#/components/schemas/Item' }] },
        Either: { oneOf: [{ $ref: '#/components/schemas/Item' }, { type: 'object', properties: { code: {} } }] },
        Open: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it('follows properties of allOf members, array items by index and prefixItems, through $refs', () => {
    expect(schemaAt(doc, ref('ItemPage'), ['data', '0', 'id'])).toEqual({ type: 'string' });
    expect(schemaAt(doc, ref('ItemPage'), ['page'])).toEqual({ type: 'integer' });
    expect(schemaAt(doc, ref('ItemPage'), [])).toEqual(ref('ItemPage'));
    expect(schemaAt(doc, ref('Pair'), ['1', 'id'])).toEqual({ type: 'string' });
    expect(schemaAt(doc, ref('Either'), ['code'])).toEqual({});
  });

  it('is undefined where nothing declares the step: a missing property, an index of an object, a name of additionalProperties', () => {
    expect(schemaAt(doc, ref('ItemPage'), ['data', '0', 'name'])).toBeUndefined();
    expect(schemaAt(doc, ref('ItemPage'), ['data', 'first'])).toBeUndefined();
    expect(schemaAt(doc, ref('Item'), ['0'])).toBeUndefined();
    expect(schemaAt(doc, ref('Open'), ['anything'])).toBeUndefined();
  });
});

describe('runtime expressions', () => {
  it('parses the forms of the grammar', () => {
    expect(parseRuntimeExpression('$response.body#/data/0/id')).toEqual({
      kind: 'body',
      source: 'response',
      pointer: ['data', '0', 'id'],
    });
    expect(parseRuntimeExpression('$request.body')).toEqual({ kind: 'body', source: 'request', pointer: [] });
    expect(parseRuntimeExpression('$request.path.id')).toEqual({
      kind: 'parameter',
      source: 'request',
      in: 'path',
      name: 'id',
    });
    expect(parseRuntimeExpression('$response.header.Location')).toMatchObject({ in: 'header', name: 'Location' });
    expect(parseRuntimeExpression('$statusCode')).toEqual({ kind: 'statusCode' });
  });

  it('refuses what the grammar does not have', () => {
    for (const text of [
      '$response.path.id',
      '$response.query.page',
      '$request.cookie.a',
      '$response.body#payId',
      '$body',
      '$request.header.a b',
    ])
      expect(parseRuntimeExpression(text), text).toBeUndefined();
  });

  it('finds the expressions of a value: a whole string, embedded ones, none in a constant', () => {
    expect(runtimeExpressionsIn('$request.path.id').map((e) => e.text)).toEqual(['$request.path.id']);
    expect(runtimeExpressionsIn('pay-{$response.body#/payId}/{$statusCode}').map((e) => e.text)).toEqual([
      '$response.body#/payId',
      '$statusCode',
    ]);
    expect(runtimeExpressionsIn({ a: ['$url', 42], b: 'constant' }).map((e) => e.text)).toEqual(['$url']);
    expect(runtimeExpressionsIn('$response.body#nope')).toEqual([{ text: '$response.body#nope', parsed: undefined }]);
  });
});
