// Property-based tests (fast-check) of the sandbox: every operation of the contract, called with its
// documented examples (valid) and with random mutations of them and random JSON (invalid), never
// answers 5xx, always answers as the contract declares (conformingFetch checks each response), and
// the server keeps serving. Deterministic (fixed seed): a failure reproduces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deref, isObject, type JsonObject, operations, parametersOf } from '../../tooling/openapi/walker.js';
import { databases, HTTP_STORES } from '../support/postgres.js';
import { conformingFetch, sandboxContract, sandboxPerSuite } from '../support/sandbox.js';

const dbs = databases();
const RUNS = { sqlite: 40, postgres: 15 } as const;

interface OperationCase {
  id: string;
  method: string;
  path: string;
  pathParams: string[];
  /** Documented request examples (values of the Example Objects). */
  bodies: unknown[];
  mediaType: string | undefined;
  /** Query parameters and their documented example values. */
  query: Record<string, unknown>;
}

function operationCases(): OperationCase[] {
  const doc = sandboxContract().document as JsonObject;
  return operations(doc, ['paths']).map((entry) => {
    const body = entry.operation.requestBody ? deref<JsonObject>(doc, entry.operation.requestBody) : undefined;
    const [mediaType, media] = Object.entries((body?.content ?? {}) as Record<string, JsonObject>)[0] ?? [];
    const bodies = [
      ...(media?.example !== undefined ? [media.example] : []),
      ...Object.values(isObject(media?.examples) ? media.examples : {}).map((e) => deref<JsonObject>(doc, e).value),
    ];
    const parameters = parametersOf(doc, entry);
    return {
      id: String(entry.operation.operationId),
      method: entry.method.toUpperCase(),
      path: entry.key,
      pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      bodies,
      mediaType,
      query: Object.fromEntries(
        parameters.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, p.example]),
      ),
    };
  });
}

/** A JSON value changed at one random place: removed, replaced by any JSON, or given an unknown sibling. */
function mutation(value: unknown): fc.Arbitrary<unknown> {
  const paths: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    paths.push(path);
    if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) walk(child, [...path, k]);
  };
  walk(value, []);
  return fc
    .tuple(
      fc.constantFrom(...paths),
      fc.constantFrom('remove', 'replace', 'add'),
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 12 }),
    )
    .map(([path, kind, any, key]) => {
      const copy = structuredClone(value) as Record<string, unknown>;
      if (path.length === 0) return kind === 'add' && isObject(copy) ? { ...copy, [key]: any } : any;
      const parent = path
        .slice(0, -1)
        .reduce<Record<string, unknown>>((node, k) => node[k] as Record<string, unknown>, copy);
      const last = path.at(-1)!;
      if (kind === 'remove') delete parent[last];
      else if (kind === 'replace') parent[last] = any;
      else if (isObject(parent[last])) (parent[last] as Record<string, unknown>)[key] = any;
      return copy;
    });
}

describe.each(HTTP_STORES)('fuzzing every operation (%s)', (kind) => {
  const sandbox = sandboxPerSuite(() => dbs.database(kind));

  const cases = operationCases();
  let unique = 0;
  /** Documented bodies get fresh transIds, so that each valid call does what it says rather than hit a taken one. */
  const fresh = (body: unknown) =>
    isObject(body) && typeof body.transId === 'string'
      ? { ...body, transId: `${String(body.transId).slice(0, 40)}-${++unique}` }
      : body;

  it.each(cases.map((c) => [c.id, c]))(
    '%s: valid and invalid input, never a 5xx, always as the contract says',
    async (_id, c) => {
      const pathValue = fc.oneof(
        fc.constant('unknown'),
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.constant('%E2%82%AC'),
        fc.constant('a'.repeat(300)),
      );
      const bodyArbitrary =
        c.bodies.length > 0
          ? fc.oneof(
              { weight: 2, arbitrary: fc.constantFrom(...c.bodies).map(fresh) },
              { weight: 3, arbitrary: fc.constantFrom(...c.bodies).chain(mutation) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
            )
          : fc.constant(undefined);
      const queryArbitrary = fc.oneof(
        fc.constant(c.query),
        fc.dictionary(
          fc.constantFrom(...Object.keys(c.query), 'Page', 'unknown'),
          fc.oneof(fc.string({ maxLength: 10 }), fc.integer().map(String)),
        ),
      );
      const contentType = fc.oneof(
        { weight: 5, arbitrary: fc.constant(c.mediaType ?? 'application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1') },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathValue, { minLength: c.pathParams.length, maxLength: c.pathParams.length }),
          bodyArbitrary,
          queryArbitrary,
          contentType,
          async (ids, body, query, type) => {
            let path = c.path;
            c.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, encodeURIComponent(ids[i]!))));
            const search = new URLSearchParams(
              Object.entries(query as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
            ).toString();
            const form = type === 'application/x-www-form-urlencoded';
            const encoded =
              body === undefined
                ? undefined
                : form && isObject(body)
                  ? new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString()
                  : JSON.stringify(body);
            const response = await conformingFetch(`${sandbox().baseUrl}${path}${search ? `?${search}` : ''}`, {
              method: c.method,
              headers: { authorization: sandbox().basic(), ...(encoded !== undefined ? { 'content-type': type } : {}) },
              ...(encoded !== undefined ? { body: encoded } : {}),
            });
            expect(response.status, `${c.method} ${path}`).toBeLessThan(500);
          },
        ),
        { numRuns: RUNS[kind], seed: 20261124, endOnFailure: true },
      );
    },
  );

  it('keeps serving afterwards', async () => {
    expect((await sandbox().call('GET', '/customers')).status).toBe(200);
  });
});
