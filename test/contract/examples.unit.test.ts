// Every example in the contract (request, response, header, parameter, webhook and schema
// examples) validated against its schema with Ajv 2020 + formats, on the bundle. The cases and the
// checks are generator/lint/examples.ts, which `npm run lint` runs too (example-invalid,
// example-undeclared-property); here each example is a test of its own.
import { describe, expect, it } from 'vitest';
import { exampleCases } from '../../generator/lint/examples.js';
import { deref, operations } from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import { createSchemaValidator, formatErrors, undeclaredMembers } from '../support/schema.js';

const doc = loadBundle();
const validator = createSchemaValidator(doc);
const cases = exampleCases(doc);

describe('examples', () => {
  it('are found in every corner of the contract', () => {
    // A broken walker would make every other test here vacuous.
    expect(cases.length).toBeGreaterThan(150);
    expect(cases.some((c) => c.name.includes('webhook') || c.name.startsWith('receive'))).toBe(true);
    expect(cases.some((c) => c.name.includes('parameter'))).toBe(true);
    expect(cases.some((c) => c.name.startsWith('schema ') && c.name.includes(' example'))).toBe(true);
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
    expect(
      undeclaredMembers(doc, { $ref: '#/components/schemas/Amount' }, { value: 1, currency: 'EUR', vat: 1 }),
    ).toEqual(['$.vat']);
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
  it.each(ops.map((o) => [o.operation.operationId as string, o] as const))(
    '%s has a named example for every response with a body',
    (_id, op) => {
      for (const [status, response] of Object.entries(op.operation.responses ?? {})) {
        const res = deref<JsonObject>(doc, response);
        for (const media of Object.values((res.content ?? {}) as JsonObject)) {
          expect(
            Object.keys(((media as JsonObject).examples ?? {}) as JsonObject),
            `${status} of ${op.operation.operationId}`,
          ).not.toEqual([]);
        }
      }
    },
  );
});
