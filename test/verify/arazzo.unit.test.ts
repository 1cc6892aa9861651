// payment-verify's Arazzo runner (packages/verify/src/arazzo.ts) without a server: runtime
// expressions and `{$…}` embedded in strings, simple, regex and JSONPath criteria, outputs carried
// to later steps, `x-security`, `goto` loops and `end`, and a failed step that does not stop the
// workflow, each step answered by a fake `send` that records the requests it was given.
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  resolveValue,
  runWorkflow,
  type StepRequest,
  type StepResponse,
  simpleCondition,
} from '../../packages/verify/src/arazzo.js';

type Scope = Parameters<typeof evaluate>[1];

const response = (status: number, json?: unknown, headers: Record<string, string> = {}): StepResponse => ({
  status,
  headers,
  text: json === undefined ? '' : JSON.stringify(json),
  json,
  curl: `curl #${status}`,
});

const scope: Scope = {
  inputs: { transId: 'T-1', amount: 2500, nested: { currency: 'EUR' } },
  steps: { create: { outputs: { payId: 'P-9', count: 3 } } },
  response: response(
    201,
    { payId: 'P-9', data: [{ id: 'a' }, { id: 'b' }], 'a/b': 'slash', 'm~n': 'tilde' },
    {
      location: 'https://shop.example/return?status=CAPTURED',
      'x-request-id': 'r-1',
    },
  ),
};

/** A fake `send`: answers each request with the next of `answers` (the last one again when they run out). */
function fakeSend(answers: Array<StepResponse | ((request: StepRequest) => StepResponse)>) {
  const sent: Array<{ request: StepRequest; title: string }> = [];
  const send = async (request: StepRequest, title: string): Promise<StepResponse> => {
    const next = answers[Math.min(sent.length, answers.length - 1)]!;
    sent.push({ request, title });
    return typeof next === 'function' ? next(request) : next;
  };
  return { send, sent };
}

describe('runtime expressions', () => {
  it.each([
    ['$statusCode', 201],
    ['$response.body#/payId', 'P-9'],
    ['$response.body#/data/1/id', 'b'],
    ['$response.body#/a~1b', 'slash'],
    ['$response.body#/m~0n', 'tilde'],
    ['$response.body#/nothing/here', undefined],
    ['$response.header.Location', 'https://shop.example/return?status=CAPTURED'],
    ['$response.header.X-Request-ID', 'r-1'],
    ['$inputs.transId', 'T-1'],
    ['$inputs.nested.currency', 'EUR'],
    ['$inputs.missing', undefined],
    ['$steps.create.outputs.payId', 'P-9'],
    ['$steps.create.outputs.count', 3],
    ['$steps.other.outputs.payId', undefined],
    ['$steps.create.inputs.payId', undefined],
    ['$url', undefined],
  ])('%s is %j', (expression, value) => {
    expect(evaluate(expression, scope)).toEqual(value);
  });

  it('$response.body alone is the JSON body, else its text; without a response nothing', () => {
    expect(evaluate('$response.body', scope)).toEqual(scope.response!.json);
    expect(evaluate('$response.body', { ...scope, response: { ...response(200), text: 'plain' } })).toBe('plain');
    expect(evaluate('$statusCode', { inputs: {}, steps: {} })).toBeUndefined();
    expect(evaluate('$response.body#/payId', { inputs: {}, steps: {} })).toBeUndefined();
  });

  it('a value that is one expression keeps its type; `{$…}` inside a string is replaced by its text', () => {
    expect(resolveValue('$inputs.amount', scope)).toBe(2500);
    expect(resolveValue('$response.body#/data', scope)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(resolveValue('{$inputs.transId}-C{$steps.create.outputs.count}', scope)).toBe('T-1-C3');
    expect(resolveValue('/payments/{$steps.create.outputs.payId}/captures', scope)).toBe('/payments/P-9/captures');
    expect(resolveValue('before {$inputs.missing} after', scope)).toBe('before  after');
    // A `$` followed by a space is text, not an expression.
    expect(resolveValue('$ {$inputs.amount}', scope)).toBe('$ 2500');
    expect(resolveValue('no expression', scope)).toBe('no expression');
  });

  it('resolves every member of objects and arrays, and leaves other values as they are', () => {
    expect(
      resolveValue(
        {
          transId: '{$inputs.transId}-R',
          amount: { value: '$inputs.amount', currency: '$inputs.nested.currency' },
          ids: ['$steps.create.outputs.payId', 7, true, null],
        },
        scope,
      ),
    ).toEqual({
      transId: 'T-1-R',
      amount: { value: 2500, currency: 'EUR' },
      ids: ['P-9', 7, true, null],
    });
  });
});

describe('simple conditions', () => {
  it.each([
    ['$statusCode == 201', true],
    ['$statusCode == 200', false],
    ['$statusCode != 200', true],
    ['$statusCode >= 200', true],
    ['$statusCode < 300', true],
    ['$statusCode > 201', false],
    ['$statusCode <= 201', true],
    ["$response.body#/payId == 'P-9'", true],
    ['$response.body#/payId == P-9', true],
    ["$response.body#/payId != 'P-9'", false],
    ['$steps.create.outputs.count == 3', true],
    ['$inputs.missing == null', false],
    ['$response.body#/data/0/id', true],
    ['$response.body#/nothing', false],
  ])('%s holds: %s', (condition, holds) => {
    expect(simpleCondition(condition, scope).holds).toBe(holds);
  });

  it('compares a text with a number as numbers, and literals as their values', () => {
    const s: Scope = { ...scope, response: response(200, { n: '5', flag: true, none: null }, { 'x-count': '12' }) };
    expect(simpleCondition('$response.header.X-Count > 10', s).holds).toBe(true);
    expect(simpleCondition('$response.body#/n == 5', s).holds).toBe(true);
    expect(simpleCondition('$response.body#/flag == true', s).holds).toBe(true);
    expect(simpleCondition('$response.body#/flag == false', s).holds).toBe(false);
    expect(simpleCondition('$response.body#/none == null', s).holds).toBe(true);
  });

  it('reports what the left side evaluated to', () => {
    expect(simpleCondition('$statusCode == 200', scope)).toEqual({ holds: false, left: 201 });
  });
});

describe('runWorkflow', () => {
  it('builds each request from parameters, x-security and the payload, and carries outputs to later steps', async () => {
    const { send, sent } = fakeSend([
      response(200, { access_token: 'tok-1' }),
      response(201, { payId: 'P-1' }, { location: '/payments/P-1' }),
      response(200, { state: 'CAPTURED' }),
      response(200, {}),
    ]);
    const verdicts = await runWorkflow(
      {
        workflowId: 'pay',
        steps: [
          {
            stepId: 'token',
            operationId: 'createAccessToken',
            'x-security': [{ values: { username: '$inputs.merchantId', password: '$inputs.apiKey' } }],
            requestBody: {
              contentType: 'application/x-www-form-urlencoded',
              payload: { grant_type: 'client_credentials', scope: '{$inputs.merchantId} pay' },
            },
            outputs: { token: '$response.body#/access_token' },
          },
          {
            stepId: 'create',
            operationId: 'api.createPayment',
            'x-security': [{ values: { token: '$steps.token.outputs.token' } }],
            parameters: [{ name: 'Idempotency-Key', in: 'header', value: 'key-{$inputs.transId}' }],
            requestBody: { payload: { transId: '$inputs.transId', amount: { value: 2500, currency: 'EUR' } } },
            successCriteria: [{ condition: '$statusCode == 201' }],
            outputs: { payId: '$response.body#/payId', where: '$response.header.Location' },
          },
          {
            stepId: 'read',
            operationId: 'getPaymentByPayId',
            'x-security': [{ values: { apiKey: '$inputs.apiKey' } }],
            parameters: [
              { name: 'id', in: 'path', value: '$steps.create.outputs.payId' },
              { name: 'expand', in: 'query', value: '{$steps.create.outputs.where}' },
            ],
            successCriteria: [{ condition: "$response.body#/state == 'CAPTURED'" }],
          },
          { stepId: 'anonymous', operationId: 'listCustomers' },
        ],
      },
      { merchantId: 'shop', apiKey: 'sk_1', transId: 'T-7' },
      send,
    );
    expect(sent.map((s) => s.title)).toEqual(['pay/token', 'pay/create', 'pay/read', 'pay/anonymous']);
    const [token, create, read, anonymous] = sent.map((s) => s.request);
    expect(token).toEqual({
      operation: 'createAccessToken',
      params: {},
      query: {},
      headers: { Authorization: `Basic ${Buffer.from('shop:sk_1').toString('base64')}` },
      contentType: 'application/x-www-form-urlencoded',
      body: 'grant_type=client_credentials&scope=shop+pay',
    });
    expect(create).toEqual({
      operation: 'api.createPayment',
      params: {},
      query: {},
      headers: { Authorization: 'Bearer tok-1', 'Idempotency-Key': 'key-T-7' },
      contentType: 'application/json',
      body: { transId: 'T-7', amount: { value: 2500, currency: 'EUR' } },
    });
    expect(read).toEqual({
      operation: 'getPaymentByPayId',
      params: { id: 'P-1' },
      query: { expand: '/payments/P-1' },
      headers: { 'X-API-Key': 'sk_1' },
    });
    expect(anonymous).toEqual({ operation: 'listCustomers', params: {}, query: {}, headers: {} });
    expect(verdicts).toEqual([
      {
        stepId: 'create',
        operation: 'api.createPayment',
        condition: '$statusCode == 201',
        passed: true,
        actual: '201',
        curl: 'curl #201',
      },
      {
        stepId: 'read',
        operation: 'getPaymentByPayId',
        condition: "$response.body#/state == 'CAPTURED'",
        passed: true,
        actual: '"CAPTURED"',
        curl: 'curl #200',
      },
    ]);
  });

  it('regex criteria match the context’s text', async () => {
    const { send } = fakeSend([response(303, undefined, { location: 'https://shop.example/return?status=CAPTURED' })]);
    const verdicts = await runWorkflow(
      {
        workflowId: 'w',
        steps: [
          {
            stepId: 'pay',
            operationId: 'page.pay',
            successCriteria: [
              { context: '$response.header.Location', condition: 'status=CAPTURED$', type: 'regex' },
              { context: '$response.header.Location', condition: '^https://other\\.example/', type: 'regex' },
              { context: '$response.header.Missing', condition: '.', type: 'regex' },
            ],
          },
        ],
      },
      {},
      send,
    );
    expect(verdicts.map((v) => [v.passed, v.actual])).toEqual([
      [true, 'https://shop.example/return?status=CAPTURED'],
      [false, 'https://shop.example/return?status=CAPTURED'],
      [false, ''],
    ]);
  });

  it('JSONPath criteria (RFC 9535) hold when they find something in the context, a filter at the root applying to the context itself', async () => {
    const page = (data: unknown[], pageSize: number) => response(200, { data, pageSize });
    const { send } = fakeSend([page([{ state: 'CAPTURED' }, { state: 'FAILED' }], 2), page([{ state: 'FAILED' }], 2)]);
    const criteria = [
      { context: '$response.body', condition: '$[?length(@.data) == @.pageSize]', type: 'jsonpath' },
      {
        context: '$response.body',
        condition: "$[?count(@.data[?@.state == 'CAPTURED']) == 1]",
        type: { type: 'jsonpath', version: 'draft-goessner-dispatch-jsonpath-00' },
      },
      // The context is the one element of the array the query runs on (as Redocly Respect runs it).
      { context: '$response.body', condition: "$[0].data[?@.state == 'CAPTURED']", type: 'jsonpath' },
    ];
    const verdicts = await runWorkflow(
      {
        workflowId: 'w',
        steps: [
          { stepId: 'full', operationId: 'listPaymentPlans', successCriteria: criteria },
          { stepId: 'short', operationId: 'listPaymentPlans', successCriteria: criteria },
        ],
      },
      {},
      send,
    );
    expect(verdicts.map((v) => `${v.stepId} ${v.passed}`)).toEqual([
      'full true',
      'full true',
      'full true',
      'short false',
      'short false',
      'short false',
    ]);
    expect(verdicts[3]!.actual).toBe('{"data":[{"state":"FAILED"}],"pageSize":2}');
  });

  it('follows a goto of onSuccess while its criteria hold, then goes on; `end` ends the workflow', async () => {
    const states = ['PENDING', 'PENDING', 'DONE'];
    let polls = 0;
    const { send, sent } = fakeSend([
      (request) =>
        request.operation === 'poll' ? response(200, { state: states[polls++] }) : response(200, { ok: true }),
    ]);
    await runWorkflow(
      {
        workflowId: 'loop',
        steps: [
          { stepId: 'start', operationId: 'start' },
          {
            stepId: 'poll',
            operationId: 'poll',
            successCriteria: [{ condition: '$statusCode == 200' }],
            onSuccess: [
              {
                name: 'again',
                type: 'goto',
                stepId: 'poll',
                criteria: [{ condition: "$response.body#/state == 'PENDING'" }],
              },
            ],
          },
          {
            stepId: 'finish',
            operationId: 'finish',
            onSuccess: [{ name: 'stop', type: 'end' }],
          },
          { stepId: 'never', operationId: 'never' },
        ],
      },
      {},
      send,
    );
    expect(sent.map((s) => s.request.operation)).toEqual(['start', 'poll', 'poll', 'poll', 'finish']);
  });

  it('a goto that always holds stops after 200 steps', async () => {
    const { send, sent } = fakeSend([response(200, {})]);
    await runWorkflow(
      {
        workflowId: 'forever',
        steps: [{ stepId: 'again', operationId: 'again', onSuccess: [{ type: 'goto', stepId: 'again' }] }],
      },
      {},
      send,
    );
    expect(sent).toHaveLength(200);
  });

  it('a failed step does not stop the workflow, and takes no goto of its onSuccess', async () => {
    const { send, sent } = fakeSend([
      response(500, { error: 'boom' }),
      response(201, { payId: 'P-2' }),
      response(200, { state: 'AUTHORIZED' }),
    ]);
    const verdicts = await runWorkflow(
      {
        workflowId: 'w',
        steps: [
          {
            stepId: 'create',
            operationId: 'createPayment',
            successCriteria: [{ condition: '$statusCode == 201' }, { condition: '$response.body#/payId != null' }],
            onSuccess: [{ type: 'goto', stepId: 'create' }],
            outputs: { payId: '$response.body#/payId' },
          },
          {
            stepId: 'again',
            operationId: 'createPayment',
            parameters: [{ name: 'previous', in: 'query', value: '{$steps.create.outputs.payId}' }],
            successCriteria: [{ condition: '$statusCode == 201' }],
          },
          {
            stepId: 'read',
            operationId: 'getPaymentByPayId',
            successCriteria: [{ condition: "$response.body#/state == 'CAPTURED'" }],
          },
        ],
      },
      {},
      send,
    );
    expect(sent.map((s) => s.request.operation)).toEqual(['createPayment', 'createPayment', 'getPaymentByPayId']);
    // The failed step's output is empty: embedded, it is empty text.
    expect(sent[1]!.request.query).toEqual({ previous: '' });
    expect(verdicts.map((v) => [v.stepId, v.condition, v.passed, v.actual])).toEqual([
      ['create', '$statusCode == 201', false, '500'],
      ['create', '$response.body#/payId != null', true, 'undefined'],
      ['again', '$statusCode == 201', true, '201'],
      ['read', "$response.body#/state == 'CAPTURED'", false, '"AUTHORIZED"'],
    ]);
  });
});
