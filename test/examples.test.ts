// Every example in the contract (request, response, header, parameter, webhook and schema
// examples) validated against its schema with Ajv 2020 + formats, on the bundle.
import { describe, expect, it } from 'vitest';
import { loadBundle, type Json, type JsonObject } from './support/openapi.js';
import { deref, escapeToken, locate, operations } from '../src/openapi/walker.js';
import { createSchemaValidator, formatErrors, undeclaredMembers } from './support/schema.js';

const doc = loadBundle();
const validator = createSchemaValidator(doc);

interface ExampleCase {
  name: string;
  schemaPointer: string;
  value: Json;
}

/** The (resolved) node at a pointer, with the pointer it really lives at. */
function locateAt(at: string): [JsonObject, string] {
  const { node, pointer: where } = locate(doc, at);
  return [node as JsonObject, where];
}

function exampleValues(container: JsonObject, label: string): { name: string; value: Json }[] {
  const out: { name: string; value: Json }[] = [];
  if (container.example !== undefined) out.push({ name: `${label} (example)`, value: container.example });
  for (const [key, ex] of Object.entries((container.examples ?? {}) as JsonObject)) {
    const resolved = deref<JsonObject>(doc, ex);
    out.push({ name: `${label} example "${key}"`, value: resolved.value as Json });
  }
  return out;
}

function mediaCases(content: JsonObject | undefined, at: string, label: string): ExampleCase[] {
  const out: ExampleCase[] = [];
  for (const [mediaType, media] of Object.entries(content ?? {})) {
    const m = media as JsonObject;
    if (!m.schema) continue;
    const schemaPointer = `${at}/content/${escapeToken(mediaType)}/schema`;
    for (const ex of exampleValues(m, `${label} ${mediaType}`)) out.push({ ...ex, schemaPointer });
  }
  return out;
}

function collectCases(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const op of operations(doc)) {
    const label = `${op.operation.operationId}`;
    const params = [
      ...(op.pathItem.parameters ?? []).map((_p, i) => locateAt(`${op.pointer.replace(/\/[a-z]+$/, '')}/parameters/${i}`)),
      ...(op.operation.parameters ?? []).map((_p, i) => locateAt(`${op.pointer}/parameters/${i}`)),
    ];
    for (const [param, at] of params) {
      for (const ex of exampleValues(param, `${label} parameter ${param.name}`)) cases.push({ ...ex, schemaPointer: `${at}/schema` });
    }
    if (op.operation.requestBody) {
      const [body, at] = locateAt(`${op.pointer}/requestBody`);
      cases.push(...mediaCases(body.content as JsonObject, at, `${label} request`));
    }
    for (const status of Object.keys(op.operation.responses ?? {})) {
      const [res, at] = locateAt(`${op.pointer}/responses/${status}`);
      cases.push(...mediaCases(res.content as JsonObject, at, `${label} ${status} response`));
      for (const name of Object.keys((res.headers ?? {}) as JsonObject)) {
        const [h, hAt] = locateAt(`${at}/headers/${escapeToken(name)}`);
        for (const ex of exampleValues(h, `${label} ${status} header ${name}`)) cases.push({ ...ex, schemaPointer: `${hAt}/schema` });
      }
    }
  }
  // Schema-level `examples` arrays, anywhere inside a named schema.
  const walk = (node: Json, at: string, label: string): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach((n, i) => walk(n, `${at}/${i}`, label)); return; }
    if (Array.isArray(node.examples)) {
      node.examples.forEach((value, i) => cases.push({ name: `${label} schema example ${i} at ${at}`, schemaPointer: at, value }));
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'const' && k !== 'enum') walk(v, `${at}/${escapeToken(k)}`, label);
  };
  for (const name of Object.keys((doc.components as JsonObject).schemas as JsonObject)) {
    walk(((doc.components as JsonObject).schemas as JsonObject)[name], `#/components/schemas/${name}`, name);
  }
  return cases;
}

const cases = collectCases();

describe('examples', () => {
  it('are found in every corner of the contract', () => {
    // A broken walker would make every other test here vacuous.
    expect(cases.length).toBeGreaterThan(150);
    expect(cases.some((c) => c.name.includes('webhook') || c.name.startsWith('receive'))).toBe(true);
    expect(cases.some((c) => c.name.includes('parameter'))).toBe(true);
    expect(cases.some((c) => c.name.includes('schema example'))).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s is valid against its schema', (_name, c) => {
    const errors = validator.validate(c.schemaPointer, c.value);
    expect(errors, `${c.name} does not match ${c.schemaPointer}: ${formatErrors(errors)}`).toEqual([]);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s uses only declared fields', (_name, c) => {
    const undeclared = undeclaredMembers(doc, { $ref: c.schemaPointer }, c.value);
    expect(undeclared, `${c.name} has fields its schema does not declare`).toEqual([]);
  });

  it('the validator rejects what it should (sanity check of the harness)', () => {
    expect(validator.validateComponent('Amount', { value: 10.5, currency: 'EUR' })).not.toEqual([]);
    expect(undeclaredMembers(doc, { $ref: '#/components/schemas/Amount' }, { value: 1, currency: 'EUR', vat: 1 })).toEqual(['$.vat']);
  });
});

describe('example coverage', () => {
  const ops = operations(doc);
  it.each(ops.filter((o) => o.operation.requestBody).map((o) => [o.operation.operationId as string, o] as const))(
    '%s has a named request example for each media type',
    (_id, op) => {
      const body = deref<JsonObject>(doc, op.operation.requestBody);
      for (const media of Object.values(body.content as JsonObject)) {
        expect(Object.keys(((media as JsonObject).examples ?? {}) as JsonObject).length).toBeGreaterThan(0);
      }
    },
  );
  it.each(ops.map((o) => [o.operation.operationId as string, o] as const))('%s has a named example for every response with a body', (_id, op) => {
    for (const [status, response] of Object.entries(op.operation.responses ?? {})) {
      const res = deref<JsonObject>(doc, response);
      for (const media of Object.values((res.content ?? {}) as JsonObject)) {
        expect(Object.keys(((media as JsonObject).examples ?? {}) as JsonObject), `${status} of ${op.operation.operationId}`).not.toEqual([]);
      }
    }
  });
});
