// Every 4xx the sandbox gives a client's mistake says what was wrong: for every operation of the
// contract, its 401 (no credentials: the challenges of the schemes it accepts), its 400 for a
// malformed body or parameter and for a body without its required fields, its 415, its 404 for an
// unknown id, its 409 for an Idempotency-Key used with another request, and the 422s the sandbox
// gives. Each body goes through the conformance check (non-empty, valid against the declared
// schema, required headers present) and must name the problem: a `detail`, the offending field in
// `errors` (or `field`), an OAuth `error_description`, or an operation result's
// `responseDescription`. One store is enough: the answers are made above the store.
import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import type { OperationContract } from '../../sandbox/contract/api-document.js';
import { deref, isObject, type JsonObject, operationById, requiredOf } from '../../tooling/openapi/walker.js';
import { bearerOf, sandboxContract, sandboxPerSuite } from '../support/sandbox.js';

const contract = sandboxContract();
const operations = [...contract.operations.values()];
const doc = contract.document;

/** The path of an operation with the contract's example for each path parameter (unknown to a fresh sandbox). */
const pathOf = (op: OperationContract<OperationId>) =>
  op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(contract.examples.pathParameter(op.id, name)),
  );

const requestExample = (op: OperationContract<OperationId>): JsonObject => {
  try {
    return contract.examples.request<JsonObject>(op.id);
  } catch {
    return {};
  }
};

/** The required members of an operation's body schema. */
const requiredBodyFields = (op: OperationContract<OperationId>): string[] => {
  const body = deref<JsonObject>(doc, operationById(doc, op.id).operation.requestBody);
  const media = isObject(body?.content) ? Object.values(body.content)[0] : undefined;
  return isObject(media) ? [...requiredOf(doc, media.schema)] : [];
};

/** What a 4xx body says was wrong: every text that names it (empty when it names nothing). */
function named(body: unknown): string[] {
  if (!isObject(body)) return [];
  const out: string[] = [];
  for (const key of ['detail', 'error_description', 'responseDescription', 'error'] as const)
    if (typeof body[key] === 'string' && body[key] !== '') out.push(String(body[key]));
  if (typeof body.field === 'string' && body.field !== '') out.push(body.field);
  if (isObject(body.errors))
    for (const [field, messages] of Object.entries(body.errors))
      if (Array.isArray(messages) && messages.length > 0) out.push(field);
  return out;
}

/** The fields a body names as offending: the keys of `errors`, `field`, or those quoted in an OAuth description. */
const offending = (body: any): string[] =>
  isObject(body?.errors)
    ? Object.keys(body.errors)
    : typeof body?.field === 'string'
      ? [body.field]
      : typeof body?.error_description === 'string'
        ? [body.error_description.split(' ')[0]]
        : [];

const expectNamed = (body: unknown, what: string) => {
  expect(isObject(body) && Object.keys(body).length > 0, `${what}: an empty body`).toBe(true);
  expect(named(body), `${what}: names nothing: ${JSON.stringify(body)}`).not.toEqual([]);
};

const byKind = {
  json: operations.filter((op) => op.requestMediaType === 'application/json'),
  form: operations.filter((op) => op.requestMediaType === 'application/x-www-form-urlencoded'),
  query: operations.filter((op) => !op.requestMediaType && op.parameters.some((p) => p.in === 'query')),
  pathOnly: operations.filter(
    (op) =>
      !op.requestMediaType &&
      !op.parameters.some((p) => p.in === 'query') &&
      op.parameters.some((p) => p.in === 'path'),
  ),
  notFound: operations.filter((op) => op.responses.has(404) && op.parameters.some((p) => p.in === 'path')),
  idempotent: operations.filter((op) => op.idempotent && op.responses.has(409)),
};

describe('4xx bodies of every operation name what was wrong', () => {
  const sandbox = sandboxPerSuite(async () => ':memory:');
  let bearer: string | undefined;
  /** Credentials every operation accepts: a bearer token (the only one payment intent confirmation takes). */
  const credentials = async () => {
    bearer ??= await bearerOf(sandbox());
    return { authorization: bearer };
  };
  const call = async (
    op: OperationContract<OperationId>,
    options: { path?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    sandbox().call(op.method.toUpperCase(), options.path ?? pathOf(op), {
      ...(options.body !== undefined ? { body: options.body } : {}),
      headers: { ...(await credentials()), ...options.headers },
    });

  it('covers every operation with at least its 401 and a 400', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations)
      expect(
        byKind.json.includes(op) ||
          byKind.form.includes(op) ||
          byKind.query.includes(op) ||
          byKind.pathOnly.includes(op),
        op.id,
      ).toBe(true);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: 401 with the challenges it accepts', async (_id, op) => {
    const r = await sandbox().call(op.method.toUpperCase(), pathOf(op), { headers: { authorization: '' } });
    expect(r.status).toBe(401);
    expect(op.challenge).toMatch(/^(Basic|Bearer) realm="Payment Service API v2"/);
    expect(r.headers.get('www-authenticate')).toBe(op.challenge);
    expectNamed(r.body, `${op.id} 401`);
  });

  it.each(byKind.json.map((op) => [op.id, op] as const))('%s: 400 for malformed JSON', async (_id, op) => {
    const r = await call(op, { body: '{"transId": ' });
    expect(r.status).toBe(400);
    expectNamed(r.body, `${op.id} 400`);
    expect(offending(r.body)).toContain('(body)');
  });

  const withRequired = byKind.json.filter((op) => requiredBodyFields(op).length > 0);
  it.each(withRequired.map((op) => [op.id, op] as const))(
    '%s: 400 for a body without its required fields, naming one',
    async (_id, op) => {
      const r = await call(op, { body: {} });
      expect(r.status).toBe(400);
      expectNamed(r.body, `${op.id} 400`);
      const fields = offending(r.body);
      expect(
        requiredBodyFields(op).some((name) => fields.some((f) => f === name || f.startsWith(`${name}.`))),
        `${op.id} names ${fields.join(', ')}`,
      ).toBe(true);
    },
  );

  it.each(byKind.json.map((op) => [op.id, op] as const))('%s: 415 for a body of another type', async (_id, op) => {
    const r = await call(op, { body: 'transId=1', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expectNamed(r.body, `${op.id} 415`);
  });

  it.each(byKind.form.map((op) => [op.id, op] as const))('%s: 400 for an unsupported grant type', async (_id, op) => {
    const r = await call(op, {
      body: 'grant_type=password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unsupported_grant_type');
    expect(offending(r.body)).toEqual(['grant_type']);
  });

  it.each(byKind.query.map((op) => [op.id, op] as const))('%s: 400 for an unknown query parameter', async (_id, op) => {
    const r = await call(op, { path: `${pathOf(op)}?NoSuchFilter=1` });
    expect(r.status).toBe(400);
    expectNamed(r.body, `${op.id} 400`);
    expect(offending(r.body).join(' ')).toContain('NoSuchFilter');
  });

  it.each(byKind.pathOnly.map((op) => [op.id, op] as const))(
    '%s: 400 for a path parameter that is not valid percent-encoding',
    async (_id, op) => {
      const name = op.parameters.find((p) => p.in === 'path')!.name;
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => (n === name ? '%ZZ' : 'x'));
      const r = await call(op, { path });
      expect(r.status).toBe(400);
      expectNamed(r.body, `${op.id} 400`);
      expect(offending(r.body)).toContain(name);
    },
  );

  it.each(byKind.notFound.map((op) => [op.id, op] as const))('%s: 404 for an unknown id', async (_id, op) => {
    const r = await call(op, op.requestMediaType ? { body: requestExample(op) } : {});
    expect(r.status).toBe(404);
    expectNamed(r.body, `${op.id} 404`);
  });

  it.each(byKind.idempotent.map((op) => [op.id, op] as const))(
    '%s: 409 for an Idempotency-Key used with another request',
    async (_id, op) => {
      const key = `key-${op.id}`;
      const body = requestExample(op);
      const first = await call(op, { body, headers: { 'idempotency-key': key } });
      expect(first.status).toBeLessThan(500);
      const other =
        typeof body.transId === 'string'
          ? { ...body, transId: `${body.transId}-other` }
          : { ...body, integrationType: body.integrationType === 'HOSTED' ? 'DIRECT' : 'HOSTED' };
      const r = await call(op, { body: other, headers: { 'idempotency-key': key } });
      expect(r.status).toBe(409);
      expectNamed(r.body, `${op.id} 409`);
    },
  );

  describe('refundPayment', () => {
    const refund = operations.find((op) => op.id === 'refundPayment')!;
    const problemBranch = contract.validator('#/components/schemas/ValidationProblem');
    const legacyBranch = contract.validator('#/components/schemas/LegacyRefundValidationError');

    it.each([
      ['a missing amount', 'amount', (b: JsonObject) => ({ ...b, amount: undefined })],
      [
        'a currency that is no ISO code',
        'amount.currency',
        (b: JsonObject) => ({ ...b, amount: { value: 100, currency: 'US' } }),
      ],
      ['malformed JSON', '(body)', () => '{"amount": '],
    ] as const)(
      'a 400 for %s is the problem body of the 2.4.0 description, naming %s',
      async (_what, field, change) => {
        const r = await call(refund, { body: change(requestExample(refund)) });
        expect(r.status).toBe(400);
        expect(problemBranch(r.body), JSON.stringify(problemBranch.errors)).toBe(true);
        expect(legacyBranch(r.body)).toBe(false);
        expect(r.body).toMatchObject({ status: 400, title: expect.any(String), type: expect.any(String) });
        expect(Object.keys(r.body.errors)).toContain(field);
      },
    );
  });

  describe('422: an operation the payment refuses, with the operation result saying why', () => {
    const payment = (transId: string) => ({
      transId,
      amount: { value: 2500, currency: 'USD' },
      captureMethod: { type: 'MANUAL' },
      paymentMethods: { integrationType: 'DIRECT', type: 'CARD' },
    });
    const op = (id: OperationId) => operations.find((o) => o.id === id)!;

    it('createPayment with a transId already used', async () => {
      expect((await call(op('createPayment'), { body: payment('dup-1') })).status).toBe(201);
      const r = await call(op('createPayment'), { body: payment('dup-1') });
      expect(r.status).toBe(422);
      expectNamed(r.body, 'createPayment 422');
    });

    it('refundPayment of a payment not captured', async () => {
      const created = await call(op('createPayment'), { body: payment('uncaptured-1') });
      expect(created.status).toBe(201);
      const r = await call(op('refundPayment'), {
        path: `/payments/${created.body.payId}/refunds`,
        body: { transId: 'refund-1', amount: { value: 100, currency: 'USD' } },
      });
      expect(r.status).toBe(422);
      expectNamed(r.body, 'refundPayment 422');
    });
  });
});
