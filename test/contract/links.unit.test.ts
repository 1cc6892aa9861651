// The contract's links (OpenAPI Link Objects): the chains a client, and a contract verifier,
// follows from one answer to the next request. Each link is named, lives in
// openapi/components/links/<Name>.yaml and is used by `$ref`; none is documented (the interface
// document shows no links), so each is marked inferred with its reason. Held here for every link:
// its target exists, its parameters are the target's (every path parameter given), each runtime
// expression reads what the source's 2xx response declares (or a path parameter of the source
// request), the examples' values at those places fit the target's parameters, and the chains the
// contract promises are there. npm run lint holds the first three too (house-links-resolve).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countProvenance } from '../../generator/review/provenance.js';
import {
  componentsOf,
  getAt,
  isObject,
  isReference,
  type OperationEntry,
  operationById,
  operations,
  parametersOf,
  parsePointer,
  requiredOf,
  schemaAt,
  toPointer,
  tryResolve,
} from '../../tooling/openapi/walker.js';
import { type JsonObject, loadBundle } from '../support/openapi.js';
import { createSchemaValidator, formatErrors } from '../support/schema.js';

const doc = loadBundle();
const validator = createSchemaValidator(doc);
const LINKS_DIR = join(import.meta.dirname, '..', '..', 'openapi', 'components', 'links');

interface Use {
  source: OperationEntry;
  status: string;
  response: JsonObject;
  /** The key of the response's `links` map. */
  key: string;
  /** `#/components/links/<Name>`. */
  ref: string;
  link: JsonObject;
}

/** Every use of a link by a response of an operation. */
const uses: Use[] = operations(doc, ['paths']).flatMap((source) =>
  Object.entries(source.operation.responses ?? {}).flatMap(([status, raw]) => {
    const response = tryResolve<JsonObject>(doc, raw)!.node;
    return Object.entries((response.links ?? {}) as JsonObject).map(([key, value]) => ({
      source,
      status,
      response,
      key,
      ref: isReference(value) ? value.$ref : '(inline)',
      link: tryResolve<JsonObject>(doc, value)!.node,
    }));
  }),
);
const named = componentsOf(doc, 'links') as Record<string, JsonObject>;
const id = (entry: OperationEntry) => String(entry.operation.operationId);
const at = (u: Use) => `${id(u.source)} ${u.status} → ${u.key}`;

/** The place where a parameter of an operation lives, followed through its $ref. */
function parameterPointer(entry: OperationEntry, name: string): string {
  const listed = [
    ...((entry.pathItem.parameters ?? []) as unknown[]).map((p, i) => [
      p,
      [...entry.tokens.slice(0, -1), 'parameters', i],
    ]),
    ...((entry.operation.parameters ?? []) as unknown[]).map((p, i) => [p, [...entry.tokens, 'parameters', i]]),
  ] as Array<[unknown, string[]]>;
  for (const [raw, tokens] of listed) {
    const resolved = tryResolve<JsonObject>(doc, raw, tokens)!;
    if (resolved.node.name === name) return toPointer(resolved.tokens ?? tokens);
  }
  throw new Error(`${id(entry)} has no parameter ${name}`);
}

/** The JSON schemas of a response's media types, as written. */
const responseSchemas = (response: JsonObject) =>
  Object.values((response.content ?? {}) as Record<string, JsonObject>).map((media) => media.schema);

/** The example values of a response's media types (inline and referenced Example Objects). */
const responseExamples = (response: JsonObject): unknown[] =>
  Object.values((response.content ?? {}) as Record<string, JsonObject>).flatMap((media) => [
    ...(media.example !== undefined ? [media.example] : []),
    ...Object.values((media.examples ?? {}) as JsonObject).map((e) => tryResolve<JsonObject>(doc, e)!.node.value),
  ]);

const BODY = /^\$response\.body#(\/.+)$/;
const PATH = /^\$request\.path\.([A-Za-z][A-Za-z0-9]*)$/;

describe('links: the layout', () => {
  it('are named: one file per link in openapi/components/links/, each used by $ref and used at least once', () => {
    const files = readdirSync(LINKS_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => f.slice(0, -'.yaml'.length))
      .sort();
    expect(Object.keys(named).sort()).toEqual(files);
    expect(files.length).toBeGreaterThan(10);
    expect(uses.filter((u) => !u.ref.startsWith('#/components/links/')).map(at)).toEqual([]);
    const used = new Set(uses.map((u) => u.ref));
    expect(files.filter((name) => !used.has(`#/components/links/${name}`))).toEqual([]);
  });

  it('are links of 2xx answers only, keyed by their target operationId', () => {
    expect(uses.filter((u) => !/^2\d\d$/.test(u.status)).map(at)).toEqual([]);
    expect(uses.filter((u) => u.key !== u.link.operationId).map(at)).toEqual([]);
  });

  it('are each inferred, with a description that starts with its reason', () => {
    for (const [name, link] of Object.entries(named)) {
      expect(link['x-provenance'], name).toBe('inferred');
      expect(String(link.description), name).toMatch(/^Inferred: \S.+\. \S.+/s);
    }
    const counted = countProvenance(doc).links;
    expect(counted, 'npm run provenance counts every link, inferred').toEqual({
      documented: 0,
      inferred: Object.keys(named).length,
      total: Object.keys(named).length,
    });
  });
});

describe('links: each can be followed', () => {
  it.each(uses.map((u) => [at(u), u] as const))('%s', (_name, u) => {
    // the target exists, names its operation by operationId, and takes these parameters
    expect(u.link.operationRef, 'targets are named by operationId').toBeUndefined();
    const target = operationById(doc, String(u.link.operationId));
    expect(target.operation.operationId).not.toBe(u.source.operation.operationId); // no link to itself
    const targetParameters = parametersOf(doc, target);
    const given = (u.link.parameters ?? {}) as Record<string, unknown>;
    expect(Object.keys(given).length).toBeGreaterThan(0);
    for (const name of Object.keys(given))
      expect(
        targetParameters.map((p) => p.name),
        `${name} is a parameter of ${target.operation.operationId}`,
      ).toContain(name);
    for (const p of targetParameters.filter((p) => p.in === 'path'))
      expect(Object.keys(given), `path parameter ${p.name} is given`).toContain(p.name);
    expect(u.link.requestBody, 'no link fills a body').toBeUndefined();

    for (const [name, expression] of Object.entries(given)) {
      const into = parameterPointer(target, name);
      const fits = (value: unknown, what: string) => {
        const errors = validator.validate(`${into}/schema`, value);
        expect(errors, `${what} fits ${target.operation.operationId}'s ${name}: ${formatErrors(errors)}`).toEqual([]);
      };
      const body = BODY.exec(String(expression));
      const path = PATH.exec(String(expression));
      expect(
        body ?? path,
        `${String(expression)}: a response body pointer or a path parameter of the request`,
      ).not.toBeNull();
      if (body) {
        // declared by every media type's schema of the source's answer…
        const tokens = parsePointer(body[1]!);
        const schemas = responseSchemas(u.response);
        expect(schemas.length, 'the answer has a body').toBeGreaterThan(0);
        for (const schema of schemas) {
          const found = schemaAt(doc, schema, tokens);
          expect(found, `${body[1]} is declared in ${JSON.stringify(schema)}`).toBeDefined();
          expect(isObject(tryResolve(doc, found)?.node), `${body[1]} is a schema`).toBe(true);
        }
        // …and, in each of its examples, either a value the target accepts or an optional field left out
        const examples = responseExamples(u.response);
        expect(examples.length).toBeGreaterThan(0);
        for (const example of examples) {
          const value = getAt(example, tokens);
          if (value !== undefined) fits(value, `the example's ${body[1]}`);
          else {
            const parent = schemaAt(doc, responseSchemas(u.response)[0], tokens.slice(0, -1));
            const last = tokens.at(-1)!;
            const optional = /^\d+$/.test(last) || !requiredOf(doc, parent).has(last);
            expect(optional, `an example lacks ${body[1]}, which the schema requires`).toBe(true);
          }
        }
      } else {
        const source = parametersOf(doc, u.source).find((p) => p.in === 'path' && p.name === path![1]);
        expect(source, `${id(u.source)} has the path parameter ${path![1]}`).toBeDefined();
        fits(
          getAt(doc, parsePointer(`${parameterPointer(u.source, path![1]!)}/example`)),
          `the source's ${path![1]} example`,
        );
      }
    }
  });
});

describe('links: the chains', () => {
  /** A payment's reads and the operations on it, each filled with `id` ← its `payId`. */
  const PAYMENT = [
    'getPaymentByPayId',
    'confirmPayment',
    'incrementAuthorization',
    'capturePayment',
    'reversePayment',
    'refundPayment',
    'updatePayment',
  ];
  const without = (self: string, ...more: string[]) => [...PAYMENT.filter((t) => t !== self), ...more];

  it('are the ones the contract promises, from each answer (source operationId and status → targets)', () => {
    const chains: Record<string, string[]> = {};
    for (const u of uses) {
      const key = `${id(u.source)} ${u.status}`;
      chains[key] = [...(chains[key] ?? []), String(u.link.operationId)];
    }
    const sorted = (o: Record<string, string[]>) =>
      Object.fromEntries(
        Object.entries(o)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, [...v].sort()]),
      );
    expect(sorted(chains)).toEqual(
      sorted({
        // a created payment (by the merchant, by the app's intent, by a plan's charge): its reads and operations
        'createPayment 201': [...PAYMENT, 'getPaymentByTransId'],
        'confirmPaymentIntent 201': [...PAYMENT, 'getPaymentByTransId'],
        'chargePaymentPlan 201': [...PAYMENT, 'getPaymentByTransId', 'getPaymentPlan'],
        // an operation's answer: its transId is the operation's, so no read by transId
        'confirmPayment 200': without('confirmPayment'),
        'incrementAuthorization 200': without('incrementAuthorization'),
        'capturePayment 200': without('capturePayment'),
        'reversePayment 200': without('reversePayment'),
        'refundPayment 200': without('refundPayment'),
        // a refund without reference is a record of its own: it can be read, not operated on
        'createUnreferencedRefund 200': ['getPaymentByPayId', 'getPaymentByTransId'],
        // the payment's details: its operations, its other read and its plan
        'getPaymentByPayId 200': without('getPaymentByPayId', 'getPaymentByTransId', 'getPaymentPlan'),
        'getPaymentByTransId 200': [...PAYMENT, 'getPaymentPlan'],
        'updatePayment 200': without('updatePayment', 'getPaymentByTransId', 'getPaymentPlan'),
        // plans to their payments
        'getPaymentPlan 200': ['listPaymentPlanPayments', 'chargePaymentPlan'],
        // a payment intent to its confirmation
        'createPaymentIntent 201': ['confirmPaymentIntent'],
        // customers to their payment methods and plans
        'listCustomers 200': ['getCustomer'],
        'getCustomer 200': ['listCustomerPaymentMethods', 'listCustomerPaymentPlans', 'deleteCustomer'],
        'updateCustomer 200': ['listCustomerPaymentMethods', 'listCustomerPaymentPlans', 'deleteCustomer'],
        'listCustomerPaymentMethods 200': ['getCustomerPaymentMethod'],
        'getCustomerPaymentMethod 200': ['deleteCustomerPaymentMethod'],
      }),
    );
  });

  it('fill each parameter from the field that names the object', () => {
    const filled = new Set(uses.map((u) => `${u.link.operationId}: ${JSON.stringify(u.link.parameters)}`));
    expect([...filled].sort()).toEqual(
      [
        ...PAYMENT.map((t) => `${t}: {"id":"$response.body#/payId"}`),
        'getPaymentByTransId: {"id":"$response.body#/transId"}',
        'getPaymentPlan: {"paymentPlanId":"$response.body#/paymentPlanId"}',
        'listPaymentPlanPayments: {"paymentPlanId":"$response.body#/id"}',
        'chargePaymentPlan: {"paymentPlanId":"$response.body#/id"}',
        'confirmPaymentIntent: {"id":"$response.body#/id"}',
        // with the merchantCustomerId filter, the one customer of that id
        'getCustomer: {"id":"$response.body#/data/0/id"}',
        'listCustomerPaymentMethods: {"id":"$response.body#/id"}',
        'listCustomerPaymentPlans: {"customerId":"$response.body#/id"}',
        'deleteCustomer: {"id":"$response.body#/id"}',
        // no single answer carries a stored method's id: the page's first
        'getCustomerPaymentMethod: {"customerId":"$request.path.id","paymentMethodId":"$response.body#/data/0/id"}',
        'deleteCustomerPaymentMethod: {"customerId":"$request.path.customerId","paymentMethodId":"$response.body#/id"}',
      ].sort(),
    );
  });
});
