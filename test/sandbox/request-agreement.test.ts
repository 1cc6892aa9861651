// The contract and the sandbox agree on requests, in both directions: requests drawn from the
// contract's request schemas (json-schema-faker), some broken by one mutation, are judged by an
// independent validator (@hyperjump/json-schema, OpenAPI 3.1's dialect) and sent to a fresh sandbox
// (whose own responses conformingFetch holds to the contract). A valid request is accepted (2xx) or
// gets a business answer (404 for an unknown id, 409, 422, or a 400 whose fields a rule of
// `x-business-rules` names); an invalid one is a 400 naming a field the validator found wrong.
// Fixed seed and count in `npm test`; FUZZ_SEED and FUZZ_RUNS for other runs (docs/testing.md).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import type { JsonObject } from '../../tooling/openapi/walker.js';
import {
  type FuzzOperation,
  type FuzzRequest,
  MUTATION_KINDS,
  type Mutation,
  mutate,
  type RequestFuzzer,
  requestFuzzer,
  ruleNames,
  sameField,
} from '../support/request-fuzz.js';
import {
  bearerOf,
  conformingFetch,
  sandboxContract,
  seedExamples,
  startTestSandbox,
  type TestSandbox,
} from '../support/sandbox.js';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261126;
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 400;
/** The token operation's body is a client's credentials: valid ones are not drawn from a schema. */
const SKIPPED = new Set(['createAccessToken']);
/** Statuses of a business answer to a valid request (a 400 only when a business rule names its fields). */
const BUSINESS = new Set([404, 409, 422]);

interface Tally {
  valid: Record<number, number>;
  invalid: Record<number, number>;
  /** The business rules that refused valid requests (400), by id. */
  rules: Record<string, number>;
}

describe('requests drawn from the contract: the sandbox agrees with an independent validator', () => {
  let sandbox: TestSandbox;
  let fuzzer: RequestFuzzer;
  let bearer: string;
  const tally: Tally = { valid: {}, invalid: {}, rules: {} };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    fuzzer = await requestFuzzer(sandboxContract().document as JsonObject);
    // The contract's examples, so that drawn requests may name objects that exist.
    await seedExamples(sandbox);
    bearer = await bearerOf(sandbox);
  }, 60_000);

  afterAll(async () => {
    fuzzer?.close();
    await sandbox?.stop();
    console.log(`request agreement (seed ${SEED}, ${RUNS} runs): ${JSON.stringify(tally)}`);
  });

  /** Credentials the operation accepts: HTTP Basic, or the bearer token where it takes only that. */
  const credentials = (operation: FuzzOperation) =>
    operation.id === 'confirmPaymentIntent' ? bearer : sandbox.basic();

  /** Path parameters set to the contract's example ids (objects the merchant has) when `known`. */
  const withKnownIds = (operation: FuzzOperation, request: FuzzRequest, known: boolean): FuzzRequest =>
    known
      ? {
          ...request,
          path: Object.fromEntries(
            operation.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.example ?? request.path[p.name]]),
          ),
        }
      : request;

  it('an empty id in a path is a 400 naming the parameter, on every operation that takes one', async () => {
    const examples = sandboxContract().examples;
    for (const operation of fuzzer.operations) {
      const ids = operation.parameters.filter((p) => p.in === 'path');
      for (const empty of ids) {
        let target = operation.path;
        for (const p of ids)
          target = target.replace(
            `{${p.name}}`,
            p === empty ? '' : examples.pathParameter(operation.id as OperationId, p.name),
          );
        const response = await conformingFetch(`${sandbox.baseUrl}${target}`, {
          method: operation.method,
          headers: { authorization: credentials(operation), 'content-type': 'application/json' },
          ...(operation.mediaType ? { body: '{}' } : {}),
        });
        const body = await response.json();
        expect([response.status, Object.keys(body.errors ?? {})], `${operation.id} ${target}`).toEqual([
          400,
          expect.arrayContaining([empty.name]),
        ]);
      }
    }
  });

  it('valid requests are accepted or get a business answer; invalid ones a 400 naming the field', async () => {
    const operations = fuzzer.operations.filter((o) => !SKIPPED.has(o.id));
    const mutation: fc.Arbitrary<Mutation> = fc.record({
      kind: fc.constantFrom(...MUTATION_KINDS),
      pick: fc.nat({ max: 10_000 }),
      value: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(-1, 1.5, '', 'x', true, null, [], {})),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...operations),
        fc.nat({ max: 2 ** 31 - 1 }),
        fc.boolean(),
        fc.option(mutation, { freq: 2 }),
        async (operation, seed, known, change) => {
          const drawn = withKnownIds(operation, await fuzzer.draw(operation, seed), known);
          const request = fuzzer.asSent(operation, change ? mutate(drawn, change) : drawn);
          const verdict = fuzzer.judge(operation, request);
          const wire = fuzzer.wire(operation, request);
          const response = await conformingFetch(`${sandbox.baseUrl}${wire.target}`, {
            method: operation.method,
            headers: { ...wire.headers, authorization: credentials(operation) },
            ...(wire.body !== undefined ? { body: wire.body } : {}),
          });
          const text = await response.text();
          const body = text ? JSON.parse(text) : undefined;
          const named = Object.keys(body?.errors ?? {});
          const where = `${operation.id} ${operation.method} ${wire.target} ${wire.body?.slice(0, 400) ?? ''} → ${response.status} ${text.slice(0, 400)}`;
          const counts = verdict.valid ? tally.valid : tally.invalid;
          counts[response.status] = (counts[response.status] ?? 0) + 1;
          if (verdict.valid) {
            if (response.status === 400) {
              const unlisted = named.filter(
                (field) => !operation.rules.some((r) => r.status === 400 && ruleNames(r, field)),
              );
              for (const field of named) {
                const rule = operation.rules.find((r) => r.status === 400 && ruleNames(r, field));
                if (rule) tally.rules[rule.id] = (tally.rules[rule.id] ?? 0) + 1;
              }
              expect(unlisted, `valid by the contract, refused for fields no business rule names: ${where}`).toEqual(
                [],
              );
            } else if (response.status >= 300) {
              expect(BUSINESS.has(response.status), `valid by the contract: ${where}`).toBe(true);
            }
          } else {
            expect(response.status, `invalid (${verdict.fields.join(', ')}): ${where}`).toBe(400);
            expect(
              named.some((field) => verdict.fields.some((found) => sameField(field, found))),
              `invalid at ${verdict.fields.join(', ')}, the 400 names ${named.join(', ')}: ${where}`,
            ).toBe(true);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // The draw reaches both sides, and valid requests get through.
    const sum = (counts: Record<number, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    expect(sum(tally.valid)).toBeGreaterThan(RUNS / 10);
    expect(sum(tally.invalid)).toBeGreaterThan(RUNS / 10);
    expect(Object.keys(tally.valid).some((status) => Number(status) < 300)).toBe(true);
  }, 120_000);
});
