// The field names of the contract's validation problems (sandbox/contract/field-errors.ts), made from
// Ajv's errors by a real Ajv: a missing, unknown or invalid field is named by its client's name,
// whatever characters that name holds.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ajvFinding, fieldErrors, jsonPointer } from '../../sandbox/contract/field-errors.js';
import { parsePointer } from '../../tooling/openapi/walker.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile({
  type: 'object',
  properties: {
    amount: {
      type: 'object',
      required: ['currency'],
      properties: { currency: { enum: ['EUR', 'CZK'] } },
      additionalProperties: false,
    },
    items: { type: 'array', items: { type: 'object', properties: { taxRate: { type: 'integer' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    extra: { type: 'object', properties: { note: { type: 'string' } }, unevaluatedProperties: false },
  },
});

const errorsOf = (value: unknown) => {
  expect(validate(value)).toBe(false);
  return validate.errors ?? [];
};

describe('fieldErrors', () => {
  it('names nested fields, array items, missing and unknown fields, and lists an enum', () => {
    const errors = fieldErrors(
      errorsOf({ amount: { currency: 'USD', cents: 1 }, items: [{ taxRate: 'high' }] }),
      (path) => path,
    );
    expect(errors).toEqual({
      'amount.currency': ['must be one of EUR, CZK'],
      'amount.cents': ['is not a known field'],
      'items[0].taxRate': ['must be integer'],
    });
    expect(fieldErrors(errorsOf({ amount: {} }), (path) => path)).toEqual({ 'amount.currency': ['is required'] });
  });

  it('takes a client key with `%`, `~` or `/` as it was sent: nothing percent-decoded, nothing thrown', () => {
    const errors = fieldErrors(errorsOf({ labels: { 'a%zz': 1, 'b%41': 2, 'c~d/e': 3 } }), (path) => path);
    expect(Object.keys(errors).sort()).toEqual(['labels.a%zz', 'labels.b%41', 'labels.c~d/e']);
  });

  it('names a property unevaluated by the schema itself, as an additional one', () => {
    expect(fieldErrors(errorsOf({ extra: { note: 'x', colour: 'red' } }), (path) => path)).toEqual({
      'extra.colour': ['is not a known field'],
    });
  });

  it('names the whole body `(body)` when the error is at its root', () => {
    expect(fieldErrors(errorsOf([]), (path) => path)).toEqual({ '(body)': ['must be object'] });
  });
});

describe('ajvFinding', () => {
  it('gives the field as reference tokens and says which kind of finding it is', () => {
    const findings = errorsOf({ amount: { cents: 1 }, labels: { 'a/b': 1 } }).map(ajvFinding);
    expect(findings).toEqual(
      expect.arrayContaining([
        { tokens: ['amount', 'currency'], kind: 'missing', message: 'is required' },
        { tokens: ['amount', 'cents'], kind: 'unknown', message: 'is not a known field' },
        { tokens: ['labels', 'a/b'], kind: 'invalid', message: 'must be string' },
      ]),
    );
  });
});

describe('jsonPointer', () => {
  it('makes the plain pointer Ajv would, and parsePointer reads it back', () => {
    expect(jsonPointer([])).toBe('');
    expect(jsonPointer(['labels', 'a/b', 'c~d', '%41'])).toBe('/labels/a~1b/c~0d/%41');
    for (const tokens of [[], ['a'], ['x/y', '~', '%zz', '']])
      expect(parsePointer(jsonPointer(tokens))).toEqual(tokens);
  });
});
