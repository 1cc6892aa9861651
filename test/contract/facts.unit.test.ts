// Table-driven comparison of the contract with the interface document. Each fixture quotes the
// document (quote() fails when the document does not say it), so a fact cannot drift on either side
// without a failure here.
import { describe, expect, it } from 'vitest';
import {
  deref,
  operationById,
  operations,
  parametersOf,
  securityOf,
  toPointer,
  walkObjects,
} from '../../tooling/openapi/walker.js';
import { endpointRows, enumValues, interfaceDocument, quote, tableFields } from '../support/interface-document.js';
import { type Json, type JsonObject, loadBundle } from '../support/openapi.js';
import { declared } from '../support/schema.js';

const doc = loadBundle();
const schemas = (doc.components as JsonObject).schemas as JsonObject;

/** Subschemas declaring `path` (property names) below a component schema, as written. */
function rawPropertySchemas(component: string, path: string[]): Json[] {
  let current: Json[] = [{ $ref: `#/components/schemas/${component}` }];
  for (const name of path) {
    const next: Json[] = [];
    for (const s of current) {
      const resolved = deref<JsonObject>(doc, s);
      if (resolved.type === 'array' && resolved.items)
        next.push(...(declared(doc, resolved.items as Json).properties.get(name) ?? []));
      else next.push(...(declared(doc, s).properties.get(name) ?? []));
    }
    if (next.length === 0) throw new Error(`${component}.${path.join('.')} is not declared`);
    current = next;
  }
  return current;
}

/** The same, resolved. */
function propertySchemas(component: string, path: string[]): JsonObject[] {
  return rawPropertySchemas(component, path).map((s) => deref<JsonObject>(doc, s));
}

function refsOf(component: string, path: string[]): string[] {
  return rawPropertySchemas(component, path)
    .map((s) => (s as JsonObject).$ref as string)
    .filter(Boolean);
}

/** The one value of `keyword` among the declarations of a property (following $ref and allOf). */
function keyword(component: string, path: string[], key: string): Json | undefined {
  const values = new Set<string>();
  const visit = (s: Json): void => {
    const r = deref<JsonObject>(doc, s);
    if (r[key] !== undefined) values.add(JSON.stringify(r[key]));
    for (const b of (r.allOf ?? []) as Json[]) visit(b);
  };
  for (const s of propertySchemas(component, path)) visit(s);
  if (values.size > 1)
    throw new Error(`${component}.${path.join('.')} has conflicting ${key}: ${[...values].join(' vs ')}`);
  return values.size ? (JSON.parse([...values][0]) as Json) : undefined;
}

function requiredOf(component: string): string[] {
  return [...declared(doc, { $ref: `#/components/schemas/${component}` }).required].sort();
}

function propertyNames(component: string): string[] {
  return [...declared(doc, { $ref: `#/components/schemas/${component}` }).properties.keys()].sort();
}

function requestSchemaOf(operationId: string): Json {
  const op = operationById(doc, operationId);
  const body = deref<JsonObject>(doc, op.operation.requestBody);
  return (Object.values(body.content as JsonObject)[0] as JsonObject).schema as Json;
}

describe('endpoints', () => {
  const rows = endpointRows();
  const restRows = rows.filter((r) => !r.path.startsWith('/{merchant'));

  it('the document lists 32 REST operations and 2 merchant-hosted webhooks', () => {
    expect(restRows).toHaveLength(32);
    expect(rows.length - restRows.length).toBe(2);
  });

  it('every documented method and path is an operation of the contract, and nothing else is', () => {
    const contract = operations(doc, ['paths'])
      .map((o) => `${o.method.toUpperCase()} ${o.key}`)
      .sort();
    expect(contract).toEqual(restRows.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
  });

  it('both webhooks are top-level webhooks, sent as POST', () => {
    const hooks = operations(doc, ['webhooks']);
    expect(hooks.map((h) => `${h.method} ${h.key}`).sort()).toEqual([
      'post basicPaymentNotification',
      'post enhancedPaymentNotification',
    ]);
    expect(rows.filter((r) => r.path.startsWith('/{merchant')).map((r) => r.path)).toEqual([
      '/{merchantBasicWebhookUrl}',
      '/{merchantEnhancedWebhookUrl}',
    ]);
  });

  it('every operation has tags, summary, description and a documented area tag', () => {
    const tags = ((doc.tags ?? []) as JsonObject[]).map((t) => t.name);
    for (const op of operations(doc)) {
      expect(op.operation.summary, op.pointer).toBeTruthy();
      expect(op.operation.description, op.pointer).toBeTruthy();
      expect(
        (op.operation.tags as string[]).every((t) => tags.includes(t)),
        op.pointer,
      ).toBe(true);
    }
  });
});

describe('servers and versions', () => {
  it('has a test and a production server, each ending in /api/v2', () => {
    quote('Each ends in the path segment `/api/v2`');
    const servers = doc.servers as JsonObject[];
    expect(servers.map((s) => s['x-environment'])).toEqual(['test', 'live']);
    for (const s of servers) expect(s.url).toMatch(/^https:\/\/[^/]+\/api\/v2$/);
  });

  it('is version 2.0.0 as a whole', () => {
    quote('The interface as a whole is version 2.0.0');
    expect((doc.info as JsonObject).version).toBe('2.0.0');
  });

  const versions: [string, string][] = [
    ['createPaymentIntent', '2.0.0'],
    ['confirmPaymentIntent', '2.0.0'],
    ['createCheckoutSession', '2.4.0'],
    ['incrementAuthorization', '2.4.0'],
    ['refundPayment', '2.4.0'],
    ['listPaymentPlans', '2.6.0'],
    ['getPaymentPlan', '2.6.0'],
    ['chargePaymentPlan', '2.6.0'],
    ['listPaymentPlanPayments', '2.6.0'],
    ['listCustomerPaymentPlans', '2.6.0'],
  ];
  it('carries the per-operation versions the document gives, and no others', () => {
    quote(
      '2.0.0 (payment intent operations, an older refund description), 2.4.0 (checkout session, incremental, refund with reference) and 2.6.0 (payment plan operations)',
    );
    const actual = operations(doc)
      .filter((o) => o.operation['x-since'])
      .map((o) => [o.operation.operationId, o.operation['x-since']]);
    expect(actual.sort()).toEqual([...versions].sort());
    expect(operationById(doc, 'refundPayment').operation['x-earlier-versions']).toEqual(['2.0.0']);
  });
});

describe('security', () => {
  quote('| Payment intent confirm | Bearer only |');
  quote('| Payment plan operations | Bearer, basic, or API key in header `X-API-Key` |');
  quote('Two methods are accepted on all operations');
  const planOperation = (path: string) =>
    path.startsWith('/payment-plans') || path === '/customers/{customerId}/payment-plans';

  it.each(operations(doc, ['paths']).map((o) => [`${o.method.toUpperCase()} ${o.key}`, o] as const))(
    '%s accepts exactly what the Authentication table says',
    (_n, op) => {
      const expected =
        op.operation.operationId === 'confirmPaymentIntent'
          ? ['bearerAuth']
          : planOperation(op.key)
            ? ['apiKeyAuth', 'basicAuth', 'bearerAuth']
            : ['basicAuth', 'bearerAuth'];
      expect([...new Set(securityOf(doc, op).flatMap((requirement) => Object.keys(requirement)))].sort()).toEqual(
        expected,
      );
    },
  );

  it('defines Basic (MerchantID:APIKey), bearer JWT and the X-API-Key header', () => {
    const s = (doc.components as JsonObject).securitySchemes as JsonObject;
    expect(s.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(s.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(s.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: quote('X-API-Key') });
    expect((s.basicAuth as JsonObject).description).toContain(quote('MerchantID:APIKey'));
  });

  it('leaves the webhooks unauthenticated and signs the enhanced one', () => {
    quote('the basic webhook is unsigned; the enhanced webhook is signed with an HMAC signature');
    for (const hook of operations(doc, ['webhooks'])) expect(hook.operation.security).toEqual([]);
    const enhanced = operationById(doc, 'receiveEnhancedPaymentNotification');
    expect(
      parametersOf(doc, enhanced)
        .filter((p) => p.in === 'header' && p.required)
        .map((p) => p.name),
    ).toEqual(['X-Webhook-Signature']);
  });
});

describe('Idempotency-Key', () => {
  const sentence = quote(
    'it is accepted on session, payment, confirm, incremental, refund-with-reference and intent-confirm operations',
  );
  const byWord: Record<string, string> = {
    session: 'createCheckoutSession',
    payment: 'createPayment',
    confirm: 'confirmPayment',
    incremental: 'incrementAuthorization',
    'refund-with-reference': 'refundPayment',
    'intent-confirm': 'confirmPaymentIntent',
  };
  it('is accepted on exactly the operations the document lists', () => {
    const words = sentence
      .replace('it is accepted on ', '')
      .replace(' operations', '')
      .split(/, | and /);
    expect(words.sort()).toEqual(Object.keys(byWord).sort());
    const withKey = operations(doc)
      .filter((o) => parametersOf(doc, o).some((p) => p.in === 'header' && p.name === 'Idempotency-Key'))
      .map((o) => o.operation.operationId);
    expect(withKey.sort()).toEqual(Object.values(byWord).sort());
  });
  it('is an optional string header', () => {
    const p = parametersOf(doc, operationById(doc, 'createPayment')).find((x) => x.name === 'Idempotency-Key')!;
    expect(p.required).toBe(false);
    expect(deref<JsonObject>(doc, p.schema).type).toBe('string');
  });
});

describe('enums, verbatim', () => {
  const facts: [string, string[], string][] = [
    ['PaymentRequestBase', ['channel'], 'Enum `ECOM`, `MOTO`, `APP`, `PAYBYLINK`, `POS`'],
    ['CaptureMethod', ['type'], '`type` enum `AUTOMATIC`, `MANUAL`, `DELAYED`'],
    ['CredentialOnFile', ['type'], '`type` enum `RECURRING`, `UNSCHEDULED`, `INSTALLMENTS`'],
    ['CredentialOnFile', ['recurring', 'useCase'], 'useCase enum FIXED|FLEXIBLE_AMOUNT|FLEXIBLE_FREQUENCY'],
    ['CredentialOnFile', ['recurring', 'frequency'], 'frequency enum DAILY|WEEKLY|MONTHLY|YEARLY'],
    ['CredentialOnFile', ['unscheduled', 'subType'], 'subType enum CIT|MIT'],
    [
      'CredentialOnFile',
      ['installments', 'frequency'],
      'frequency enum DAILY|WEEKLY|BIWEEKLY|MONTHLY|BIMONTHLY|QUARTERLY|YEARLY',
    ],
    ['ProductInfo', ['globalTradeItemNumber'], '(enum `EAN`, `ISBN`, `UPC`)'],
    [
      'AuthenticationInfo',
      ['method'],
      'method enum GUEST|MERCHANT_CREDENTIALS|FEDERATED_ID|ISSUER_CREDENTIALS|THIRD_PARTY_AUTHENTICATION|FIDO|SIGNED_FIDO|SRC_ASSURANCE_DATA',
    ],
    [
      'AccountInfo',
      ['ageIndicator'],
      '`ageIndicator` enum `GUEST_CHECKOUT`, `THIS_TRANSACTION`, `LESS_THAN_30_DAYS`, `FROM_30_TO_60_DAYS`, `MORE_THAN_60_DAYS`',
    ],
    [
      'AccountInfo',
      ['paymentAccountAgeIndicator'],
      '`ageIndicator` enum `GUEST_CHECKOUT`, `THIS_TRANSACTION`, `LESS_THAN_30_DAYS`, `FROM_30_TO_60_DAYS`, `MORE_THAN_60_DAYS`',
    ],
    [
      'AccountInfo',
      ['changeIndicator'],
      '`changeIndicator` enum `THIS_TRANSACTION`, `LESS_THAN_30_DAYS`, `FROM_30_TO_60_DAYS`, `MORE_THAN_60_DAYS`',
    ],
    [
      'AccountInfo',
      ['passwordChangeDateIndicator'],
      '`passwordChangeDateIndicator` enum `NO_CHANGE`, `THIS_TRANSACTION`, `LESS_THAN_30_DAYS`, `FROM_30_TO_60_DAYS`, `MORE_THAN_60_DAYS`',
    ],
    [
      'AccountInfo',
      ['shipAddressUsageIndicator'],
      '`shipAddressUsageIndicator` enum `THIS_TRANSACTION`, `LESS_THAN_30_DAYS`, `FROM_30_TO_60_DAYS`, `MORE_THAN_60_DAYS`',
    ],
    ['Device', ['deviceType'], 'deviceType enum `DESKTOP`, `TABLET`, `SMARTPHONE`'],
    ['Device', ['deviceOs'], 'deviceOs enum `ANDROID`, `IOS`, `OTHERS`'],
    ['PaymentPlan', ['planStatus'], 'Enum `ACTIVE`, `CANCELLED`, `INVALID`, `COMPLETED`, `RETRY`'],
    ['PaymentPlan', ['paymentPlanType'], 'Enum `RECURRING`, `INSTALLMENTS`, `DELAYED_SHIPMENT`, `UNSCHEDULED_MIT`'],
    ['PaymentPlan', ['paymentMethod', 'type'], '`type` enum `CARD`'],
    [
      'PaymentPlan',
      ['recurring', 'frequency'],
      '`frequency` enum `DAILY`, `WEEKLY`, `BIWEEKLY`, `MONTHLY`, `MONTHLY_EOM`, `BIMONTHLY`, `QUARTERLY`, `YEARLY`',
    ],
    [
      'PaymentPlan',
      ['installments', 'frequency'],
      '`frequency` enum `DAILY`, `WEEKLY`, `BIWEEKLY`, `MONTHLY`, `MONTHLY_EOM`, `BIMONTHLY`, `QUARTERLY`, `YEARLY`',
    ],
    ['PaymentMethodSelection', ['integrationType'], '`integrationType` (required; `HOSTED` or `DIRECT`)'],
    [
      'PaymentMethodSelection',
      ['type'],
      '`type` (required; enum `APPLEPAY`, `BANCONTACT`, `BOLETO`, `CARD`, `DIRECTDEBIT`, `GOOGLEPAY`, `IDEAL`, `KLARNA`, `PAYPAL`, `PAYU`)',
    ],
    ['RefundPaymentMethods', ['riverty', 'refundType'], 'refundType enum RETURN or REFUND'],
  ];
  it.each(facts.map((f) => [`${f[0]}.${f[1].join('.')}`, f] as const))('%s', (_n, [component, path, snippet]) => {
    const expected = snippet.includes('integrationType') ? ['HOSTED', 'DIRECT'] : enumValues(snippet);
    if (snippet.includes('integrationType')) quote(snippet);
    expect(keyword(component, path, 'enum')).toEqual(expected);
  });

  it('allowedPaymentMethods is an array of the service enum', () => {
    const items = propertySchemas('CheckoutSessionRequest', ['allowedPaymentMethods'])[0].items as Json;
    expect(deref<JsonObject>(doc, items).enum).toEqual(
      enumValues(
        'the service enum `APPLEPAY`, `BOLETO`, `BANCONTACT`, `CARD`, `DIRECTDEBIT`, `GOOGLEPAY`, `IDEAL`, `KLARNA`, `PAYPAL`, `WERO`',
      ),
    );
  });

  it('the operation status is not an enum, because the complete list is not shown', () => {
    quote('The complete list of status values: not shown');
    expect(keyword('OperationResult', ['status'], 'enum')).toBeUndefined();
  });
});

describe('required fields', () => {
  const facts: [string, string[]][] = [
    ['CheckoutSessionRequest', ['amount', 'transId', 'urls']],
    ['SessionUrls', ['cancel', 'return', 'webhook']],
    ['PaymentRequest', ['amount', 'transId']],
    ['PaymentIntentRequest', []],
    ['PaymentMethodSelection', ['integrationType', 'type']],
    ['IncrementalAuthorizationRequest', ['amount', 'transId']],
    ['RefundRequest', ['amount', 'transId']],
    ['PlanChargeRequest', ['transId']],
    ['Amount', ['currency', 'value']],
    ['CustomerInfo', []],
    ['CustomerInfoWithEmail', ['email']],
  ];
  it.each(facts)('%s requires exactly %j', (component, expected) => {
    expect(requiredOf(component)).toEqual(expected);
  });

  it('customerInfo requires email in session and intent requests only', () => {
    quote('`email` (required within customerInfo when the object is sent in session and intent requests)');
    // The base declares CustomerInfo; session and intent narrow it to CustomerInfoWithEmail.
    expect(refsOf('CheckoutSessionRequest', ['customerInfo'])).toContain('#/components/schemas/CustomerInfoWithEmail');
    expect(refsOf('PaymentIntentRequest', ['customerInfo'])).toContain('#/components/schemas/CustomerInfoWithEmail');
    expect(refsOf('PaymentRequest', ['customerInfo'])).toEqual(['#/components/schemas/CustomerInfo']);
  });

  it('request bodies use the documented schemas', () => {
    expect(requestSchemaOf('createCheckoutSession')).toEqual({ $ref: '#/components/schemas/CheckoutSessionRequest' });
    expect(requestSchemaOf('confirmPaymentIntent')).toEqual({ $ref: '#/components/schemas/PaymentMethodSelection' });
    expect(requestSchemaOf('chargePaymentPlan')).toEqual({ $ref: '#/components/schemas/PlanChargeRequest' });
  });
});

describe('fields of the documented objects', () => {
  it('the shared request fields are one base, composed into session, payment and intent', () => {
    const shared = tableFields('### Shared payment request fields');
    const variantOnly = ['urls', 'partialPayment', 'referencePayId', 'paymentMethods'];
    expect(propertyNames('PaymentRequestBase')).toEqual(shared.filter((f) => !variantOnly.includes(f)).sort());
    for (const request of ['CheckoutSessionRequest', 'PaymentRequest', 'PaymentIntentRequest']) {
      const allOf = (schemas[request] as JsonObject).allOf as JsonObject[];
      expect(allOf[0]).toEqual({ $ref: '#/components/schemas/PaymentRequestBase' });
    }
    expect(propertyNames('CheckoutSessionRequest')).toEqual(
      [...shared.filter((f) => f !== 'referencePayId'), 'template', 'allowedPaymentMethods'].sort(),
    );
    expect(propertyNames('PaymentRequest')).toEqual(shared.filter((f) => f !== 'partialPayment').sort());
  });

  it('the payment intent body has the documented fields', () => {
    const row = endpointRows().find((r) => r.path === '/payment-intents')!;
    const listed = /Body: shared request fields \(([^)]*)\)/.exec(row.payload)![1].split(', ');
    expect(propertyNames('PaymentIntentRequest')).toEqual(listed.sort());
  });

  const objectFacts: [string, string][] = [
    ['OperationResult', '### Operation result (response body of payment operations)'],
    ['Amount', '### Amount object'],
    ['PaymentPlan', '### Payment plan'],
  ];
  it.each(objectFacts)('%s declares the fields of its table', (component, heading) => {
    expect(propertyNames(component)).toEqual(tableFields(heading).sort());
  });

  const inline: [string, string][] = [
    [
      'Address',
      '**billingAddress** (strings): streetName, streetNumber, addressLine2, addressLine3, city, state, country (3-character ISO country code), postalCode.',
    ],
    [
      'PaymentFacilitator',
      '**paymentFacilitator** (strings): subMerchantId, subMerchantName, subMerchantCity, subMerchantCountry (ISO 3166-1 alpha-2), subMerchantStreet, subMerchantZip, subMerchantState.',
    ],
    [
      'PaymentPlanListItem',
      'Plan list item: `id`, `paymentPlanType`, `lastBillingDate`, `amount{value integer, currency}`, `merchantCustomerId`, `planStatus`, `description`.',
    ],
    [
      'PlanPayment',
      'Plan payment list item: `payId`, `status`, `amount{value integer, currency}`, `billingDate` (ISO 8601).',
    ],
    [
      'PageInfo',
      'Page envelope (plan lists): `totalNumberOfPages`, `totalNumberOfItems`, `page`, `pageSize` (integers), `data` (array).',
    ],
  ];
  it.each(inline)('%s declares the listed fields', (component, snippet) => {
    const text = quote(snippet);
    const ticked = [...text.matchAll(/`([a-zA-Z0-9]+)/g)].map((m) => m[1]);
    const names =
      ticked.length > 0
        ? ticked
        : text
            .slice(text.indexOf(': ') + 2)
            .replace(/\([^)]*\)/g, '')
            .replace(/\.$/, '')
            .split(',')
            .map((n) => n.trim());
    const declaredNames = component === 'PageInfo' ? [...propertyNames(component), 'data'] : propertyNames(component);
    expect(declaredNames.sort()).toEqual([...new Set(names)].sort());
  });

  const methodResults: [string, string[]][] = [
    ['amazonPay', ['providerResponseCode', 'providerResponseText', 'providerStatus', 'chargeId', 'refundId']],
    ['bancontact', ['providerResponseText']],
    ['boleto', ['providerResponseText']],
    ['myBank', ['providerResponseText']],
    ['przelewy24', ['providerResponseText']],
    ['alipay', ['providerResponseText']],
    ['bizum', ['providerResponseText']],
    ['eps', ['providerResponseText']],
    ['unionPay', ['providerResponseText']],
    ['weChat', ['providerResponseText']],
    ['twint', ['providerResponseText']],
    ['card', ['providerResponseCode', 'providerResponseText', 'providerTransactionId']],
    ['floapay', ['providerResponseCode', 'providerResponseText']],
    ['klarna', ['providerResponseCode', 'providerResponseText', 'invoiceNumber']],
    [
      'payPal',
      ['providerResponseCode', 'feeRefundAmount', 'grossRefundAmount', 'netRefundAmount', 'providerDeclineCategory'],
    ],
    [
      'ratepay',
      [
        'authorizationExpiry',
        'account',
        'paymentReference',
        'providerTransactionId',
        'providerDeclineCategory',
        'providerResponseText',
        'providerResponseCode',
      ],
    ],
    ['riverty', ['providerResponseCode', 'providerResponseText']],
  ];
  it.each(methodResults)('paymentMethods.%s result declares %j', (method, fields) => {
    quote(
      method === 'bancontact' || method === 'boleto' || method === 'myBank' || method === 'przelewy24'
        ? '| bancontact, boleto, myBank, przelewy24 |'
        : method,
    );
    const schema = propertySchemas('PaymentMethodResults', [method])[0];
    expect([...declared(doc, schema).properties.keys()].sort()).toEqual([...fields].sort());
  });

  it('orders of operations on a payment carry the listed fields (no items)', () => {
    quote('order (merchantReference, numberOfArticles, description, creationDate, invoiceId, the service)');
    const order = propertySchemas('IncrementalAuthorizationRequest', ['order'])[0]!;
    expect([...declared(doc, order).properties.keys()].sort()).toEqual([
      'creationDate',
      'description',
      'invoiceId',
      'merchantReference',
      'numberOfArticles',
    ]);
    expect(refsOf('RefundRequest', ['order'])).toEqual(['#/components/schemas/OrderDetails']);
  });

  it('follows the document where it types a field oddly', () => {
    quote('providerResponseText (typed number in the description; returned only when status is FAILED)');
    expect(keyword('PaymentMethodResults', ['bancontact', 'providerResponseText'], 'type')).toBe('number');
    quote('riverty | providerResponseCode (number), providerResponseText');
    expect(keyword('PaymentMethodResults', ['riverty', 'providerResponseCode'], 'type')).toBe('number');
    quote('`status` (string), `detail`, `instance`');
    expect(keyword('PlanProblem', ['status'], 'type')).toBe('string');
    expect(keyword('ValidationProblem', ['status'], 'type')).toBe('integer');
  });

  it('money is an integer in minor units everywhere', () => {
    quote('Monetary values are integers expressed in the smallest currency unit');
    const money: [string, string[]][] = [
      ['Amount', ['value']],
      ['Amount', ['taxTotal']],
      ['Amount', ['grossDiscount']],
      ['OrderItem', ['netPrice']],
      ['OrderItem', ['taxAmount']],
      ['FraudData', ['giftCardAmount']],
      ['PayPalResult', ['feeRefundAmount']],
      ['CredentialOnFile', ['installments', 'purchaseAmount']],
      ['PlanChargeRequest', ['amount', 'value']],
      ['PaymentPlanListItem', ['amount', 'value']],
    ];
    for (const [component, path] of money)
      expect(keyword(component, path, 'type'), `${component}.${path.join('.')}`).toBe('integer');
  });
});

describe('error bodies', () => {
  it('the 400 problem of payment operations', () => {
    expect(tableFields('Validation error (HTTP 400) for payment operations, shape:').sort()).toEqual([
      'errors',
      'status',
      'title',
      'traceId',
      'type',
    ]);
    expect(propertyNames('ValidationProblem')).toEqual(['errors', 'status', 'title', 'traceId', 'type']);
    const errors = deref<JsonObject>(doc, propertySchemas('ValidationProblem', ['errors'])[0]);
    expect(deref<JsonObject>(doc, errors.additionalProperties as Json)).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
  });
  it('plan problems, their 400 variant, the 500 body and the older refund body', () => {
    expect(propertyNames('PlanProblem')).toEqual(['detail', 'instance', 'status', 'title', 'type']);
    expect(propertyNames('PlanValidationProblem')).toContain('errors');
    quote('Payment operations: body `{responseCode, responseDescription}`');
    expect(propertyNames('ResultCode')).toEqual(['responseCode', 'responseDescription']);
    quote('returns 400 bodies with `field` (name of the offending field) and `error` (message) instead');
    expect(propertyNames('LegacyRefundValidationError')).toEqual(['error', 'field']);
  });
});

describe('documented response statuses', () => {
  quote(
    'Success statuses shown: 200 (incremental, refund, plan get, plan payments list, plan list), 201 (plan charge, intent confirm), 202 (checkout session).',
  );
  quote('| 400 | incremental, refund, plan get, plan charge | Bad request or validation error |');
  quote('| 404 | plan get | Payment plan not found (problem body) |');
  quote('| 422 | incremental, refund |');
  const documented: Record<string, string[]> = {
    createCheckoutSession: ['202'],
    incrementAuthorization: ['200', '400', '422', '500'],
    refundPayment: ['200', '400', '422', '500'],
    getPaymentPlan: ['200', '400', '404', '500'],
    chargePaymentPlan: ['201', '400', '500'],
    listPaymentPlanPayments: ['200', '500'],
    listPaymentPlans: ['200'],
    confirmPaymentIntent: ['201'],
  };
  it.each(operations(doc).map((o) => [o.operation.operationId as string, o] as const))(
    '%s: documented statuses are unmarked, all others are listed in x-inferred-responses',
    (id, op) => {
      const statuses = Object.keys(op.operation.responses ?? {}).sort();
      const inferred = ((op.operation['x-inferred-responses'] ?? []) as string[]).slice().sort();
      expect(
        inferred.every((s) => statuses.includes(s)),
        'x-inferred-responses names a status the operation lacks',
      ).toBe(true);
      expect(statuses.filter((s) => !inferred.includes(s))).toEqual(documented[id] ?? []);
    },
  );
  it('documented error statuses use the documented bodies', () => {
    const body = (id: string, status: string) => {
      const res = deref<JsonObject>(doc, operationById(doc, id).operation.responses?.[status]);
      return ((res.content as JsonObject)['application/json'] as JsonObject).schema;
    };
    expect(body('incrementAuthorization', '422')).toEqual({ $ref: '#/components/schemas/OperationResult' });
    expect(body('incrementAuthorization', '500')).toEqual({ $ref: '#/components/schemas/ResultCode' });
    expect(body('getPaymentPlan', '404')).toEqual({ $ref: '#/components/schemas/PlanProblem' });
    expect(body('getPaymentPlan', '500')).toEqual({ $ref: '#/components/schemas/PlanProblem' });
    expect(body('chargePaymentPlan', '400')).toEqual({ $ref: '#/components/schemas/PlanValidationProblem' });
    expect(body('refundPayment', '400')).toEqual({
      anyOf: [
        { $ref: '#/components/schemas/ValidationProblem' },
        { $ref: '#/components/schemas/LegacyRefundValidationError' },
      ],
    });
    expect(body('createCheckoutSession', '202')).toEqual({ $ref: '#/components/schemas/CheckoutSessionCreated' });
  });
});

describe('provenance', () => {
  const notShown = endpointRows().filter((r) =>
    /Request and response body: not shown|Request body and response body: not shown/.test(r.payload),
  );
  it('operations whose request and response the document does not show are marked inferred', () => {
    expect(notShown.length).toBeGreaterThan(4);
    for (const row of notShown) {
      const op = operations(doc, ['paths']).find((o) => o.key === row.path && o.method === row.method)!;
      expect(op.operation['x-provenance'], `${row.method} ${row.path}`).toBe('inferred');
    }
  });
  it('customer and service endpoints are inferred; documented operations are not', () => {
    quote('Request bodies, query parameters and response bodies of all customer endpoints: not shown.');
    quote('Request and response bodies of the service endpoints: not shown.');
    for (const op of operations(doc, ['paths'])) {
      if (/^\/(customers|services)/.test(op.key) && op.key !== '/customers/{customerId}/payment-plans')
        expect(op.operation['x-provenance'], op.key).toBe('inferred');
    }
    for (const id of [
      'createCheckoutSession',
      'createPayment',
      'incrementAuthorization',
      'refundPayment',
      'createPaymentIntent',
      'confirmPaymentIntent',
      'listPaymentPlans',
      'getPaymentPlan',
      'chargePaymentPlan',
      'listPaymentPlanPayments',
    ]) {
      expect(operationById(doc, id).operation['x-provenance'], id).toBeUndefined();
    }
  });
  it('every inferred element says why, and nothing documented claims to be inferred', () => {
    const problems: string[] = [];
    // Data too: an example that carried x-provenance would be a mistake of its own.
    walkObjects(
      doc,
      (node, tokens) => {
        const at = `#${toPointer(tokens)}`;
        const marked = node['x-provenance'] === 'inferred';
        const says = typeof node.description === 'string' && node.description.startsWith('Inferred:');
        if (node['x-provenance'] !== undefined && !marked) problems.push(`${at}: x-provenance must be "inferred"`);
        if (marked !== says) problems.push(`${at}: x-provenance and an "Inferred:" description go together`);
      },
      { data: true },
    );
    expect(problems).toEqual([]);
    expect(JSON.stringify(doc).match(/"x-provenance":"inferred"/g)!.length).toBeGreaterThan(40);
  });
  it('the interface document has not changed under the contract', () => {
    // The contract was checked against this text; a new version of the document needs a new check.
    expect(interfaceDocument.length).toBeGreaterThan(20_000);
    expect(interfaceDocument.startsWith('# Payment Service Interface Specification')).toBe(true);
  });
});
