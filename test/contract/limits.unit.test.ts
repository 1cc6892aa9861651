// For each limit of the interface document: a value just inside it is accepted and one just
// outside is rejected, by Ajv 2020 on the bundled contract.
import { describe, expect, it } from 'vitest';
import { quote } from '../support/interface-document.js';
import { loadBundle } from '../support/openapi.js';
import { createSchemaValidator, formatErrors } from '../support/schema.js';

const validator = createSchemaValidator(loadBundle());

// The smallest valid bodies, so that each case changes one thing only.
const amount = { value: 1000, currency: 'EUR' };
const session = {
  transId: 'T-1',
  amount,
  urls: {
    return: 'https://shop.example.com/ok',
    cancel: 'https://shop.example.com/cancel',
    webhook: 'https://shop.example.com/hook',
  },
};
const payment = { transId: 'T-1', amount };
const jsEnabled = {
  javaScriptEnabled: true,
  javaEnabled: false,
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: '-60',
};

interface Case {
  limit: string;
  /** the document's words for it (fails when the document does not say so) */
  source: string;
  schema: string;
  inside: unknown;
  outside: unknown;
}

/** The smallest valid request of each kind a limit is stated for in the document's words. */
const requests = {
  session: { schema: 'CheckoutSessionRequest', body: session },
  payment: { schema: 'PaymentRequest', body: payment },
  intent: { schema: 'PaymentIntentRequest', body: {} },
};

/** One case per kind of request, named by `limit`: `inside` and `outside` are what each adds to its smallest body. */
const forEachRequest = (
  kinds: (keyof typeof requests)[],
  limit: (kind: string) => string,
  source: string,
  inside: object,
  outside: object,
): Case[] =>
  kinds.map((kind) => {
    const { schema, body } = requests[kind];
    return {
      limit: limit(kind),
      source,
      schema,
      inside: { ...body, ...inside },
      outside: { ...body, ...outside },
    };
  });

const cases: Case[] = [
  ...forEachRequest(
    ['session', 'payment', 'intent'],
    (kind) => `transId at most 64 characters (${kind})`,
    'transId length | Session, payment, intent | at most 64 characters',
    { transId: 'x'.repeat(64) },
    { transId: 'x'.repeat(65) },
  ),
  {
    limit: "refNr characters A-Z a-z 0-9 - ? , ( ) + . ' :",
    source: "characters A-Z, a-z, 0-9 and `- ? , ( ) + . ' :`",
    schema: 'RefNr',
    inside: "Ab9-?,()+.':",
    outside: 'Ab9#',
  },
  {
    limit: 'refNr: 18 characters is only a recommendation (19 accepted)',
    source: 'recommended at most 18 characters',
    schema: 'RefNr',
    inside: 'R'.repeat(19),
    outside: 'R R',
  },
  {
    limit: 'refNr pattern applies to plan charges too',
    source: 'refNr (string; same character rules as elsewhere)',
    schema: 'PlanChargeRequest',
    inside: { transId: 'T', refNr: 'INV-1' },
    outside: { transId: 'T', refNr: 'INV_1' },
  },
  {
    limit: 'delayedHours minimum 1',
    source: 'minimum 1, maximum 696',
    schema: 'CaptureMethod',
    inside: { type: 'DELAYED', delayed: { delayedHours: 1 } },
    outside: { type: 'DELAYED', delayed: { delayedHours: 0.5 } },
  },
  {
    limit: 'delayedHours maximum 696',
    source: 'minimum 1, maximum 696',
    schema: 'CaptureMethod',
    inside: { type: 'DELAYED', delayed: { delayedHours: 696 } },
    outside: { type: 'DELAYED', delayed: { delayedHours: 697 } },
  },
  {
    limit: 'delayedHours required when the type is DELAYED',
    source: 'required when type is DELAYED',
    schema: 'CaptureMethod',
    inside: { type: 'MANUAL' },
    outside: { type: 'DELAYED', delayed: {} },
  },
  {
    limit: 'delayed required when the type is DELAYED',
    source: 'required when type is DELAYED',
    schema: 'CaptureMethod',
    inside: { type: 'AUTOMATIC' },
    outside: { type: 'DELAYED' },
  },
  {
    limit: 'currency: 3-character ISO code',
    source: '3-character ISO currency code',
    schema: 'Amount',
    inside: { value: 1, currency: 'CHF' },
    outside: { value: 1, currency: 'EURO' },
  },
  {
    limit: 'currency: not 2 characters',
    source: '3-character ISO currency code',
    schema: 'Amount',
    inside: { value: 1, currency: 'USD' },
    outside: { value: 1, currency: 'EU' },
  },
  {
    limit: 'amount value and currency required in payment operations',
    source: 'yes (in payment operations)',
    schema: 'Amount',
    inside: { value: 0, currency: 'EUR' },
    outside: { value: 0 },
  },
  {
    limit: 'money is an integer in minor units',
    source: 'Monetary values are integers expressed in the smallest currency unit',
    schema: 'Amount',
    inside: { value: 1050, currency: 'EUR' },
    outside: { value: 10.5, currency: 'EUR' },
  },
  {
    limit: 'billing country: 3-character ISO code',
    source: 'country (3-character ISO country code)',
    schema: 'Address',
    inside: { country: 'DEU' },
    outside: { country: 'DE' },
  },
  {
    limit: 'shipping country: 3-character ISO code',
    source: 'country (3-character ISO code)',
    schema: 'Shipping',
    inside: { address: { country: 'AUT' } },
    outside: { address: { country: 'AT' } },
  },
  {
    limit: 'subMerchantCountry: ISO 3166-1 alpha-2',
    source: 'subMerchantCountry (ISO 3166-1 alpha-2)',
    schema: 'PaymentFacilitator',
    inside: { subMerchantCountry: 'DE' },
    outside: { subMerchantCountry: 'DEU' },
  },
  {
    limit: 'device confidence minimum 0',
    source: 'confidence (number 0 to 100',
    schema: 'Device',
    inside: { confidence: 0 },
    outside: { confidence: -0.1 },
  },
  {
    limit: 'device confidence maximum 100',
    source: 'confidence (number 0 to 100',
    schema: 'Device',
    inside: { confidence: 100 },
    outside: { confidence: 100.1 },
  },
  {
    limit: 'browserInfo: the five fields required when JavaScript is enabled',
    source:
      'colorDepth, screenHeight, screenWidth, timeZoneOffset and javaEnabled are required when javaScriptEnabled is true',
    schema: 'BrowserInfo',
    inside: jsEnabled,
    outside: { ...jsEnabled, colorDepth: undefined },
  },
  {
    limit: 'browserInfo: javaEnabled required when JavaScript is enabled',
    source: 'javaEnabled (boolean; required when JavaScript is enabled)',
    schema: 'BrowserInfo',
    inside: { javaScriptEnabled: false },
    outside: { ...jsEnabled, javaEnabled: undefined },
  },
  {
    limit: 'session urls: return, cancel and webhook required',
    source: 'all three are required strings in the checkout session request',
    schema: 'CheckoutSessionRequest',
    inside: session,
    outside: { ...session, urls: { return: session.urls.return, cancel: session.urls.cancel } },
  },
  {
    limit: 'session urls are URIs',
    source: 'all three are required strings in the checkout session request (typed as URI)',
    schema: 'CheckoutSessionRequest',
    inside: session,
    outside: { ...session, urls: { ...session.urls, webhook: 'not a url' } },
  },
  ...forEachRequest(
    ['session', 'intent'],
    (kind) => `${kind} customerInfo requires email`,
    '`email` (required within customerInfo when the object is sent in session and intent requests)',
    { customerInfo: { email: 'a@example.com' } },
    { customerInfo: { firstName: 'A' } },
  ),
  {
    limit: 'payment customerInfo does not require email',
    source: 'required within customerInfo when the object is sent in session and intent requests',
    schema: 'PaymentRequest',
    inside: { ...payment, customerInfo: { firstName: 'A' } },
    outside: { ...payment, customerInfo: { firstName: 7 } },
  },
  {
    limit: 'birthDate is YYYY-MM-DD',
    source: 'birthDate (YYYY-MM-DD)',
    schema: 'CustomerInfo',
    inside: { birthDate: '1990-04-17' },
    outside: { birthDate: '17.04.1990' },
  },
  {
    limit: 'expirationTime is a date-time',
    source: 'expirationTime | string, date-time, UTC',
    schema: 'PaymentRequest',
    inside: { ...payment, expirationTime: '2026-11-21T10:00:00Z' },
    outside: { ...payment, expirationTime: '2026-11-21' },
  },
  {
    limit: 'plan dates are YYYY-MM-DDTHH:MM:SS.milliseconds',
    source: '(format YYYY-MM-DDTHH:MM:SS.milliseconds)',
    schema: 'PlanRecurring',
    inside: { nextPaymentDate: '2026-12-01T00:00:00.000' },
    outside: { nextPaymentDate: '2026-12-01T00:00:00Z' },
  },
  {
    limit: 'ipZone: comma-separated 3-digit numeric codes',
    source: 'ipZone` string (comma-separated 3-digit ISO 3166-1 numeric country codes',
    schema: 'FraudData',
    inside: { ipZone: '276,040' },
    outside: { ipZone: '276,40' },
  },
  {
    limit: 'boleto refund accountNumber must contain a hyphen',
    source: 'accountNumber (must contain a hyphen)',
    schema: 'RefundBoleto',
    inside: { accountNumber: '1234-5' },
    outside: { accountNumber: '12345' },
  },
  {
    limit: 'channel enum',
    source: 'Enum `ECOM`, `MOTO`, `APP`, `PAYBYLINK`, `POS`',
    schema: 'Channel',
    inside: 'POS',
    outside: 'WEB',
  },
  {
    limit: 'allowedPaymentMethods: the service enum',
    source: '`KLARNA`, `PAYPAL`, `WERO`',
    schema: 'CheckoutSessionRequest',
    inside: { ...session, allowedPaymentMethods: ['WERO'] },
    outside: { ...session, allowedPaymentMethods: ['PAYU'] },
  },
  {
    limit: 'intent confirm: integrationType and type required',
    source: '`integrationType` (required; `HOSTED` or `DIRECT`), `type` (required;',
    schema: 'PaymentMethodSelection',
    inside: { integrationType: 'HOSTED', type: 'PAYU' },
    outside: { integrationType: 'HOSTED' },
  },
  {
    limit: 'plan charge: amount value is an integer',
    source: 'amount{value integer;',
    schema: 'PlanChargeRequest',
    inside: { transId: 'T', amount: { value: 1250 } },
    outside: { transId: 'T', amount: { value: 12.5 } },
  },
  {
    limit: 'installments are integers',
    source: '`totalInstallments` integer, `paidInstallments` integer',
    schema: 'PlanInstallments',
    inside: { totalInstallments: 6, paidInstallments: 2 },
    outside: { totalInstallments: 6.5 },
  },
];

describe('limits of the interface document', () => {
  it.each(cases.map((c) => [c.limit, c] as const))('%s', (_name, c) => {
    quote(c.source);
    const inside = validator.validateComponent(c.schema, JSON.parse(JSON.stringify(c.inside)));
    expect(inside, `inside value rejected: ${formatErrors(inside)}`).toEqual([]);
    expect(
      validator.validateComponent(c.schema, JSON.parse(JSON.stringify(c.outside))),
      'outside value accepted',
    ).not.toEqual([]);
  });
});
