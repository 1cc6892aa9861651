// The contract's `x-business-rules` (on operations, and on the document for every operation) and the
// sandbox agree: each listed rule is broken once by a request that keeps to the schemas (the
// operation's own example, on a merchant given the contract's examples) and gets the rule's status,
// naming its field (400) or carrying its response code (422); every rule this test knows how to break
// is listed. The currency conversion quote and the BIN check give one verdict on every card range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../generated/operations.js';
import type { ResponseCodeName } from '../../sandbox/domain/context.js';
import { CARD_RANGES, EURO_RATES } from '../../sandbox/domain/services.js';
import type { JsonObject } from '../../tooling/openapi/walker.js';
import { type BusinessRule, type FuzzOperation, fuzzOperations } from '../support/request-fuzz.js';
import { bearerOf, sandboxContract, seedExamples, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

type Body = Record<string, any>;

interface Attempt {
  body: Body | string;
  /** Path parameters other than the examples'. */
  path?: Record<string, string>;
  /** A request sent before, for a rule about what exists already. */
  before?: Body;
}

/** Sets `value` at a dotted path of `body`, making the objects on the way. */
function setAt(body: Body, field: string, value: unknown): Body {
  const keys = field.split('.');
  let node = body;
  for (const key of keys.slice(0, -1)) node = node[key] = typeof node[key] === 'object' && node[key] ? node[key] : {};
  node[keys.at(-1)!] = value;
  return body;
}

/** A card in the request where the rule's field puts it (a DIRECT card payment when it is the payment's). */
const withCard = (body: Body, field: string, value: string): Body => {
  if (field.startsWith('paymentMethods.')) body.paymentMethods = { integrationType: 'DIRECT', type: 'CARD' };
  return setAt(body, field, value);
};

const otherCurrency = (body: Body) => (body.amount?.currency === 'USD' ? 'EUR' : 'USD');
const LARGEST = 999_999_999_999;

/** How to break each rule, from the operation's example body (a copy, its transId fresh). */
const BREAKERS: Record<string, (body: Body, rule: BusinessRule) => Attempt> = {
  'expiration-in-future': (body) => ({ body: { ...body, expirationTime: '2001-01-01T00:00:00Z' } }),
  'return-url-scheme': (body) => ({ body: setAt(body, 'urls.return', 'ftp://shop.example/return') }),
  'cancel-url-scheme': (body) => ({ body: setAt(body, 'urls.cancel', 'ftp://shop.example/cancel') }),
  'webhook-destination': (body) => ({ body: setAt(body, 'urls.webhook', 'http://169.254.169.254/hooks') }),
  'card-number': (body, rule) => ({ body: withCard(body, rule.field, '4111111111111112') }),
  'card-expiry': (body, rule) => ({ body: withCard(body, rule.field, '202613') }),
  'transid-unique': (body) => ({ before: body, body: { ...body } }),
  'amount-currency': (body) => ({ body: setAt(body, 'amount', { value: 100, currency: otherCurrency(body) }) }),
  'amount-positive': (body) => ({
    body: setAt(body, 'amount', { value: 0, currency: body.amount?.currency ?? 'EUR' }),
  }),
  'capture-within-authorized': (body) => ({ body: setAt(body, 'amount.value', LARGEST) }),
  'refund-within-captured': (body) => ({ body: setAt(body, 'amount.value', LARGEST) }),
  'reversal-within-authorized': (body) => ({
    body: setAt(body, 'amount', { value: LARGEST, currency: body.amount?.currency ?? 'EUR' }),
  }),
  'plan-charge-recurring-amount': (body) => ({
    body: setAt(body, 'amount', { value: 100, currency: 'EUR' }),
    path: { paymentPlanId: sandboxContract().examples.pathParameter('getPaymentPlan', 'paymentPlanId') },
  }),
  'plan-charge-unscheduled-amount': ({ amount: _, ...body }) => ({ body }),
  'plan-charge-positive': (body) => ({ body: setAt(body, 'amount.value', 0) }),
  'dcc-card-range': (body) => ({ body: { ...body, bin: '999999' } }),
  'dcc-exchange-rate': (body) => ({ body: setAt(body, 'amount.currency', 'AUD') }),
  'text-storable': (body) => ({ body: { ...body, transId: 'NUL\u0000IN-TRANSID' } }),
  'metadata-size': (body) => ({ body: { ...body, metadata: { blob: 'x'.repeat(17_000) } } }),
  'body-nesting': (body) => ({
    body: `${JSON.stringify(body).slice(0, -1)},"deep":${'['.repeat(65)}${']'.repeat(65)}}`,
  }),
};

/** Where a document-wide rule is exercised: one operation that carries every such field. */
const DOCUMENT_RULES_ON: OperationId = 'createPayment';

/** The rules as the contract lists them: each operation's own, then the document's on one operation. */
function listedRules(): Array<{ operation: FuzzOperation; rule: BusinessRule }> {
  const document = sandboxContract().document as JsonObject;
  const everywhere = new Set(
    ((document['x-business-rules'] as { rules?: BusinessRule[] } | undefined)?.rules ?? []).map((r) => r.id),
  );
  return fuzzOperations(document).flatMap((operation) =>
    operation.rules
      .filter((rule) => !everywhere.has(rule.id) || operation.id === DOCUMENT_RULES_ON)
      .map((rule) => ({ operation, rule })),
  );
}

describe('x-business-rules: each listed rule is what the sandbox does', () => {
  let sandbox: TestSandbox;
  let bearer: string;
  let unique = 0;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    await seedExamples(sandbox);
    bearer = await bearerOf(sandbox);
  }, 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  const send = (operation: FuzzOperation, body: Body | string, path: Record<string, string> = {}) => {
    const examples = sandboxContract().examples;
    let target = operation.path;
    for (const p of operation.parameters.filter((p) => p.in === 'path'))
      target = target.replace(
        `{${p.name}}`,
        encodeURIComponent(path[p.name] ?? examples.pathParameter(operation.id as OperationId, p.name)),
      );
    return sandbox.call(operation.method, target, {
      body,
      ...(operation.id === 'confirmPaymentIntent' ? { headers: { authorization: bearer } } : {}),
    });
  };

  it('every rule the contract lists has a way to break it here, and every way here is a listed rule', () => {
    const listed = new Set(listedRules().map(({ rule }) => rule.id));
    expect(
      [...listed].filter((id) => !BREAKERS[id]),
      'listed rules this test cannot break',
    ).toEqual([]);
    expect(
      Object.keys(BREAKERS).filter((id) => !listed.has(id)),
      'rules listed nowhere',
    ).toEqual([]);
  });

  it.each(listedRules().map(({ operation, rule }) => [operation.id, rule.id, operation, rule] as const))(
    '%s: breaking %s',
    async (_op, _id, operation, rule) => {
      const example = structuredClone(sandboxContract().examples.request<Body>(operation.id as OperationId));
      if (typeof example.transId === 'string') example.transId = `${rule.id}-${++unique}`.slice(0, 64);
      const attempt = BREAKERS[rule.id]!(example, rule);
      if (attempt.before) expect((await send(operation, attempt.before, attempt.path)).status).toBeLessThan(300);
      const r = await send(operation, attempt.body, attempt.path);
      expect(r.status, JSON.stringify(r.body)).toBe(rule.status);
      if (rule.status === 400) {
        const named = Object.keys(r.body.errors ?? {});
        const field = rule.field === '*' ? 'transId' : rule.field;
        expect(named).toContain(field === 'metadata' ? 'metadata' : field);
      } else {
        const code = sandboxContract().tables.codes[rule.responseCode as ResponseCodeName];
        expect(r.body.responseCode).toBe(code?.responseCode);
      }
    },
  );

  it('the quote is given exactly when the BIN check says the card range is eligible, for every range and currency', async () => {
    const currencies = [...Object.keys(EURO_RATES), 'AUD'];
    const bins = [...CARD_RANGES.map((r) => r.prefix), '999999'];
    let quoted = 0;
    for (const bin of bins) {
      for (const currency of currencies) {
        const check = await sandbox.call('POST', '/services/dcc/bin-check', { body: { bin, amount: { currency } } });
        const quote = await sandbox.call('POST', '/services/dcc/quote', {
          body: { bin, amount: { value: 1000, currency } },
        });
        expect(check.status).toBe(200);
        expect([check.body.dccEligible, quote.status], `${bin} ${currency}`).toEqual(
          check.body.dccEligible ? [true, 200] : [false, 400],
        );
        if (quote.status === 200) quoted++;
      }
    }
    expect(quoted).toBeGreaterThan(0);
  });
});
