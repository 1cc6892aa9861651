// The contract means what the released contract meant: one corpus of values (every example of the
// contract, and valid and invalid variants of each, test/support/corpus.ts) validated against the
// released contract (openapi/releases/2.0.0.yaml) and the current one, schema by schema, gets the
// same verdict everywhere. A restructure (allOf members, repeated required properties) passes; a
// change of meaning fails, as the last test shows.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { latestRelease } from '../../generator/review/breaking.js';
import { propertiesOf, requiredOf } from '../../tooling/openapi/walker.js';
import { buildCorpus, type CorpusValue } from '../support/corpus.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import { createSchemaValidator } from '../support/schema.js';

let released: JsonObject;
const current = loadBundle();
let corpus: CorpusValue[];

beforeAll(async () => {
  const release = await latestRelease();
  if (!release) throw new Error('no release recorded in openapi/releases/');
  released = parse(await readFile(release.file, 'utf8')) as JsonObject;
  corpus = buildCorpus(current);
});

/** One validator per document: each compiles a schema once, however many values it judges. */
const validators = new WeakMap<JsonObject, ReturnType<typeof createSchemaValidator>>();
const validatorOf = (doc: JsonObject) => {
  let validator = validators.get(doc);
  if (!validator) {
    validator = createSchemaValidator(doc);
    validators.set(doc, validator);
  }
  return validator;
};

const names = (doc: JsonObject) => new Set(Object.keys(((doc.components as JsonObject).schemas ?? {}) as JsonObject));

/**
 * Values whose verdict differs between the two documents: in the schemas both have, leaving out the
 * variants of properties that `a` does not declare (properties added since are additions, which the
 * breaking-change gate judges; a wrong type in one was an unknown member before) and the variants
 * without a property that `b` requires and `a` did not (a new requirement, which the gate judges too:
 * breaking in a request, a promise kept in a response).
 */
function differences(a: JsonObject, b: JsonObject, values: CorpusValue[]): string[] {
  const [va, vb] = [validatorOf(a), validatorOf(b)];
  const shared = new Set([...names(a)].filter((n) => names(b).has(n)));
  const ref = (schema: string) => ({ $ref: `#/components/schemas/${schema}` });
  const declaredIn = (doc: JsonObject, schema: string, property: string) =>
    propertiesOf(doc, ref(schema)).has(property);
  const newlyRequired = (v: CorpusValue) =>
    v.kind === 'missing-required' &&
    v.property !== undefined &&
    !requiredOf(a, ref(v.schema)).has(v.property) &&
    requiredOf(b, ref(v.schema)).has(v.property);
  return values
    .filter((v) => shared.has(v.schema) && (v.property === undefined || declaredIn(a, v.schema, v.property)))
    .filter((v) => !newlyRequired(v))
    .flatMap((v) => {
      const [ea, eb] = [va.validateComponent(v.schema, v.value), vb.validateComponent(v.schema, v.value)];
      return (ea.length === 0) === (eb.length === 0)
        ? []
        : [
            `${v.schema} (${v.kind}) ${v.label}: ${ea.length === 0 ? 'valid' : 'invalid'} before, ${eb.length === 0 ? 'valid' : 'invalid'} now`,
          ];
    });
}

describe('the current contract means what the released one meant', () => {
  it('the corpus covers the contract: examples and their variants, for most schemas', () => {
    const count = (kind: CorpusValue['kind']) => corpus.filter((v) => v.kind === kind).length;
    expect(count('example')).toBeGreaterThan(200);
    expect(count('missing-required')).toBeGreaterThan(50);
    expect(count('wrong-type')).toBeGreaterThan(500);
    expect(new Set(corpus.map((v) => v.schema)).size).toBeGreaterThan(100);
    // the restructured schemas are in it
    for (const name of [
      'CheckoutSessionRequest',
      'CustomerInfoWithEmail',
      'Amount',
      'PaymentRequest',
      'SessionUrls',
      'ValidationProblem',
      'CustomerPage',
    ]) {
      expect(
        corpus.some((v) => v.schema === name && v.kind === 'missing-required') || corpus.some((v) => v.schema === name),
        name,
      ).toBe(true);
    }
  });

  it('every example is valid, and every variant gets the same verdict, under both', () => {
    const invalidExamples = corpus
      .filter((v) => v.kind === 'example' || v.kind === 'valid')
      .filter((v) => validatorOf(current).validateComponent(v.schema, v.value).length > 0);
    expect(invalidExamples.map((v) => `${v.schema} ${v.label}`)).toEqual([]);
    expect(differences(released, current, corpus), 'a change of meaning since the release').toEqual([]);
  });

  it('fails on a change of meaning (a required property dropped from a restructured schema)', () => {
    const changed = structuredClone(current);
    const amount = ((changed.components as JsonObject).schemas as Record<string, JsonObject>).Amount!;
    const member = (amount.allOf as JsonObject[]).find((m) => Array.isArray(m.required))!;
    member.required = (member.required as string[]).filter((r) => r !== 'currency');
    const found = differences(released, changed, corpus);
    expect(found.length).toBeGreaterThan(0);
    expect(
      found.some((f) => /^Amount \(missing-required\) .* without currency: invalid before, valid now$/.test(f)),
    ).toBe(true);
  });
});
