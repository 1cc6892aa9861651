// The utility services answer deterministically from small fixture tables: card ranges (BIN check
// and card brands), exchange rates (currency conversion quotes), test cards of the account updater.
// The numbers of cards and IBANs are never kept: a pseudo number stands for them, found again by a
// keyed hash (the fingerprint, computed by the caller).
import type { DomainContext } from './context.js';
import type { PseudoNumberRecord, Schemas, Scope } from './types.js';

export interface CardRange {
  /** The leading digits of the card number. */
  prefix: string;
  brand: string;
  /** ISO 3166-1 alpha-3 country of the issuer. */
  country: string;
  /** ISO 4217 currency of the card. */
  currency: string;
}

/** Card ranges of the sandbox, longest prefix first when they overlap. */
export const CARD_RANGES: readonly CardRange[] = [
  { prefix: '411111', brand: 'VISA', country: 'USA', currency: 'USD' },
  { prefix: '424242', brand: 'VISA', country: 'USA', currency: 'USD' },
  { prefix: '400000', brand: 'VISA', country: 'USA', currency: 'USD' },
  { prefix: '457173', brand: 'VISA', country: 'USA', currency: 'USD' }, // the contract's DCC examples (bin 45717360)
  { prefix: '453201', brand: 'VISA', country: 'DEU', currency: 'EUR' },
  { prefix: '450875', brand: 'VISA', country: 'GBR', currency: 'GBP' },
  { prefix: '476173', brand: 'VISA', country: 'CHE', currency: 'CHF' },
  { prefix: '401288', brand: 'VISA', country: 'SWE', currency: 'SEK' },
  { prefix: '555555', brand: 'MASTERCARD', country: 'USA', currency: 'USD' },
  { prefix: '510510', brand: 'MASTERCARD', country: 'USA', currency: 'USD' },
  { prefix: '522222', brand: 'MASTERCARD', country: 'FRA', currency: 'EUR' },
  { prefix: '520082', brand: 'MASTERCARD', country: 'JPN', currency: 'JPY' },
  { prefix: '378282', brand: 'AMEX', country: 'USA', currency: 'USD' },
  { prefix: '371449', brand: 'AMEX', country: 'GBR', currency: 'GBP' },
  { prefix: '601111', brand: 'DISCOVER', country: 'USA', currency: 'USD' },
  { prefix: '353011', brand: 'JCB', country: 'JPN', currency: 'JPY' },
];

/** The brand of a card number outside the fixture ranges, from its first digits. */
function brandOf(number: string): string {
  if (/^4/.test(number)) return 'VISA';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'MASTERCARD';
  if (/^3[47]/.test(number)) return 'AMEX';
  if (/^6(011|5)/.test(number)) return 'DISCOVER';
  if (/^35/.test(number)) return 'JCB';
  return 'UNKNOWN';
}

export function cardRange(digits: string): CardRange | undefined {
  return CARD_RANGES.find((r) => digits.startsWith(r.prefix));
}

/** Luhn check digit test of a card number. */
export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

// ---------------------------------------------------------------------------------------------
// BIN check and currency conversion quotes

/** Euro reference rates of the sandbox: units of the currency per euro. */
export const EURO_RATES: Readonly<Record<string, number>> = {
  EUR: 1,
  USD: 1.0842,
  GBP: 0.8553,
  CHF: 0.9412,
  JPY: 162.35,
  SEK: 11.432,
  DKK: 7.4601,
  NOK: 11.698,
  PLN: 4.3125,
  CZK: 25.147,
};
/** The conversion fee of a quote, in percent of the converted amount. */
export const DCC_MARKUP_PERCENT = '3.5';
/** How long a quote holds. */
export const QUOTE_LIFETIME_MS = 15 * 60_000;

/** Digits after the decimal point of a currency's minor unit (ISO 4217). */
export function minorUnitDigits(currency: string): number {
  return ['JPY', 'KRW', 'ISK', 'CLP', 'VND'].includes(currency)
    ? 0
    : ['BHD', 'KWD', 'OMR', 'JOD', 'TND'].includes(currency)
      ? 3
      : 2;
}

/**
 * Why a card range cannot convert an amount in `currency` (any convertible currency when absent):
 * the one rule behind the BIN check's `dccEligible` and the quote's refusal, so that the two agree.
 */
export function dccIneligibility(
  bin: string,
  currency: string | undefined,
): { field: string; message: string } | undefined {
  const range = cardRange(bin);
  if (!range) return { field: 'bin', message: 'unknown card range: no currency conversion' };
  if (EURO_RATES[range.currency] === undefined || (currency !== undefined && EURO_RATES[currency] === undefined))
    return {
      field: 'amount.currency',
      message: `no exchange rate between ${currency ?? 'the amount'} and ${range.currency}`,
    };
  if (range.currency === currency)
    return { field: 'bin', message: `the card's currency is the transaction currency (${currency}): no conversion` };
  return undefined;
}

export function binCheck(request: Schemas['DccBinCheckRequest']): Schemas['DccBinCheckResult'] {
  const range = cardRange(request.bin);
  return {
    bin: request.bin,
    cardCountry: range?.country,
    cardCurrency: range?.currency,
    dccEligible: dccIneligibility(request.bin, request.amount?.currency) === undefined,
  };
}

/** A quote, or why there is none (a 400 naming the field). */
export function dccQuote(
  request: Schemas['DccQuoteRequest'],
  ctx: DomainContext,
): { quote: Schemas['DccQuote'] } | { invalid: { field: string; message: string } } {
  const { value, currency: from } = request.amount;
  const ineligible = dccIneligibility(request.bin, from);
  if (ineligible) return { invalid: ineligible };
  const range = cardRange(request.bin)!;
  const fromRate = EURO_RATES[from]!;
  const toRate = EURO_RATES[range.currency]!;
  const rate = toRate / fromRate;
  const major = value / 10 ** minorUnitDigits(from);
  const converted = Math.round(
    major * rate * (1 + Number(DCC_MARKUP_PERCENT) / 100) * 10 ** minorUnitDigits(range.currency),
  );
  return {
    quote: {
      quoteId: ctx.newId('quote'),
      amount: { value, currency: from },
      convertedAmount: { value: converted, currency: range.currency },
      exchangeRate: rate.toFixed(6),
      markupPercentage: DCC_MARKUP_PERCENT,
      expirationTime: new Date(ctx.now.getTime() + QUOTE_LIFETIME_MS).toISOString(),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Duplication check

/** Payments of the same merchant with the same amount and reference within this window are duplicates. */
export const DUPLICATION_WINDOW_MS = 24 * 3_600_000;

export function duplicationResult(payIds: string[]): Schemas['DuplicationCheckResult'] {
  return { duplicate: payIds.length > 0, payIds: payIds.length > 0 ? payIds : undefined };
}

// ---------------------------------------------------------------------------------------------
// Pseudo numbers and card data

/** Card data in a payment's `paymentMethods.card` (the contract leaves its fields open): the sandbox reads these. */
export interface CardInput {
  cardNumber?: string;
  pseudoNumber?: string;
  /** YYYYMM */
  expiryDate?: string;
  cardHolderName?: string;
}

/**
 * The fields of card and account data that are never kept: a request the sandbox stores (a checkout
 * session's, a payment link's, an intent's) loses them; a card number becomes a pseudo number.
 */
const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'cardNumber',
  'number',
  'pan',
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cvn',
  'securityCode',
  'pin',
  'track1',
  'track2',
  'trackData',
  'iban',
  'accountNumber',
]);

/**
 * `request` without card or account data under its `paymentMethods` (elsewhere a `number` is a phone
 * number's, and kept).
 */
export function withoutCardData<T extends object>(request: T): T {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !SENSITIVE_FIELDS.has(key))
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  const methods = (request as { paymentMethods?: unknown }).paymentMethods;
  return methods === undefined ? request : { ...request, paymentMethods: strip(methods) };
}

/** The test card a DIRECT card payment without card data is made with. */
export const DEFAULT_TEST_CARD = '4111111111111111';

export function cardInput(data: unknown): CardInput {
  if (typeof data !== 'object' || data === null) return {};
  const d = data as Record<string, unknown>;
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : undefined);
  return {
    cardNumber: text('cardNumber')?.replace(/[\s-]/g, ''),
    pseudoNumber: text('pseudoNumber'),
    expiryDate: text('expiryDate'),
    cardHolderName: text('cardHolderName'),
  };
}

/** Why card data cannot be used (a 400 on the field), or undefined. */
export function cardInputProblem(card: CardInput): { field: string; message: string } | undefined {
  if (card.cardNumber !== undefined && !/^[0-9]{12,19}$/.test(card.cardNumber))
    return { field: 'cardNumber', message: 'must be 12 to 19 digits' };
  if (card.cardNumber !== undefined && !passesLuhn(card.cardNumber))
    return { field: 'cardNumber', message: 'fails the Luhn check' };
  if (card.expiryDate !== undefined && !/^[0-9]{4}(0[1-9]|1[0-2])$/.test(card.expiryDate))
    return { field: 'expiryDate', message: 'must be YYYYMM' };
  return undefined;
}

export function mask(number: string, type: 'CARD' | 'IBAN'): string {
  const keepStart = type === 'CARD' ? 6 : 4;
  return number.slice(0, keepStart) + '*'.repeat(Math.max(0, number.length - keepStart - 4)) + number.slice(-4);
}

/** A new pseudo number record for a number never seen in this scope. */
export function pseudoNumberRecord(
  input: {
    scope: Scope;
    fingerprint: string;
    number: string;
    type: 'CARD' | 'IBAN';
    expiryDate?: string;
    cardHolderName?: string;
  },
  ctx: DomainContext,
): PseudoNumberRecord {
  const card: Schemas['CardSummary'] | undefined =
    input.type === 'CARD'
      ? {
          last4Digits: input.number.slice(-4),
          brand: cardRange(input.number)?.brand ?? brandOf(input.number),
          expiryDate: input.expiryDate ?? `${ctx.now.getUTCFullYear() + 2}12`,
          cardHolderName: input.cardHolderName,
        }
      : undefined;
  return {
    scope: input.scope,
    fingerprint: input.fingerprint,
    pseudoNumber: ctx.newId('pseudoNumber'),
    type: input.type,
    maskedNumber: mask(input.number, input.type),
    card,
    createdAt: ctx.now.toISOString(),
  };
}

export function pseudoNumberBody(record: PseudoNumberRecord): Schemas['PseudoNumber'] {
  return { pseudoNumber: record.pseudoNumber, type: record.type, maskedNumber: record.maskedNumber };
}

// ---------------------------------------------------------------------------------------------
// Account updater

/** Test cards of the account updater, by last four digits: what the card networks report for them. */
export const ACCOUNT_UPDATER_CARDS: Readonly<Record<string, 'UPDATED' | 'CLOSED'>> = {
  '0069': 'UPDATED', // reissued with a new expiry date
  '0119': 'CLOSED', // account closed
};

/**
 * NO_CHANGE, UPDATED (a new expiry date: a reissued card, or one whose expiry has passed),
 * CLOSED, or UNKNOWN for a pseudo number the merchant never created.
 */
export function accountUpdate(
  record: PseudoNumberRecord | undefined,
  request: Schemas['AccountUpdaterRequest'],
  ctx: DomainContext,
): Schemas['AccountUpdaterResult'] {
  if (record?.type !== 'CARD' || !record.card) return { result: 'UNKNOWN', pseudoNumber: request.pseudoNumber };
  const card = record.card;
  const expiry = request.expiryDate ?? card.expiryDate;
  const current = `${ctx.now.getUTCFullYear()}${String(ctx.now.getUTCMonth() + 1).padStart(2, '0')}`;
  const fixture = ACCOUNT_UPDATER_CARDS[card.last4Digits ?? ''];
  if (fixture === 'CLOSED') return { result: 'CLOSED', pseudoNumber: record.pseudoNumber, card };
  if (fixture === 'UPDATED' || (expiry !== undefined && expiry < current)) {
    const renewed = `${ctx.now.getUTCFullYear() + 3}${String(ctx.now.getUTCMonth() + 1).padStart(2, '0')}`;
    return {
      result: 'UPDATED',
      pseudoNumber: record.pseudoNumber,
      expiryDate: renewed,
      card: { ...card, expiryDate: renewed },
    };
  }
  return {
    result: 'NO_CHANGE',
    pseudoNumber: record.pseudoNumber,
    expiryDate: expiry,
    card,
  };
}
