// The utility services (sandbox/domain/services.ts) without HTTP: BIN check and currency conversion
// quotes from the fixture tables, the duplication check's answer, card input checks (digits, Luhn,
// expiry), masking, pseudo number records (never the number itself) and the account updater.
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_UPDATER_CARDS,
  accountUpdate,
  binCheck,
  CARD_RANGES,
  cardInput,
  cardInputProblem,
  cardRange,
  DCC_MARKUP_PERCENT,
  DEFAULT_TEST_CARD,
  dccQuote,
  duplicationResult,
  mask,
  minorUnitDigits,
  passesLuhn,
  pseudoNumberBody,
  QUOTE_LIFETIME_MS,
} from '../../../sandbox/domain/services.js';
import type { PseudoNumberRecord } from '../../../sandbox/domain/types.js';
import { pseudoNumberOf, SCOPE, T0, testDomain } from '../../support/domain.js';

describe('card ranges and Luhn', () => {
  it('the fixture ranges are distinct six-digit prefixes', () => {
    const prefixes = CARD_RANGES.map((r) => r.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const p of prefixes) expect(p).toMatch(/^\d{6}$/);
  });

  it('cardRange finds the range of a BIN or a full number by its leading digits', () => {
    expect(cardRange('45717360')).toMatchObject({ brand: 'VISA', country: 'USA', currency: 'USD' });
    expect(cardRange('5200828282828210')).toMatchObject({ brand: 'MASTERCARD', country: 'JPN', currency: 'JPY' });
    expect(cardRange('411')).toBeUndefined();
    expect(cardRange('999999')).toBeUndefined();
  });

  it.each([
    ['4111111111111111', true],
    ['5555555555554444', true],
    ['378282246310005', true],
    ['4000000000000069', true],
    ['4111111111111112', false],
    ['4111111111111121', false],
    ['79927398713', true],
    ['79927398710', false],
  ])('passesLuhn(%s) is %s', (number, valid) => {
    expect(passesLuhn(number)).toBe(valid);
    if (number === DEFAULT_TEST_CARD) expect(valid).toBe(true);
  });
});

describe('binCheck', () => {
  it.each([
    ['450875', { value: 1000, currency: 'EUR' }, { cardCountry: 'GBR', cardCurrency: 'GBP', dccEligible: true }],
    ['453201', { value: 1000, currency: 'EUR' }, { cardCountry: 'DEU', cardCurrency: 'EUR', dccEligible: false }],
    ['450875', { value: 1000, currency: 'AUD' }, { cardCountry: 'GBR', cardCurrency: 'GBP', dccEligible: false }],
    ['411111', undefined, { cardCountry: 'USA', cardCurrency: 'USD', dccEligible: true }],
    ['45717360', { value: 1000, currency: 'EUR' }, { cardCountry: 'USA', cardCurrency: 'USD', dccEligible: true }],
    ['999999', { value: 1000, currency: 'EUR' }, { dccEligible: false }],
    ['999999', undefined, { dccEligible: false }],
  ])('bin %s with %o', (bin, amount, expected) => {
    expect(binCheck({ bin, ...(amount ? { amount } : {}) })).toEqual({ bin, ...expected });
  });
});

describe('dccQuote', () => {
  it('converts into the card currency at the reference rate plus the markup; JPY has no minor unit', () => {
    const ctx = testDomain();
    const r = dccQuote({ bin: '520082', amount: { value: 10_000, currency: 'EUR' } }, ctx);
    // 100.00 EUR × 162.35 JPY/EUR × 1.035 = 16 803.2 → 16 803 JPY
    expect(r).toEqual({
      quote: {
        quoteId: 'dq_0001',
        amount: { value: 10_000, currency: 'EUR' },
        convertedAmount: { value: 16_803, currency: 'JPY' },
        exchangeRate: '162.350000',
        markupPercentage: DCC_MARKUP_PERCENT,
        expirationTime: new Date(Date.parse(T0) + QUOTE_LIFETIME_MS).toISOString(),
      },
    });
    expect(QUOTE_LIFETIME_MS).toBe(15 * 60_000);
  });

  it('converts between two non-euro currencies through the euro rates', () => {
    // 100.00 USD: 0.8553 / 1.0842 = 0.788877 GBP/USD; × 1.035 → 81.6487 GBP → 8 165 pence
    const r = dccQuote({ bin: '450875', amount: { value: 10_000, currency: 'USD' } }, testDomain());
    expect('quote' in r && r.quote).toMatchObject({
      convertedAmount: { value: 8165, currency: 'GBP' },
      exchangeRate: '0.788877',
    });
  });

  it('reads a zero-decimal source amount in whole units', () => {
    // 10 000 JPY = 61.5953 EUR; × 1.035 → 63.7511 EUR → 6 375 cents
    const r = dccQuote({ bin: '453201', amount: { value: 10_000, currency: 'JPY' } }, testDomain());
    expect('quote' in r && r.quote.convertedAmount).toEqual({ value: 6375, currency: 'EUR' });
  });

  it.each([
    ['an unknown card range', { bin: '999999', amount: { value: 100, currency: 'EUR' } }, 'bin'],
    ['a currency without a rate', { bin: '450875', amount: { value: 100, currency: 'AUD' } }, 'amount.currency'],
    ['the card currency itself', { bin: '453201', amount: { value: 100, currency: 'EUR' } }, 'bin'],
  ])('refuses %s, naming the field', (_, request, field) => {
    const ctx = testDomain();
    const r = dccQuote(request, ctx);
    expect('invalid' in r && r.invalid.field).toBe(field);
    expect(ctx.issued('quote')).toBe(0);
  });

  it('minorUnitDigits follows ISO 4217', () => {
    expect(['EUR', 'USD', 'JPY', 'KRW', 'KWD', 'BHD'].map(minorUnitDigits)).toEqual([2, 2, 0, 0, 3, 3]);
  });
});

describe('duplicationResult', () => {
  it('a duplicate when any payment matches, listing them', () => {
    expect(duplicationResult([])).toEqual({ duplicate: false });
    expect(duplicationResult(['pay_1', 'pay_2'])).toEqual({ duplicate: true, payIds: ['pay_1', 'pay_2'] });
  });
});

describe('card input', () => {
  it('cardInput reads the string fields it knows, the number without spaces and dashes', () => {
    expect(
      cardInput({
        cardNumber: '4111 1111-1111 1111',
        expiryDate: '202912',
        cardHolderName: 'Lena',
        pseudoNumber: 'pn_1',
        cvc: '123',
      }),
    ).toEqual({
      cardNumber: '4111111111111111',
      expiryDate: '202912',
      cardHolderName: 'Lena',
      pseudoNumber: 'pn_1',
    });
    expect(cardInput({ cardNumber: 4111111111111111, expiryDate: null })).toEqual({});
    for (const nothing of [undefined, null, 'card', 42]) expect(cardInput(nothing)).toEqual({});
  });

  it.each([
    [{ cardNumber: '41111111111' }, 'cardNumber', /12 to 19 digits/],
    [{ cardNumber: '41111111111111111111' }, 'cardNumber', /12 to 19 digits/],
    [{ cardNumber: '4111x11111111111' }, 'cardNumber', /12 to 19 digits/],
    [{ cardNumber: '4111111111111112' }, 'cardNumber', /Luhn/],
    [{ expiryDate: '202913' }, 'expiryDate', /YYYYMM/],
    [{ expiryDate: '202900' }, 'expiryDate', /YYYYMM/],
    [{ expiryDate: '2029-12' }, 'expiryDate', /YYYYMM/],
    [{ cardNumber: '4111111111111111', expiryDate: '12' }, 'expiryDate', /YYYYMM/],
  ])('cardInputProblem(%o) names %s', (card, field, message) => {
    const problem = cardInputProblem(card);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(message);
  });

  it('cardInputProblem accepts valid card data, a pseudo number alone, and nothing', () => {
    expect(cardInputProblem({ cardNumber: '4111111111111111', expiryDate: '202912' })).toBeUndefined();
    expect(cardInputProblem({ cardNumber: '378282246310005' })).toBeUndefined();
    expect(cardInputProblem({ pseudoNumber: 'pn_1' })).toBeUndefined();
    expect(cardInputProblem({})).toBeUndefined();
  });

  it('mask keeps the first six and last four digits of a card, the first and last four of an IBAN', () => {
    expect(mask('4000000000000069', 'CARD')).toBe('400000******0069');
    expect(mask('378282246310005', 'CARD')).toBe('378282*****0005');
    expect(mask('DE89370400440532013000', 'IBAN')).toBe('DE89**************3000');
  });
});

describe('pseudoNumberRecord', () => {
  it('a card: masked, its brand, last four, expiry and holder; never the number', () => {
    const ctx = testDomain();
    const r = pseudoNumberOf('4000000000000069', ctx, {
      fingerprint: 'f1',
      expiryDate: '202912',
      cardHolderName: 'Lena',
    });
    expect(r).toEqual({
      scope: SCOPE,
      fingerprint: 'f1',
      pseudoNumber: 'pn_0001',
      type: 'CARD',
      maskedNumber: '400000******0069',
      card: { last4Digits: '0069', brand: 'VISA', expiryDate: '202912', cardHolderName: 'Lena' },
      createdAt: T0,
    });
    expect(JSON.stringify(r)).not.toContain('4000000000000069');
    expect(pseudoNumberBody(r)).toEqual({ pseudoNumber: 'pn_0001', type: 'CARD', maskedNumber: '400000******0069' });
  });

  it('a card without expiry expires in December two years on', () => {
    const r = pseudoNumberOf('4111111111111111', testDomain('2026-03-01T00:00:00Z'));
    expect(r.card).toEqual({ last4Digits: '1111', brand: 'VISA', expiryDate: '202812' });
  });

  it.each([
    ['5105105105105100', 'MASTERCARD'], // a fixture range
    ['378282246310005', 'AMEX'], // a fixture range
    ['4000056655665556', 'VISA'],
    ['5200000000000007', 'MASTERCARD'],
    ['2223003122003222', 'MASTERCARD'],
    ['371111111111114', 'AMEX'],
    ['6011000990139424', 'DISCOVER'],
    ['6500000000000002', 'DISCOVER'],
    ['3566002020360505', 'JCB'],
    ['9999999999999995', 'UNKNOWN'],
  ])('the brand of %s is %s', (number, brand) => {
    expect(pseudoNumberOf(number, testDomain()).card?.brand).toBe(brand);
  });

  it('an IBAN: masked, no card data', () => {
    const r = pseudoNumberOf('DE89370400440532013000', testDomain(), { type: 'IBAN' });
    expect(r).toMatchObject({ type: 'IBAN', maskedNumber: 'DE89**************3000' });
    expect(r.card).toBeUndefined();
  });
});

describe('accountUpdate', () => {
  // The clock stands in November 2026: 202611 is the current month.
  const ctx = testDomain('2026-11-24T09:00:00Z');
  const record = (last4: string, expiryDate = '202912', type: 'CARD' | 'IBAN' = 'CARD'): PseudoNumberRecord => ({
    scope: SCOPE,
    fingerprint: 'f',
    pseudoNumber: `pn_${last4}`,
    type,
    maskedNumber: `400000******${last4}`,
    ...(type === 'CARD' ? { card: { last4Digits: last4, brand: 'VISA', expiryDate } } : {}),
    createdAt: T0,
  });

  it('the fixture cards: 0069 is reissued (UPDATED, a new expiry three years on), 0119 is CLOSED', () => {
    expect(Object.keys(ACCOUNT_UPDATER_CARDS).sort()).toEqual(['0069', '0119']);
    expect(accountUpdate(record('0069'), { pseudoNumber: 'pn_0069' }, ctx)).toEqual({
      result: 'UPDATED',
      pseudoNumber: 'pn_0069',
      expiryDate: '202911',
      card: { last4Digits: '0069', brand: 'VISA', expiryDate: '202911' },
    });
    expect(accountUpdate(record('0119'), { pseudoNumber: 'pn_0119' }, ctx)).toEqual({
      result: 'CLOSED',
      pseudoNumber: 'pn_0119',
      card: { last4Digits: '0119', brand: 'VISA', expiryDate: '202912' },
    });
  });

  it('a card whose expiry has passed is UPDATED; one valid through this month is not', () => {
    expect(accountUpdate(record('1111', '202610'), { pseudoNumber: 'pn_1111' }, ctx).result).toBe('UPDATED');
    expect(accountUpdate(record('1111', '202611'), { pseudoNumber: 'pn_1111' }, ctx)).toMatchObject({
      result: 'NO_CHANGE',
      expiryDate: '202611',
    });
  });

  it('the expiry sent is the one checked', () => {
    expect(accountUpdate(record('1111', '202912'), { pseudoNumber: 'pn_1111', expiryDate: '202001' }, ctx).result).toBe(
      'UPDATED',
    );
    expect(
      accountUpdate(record('1111', '202001'), { pseudoNumber: 'pn_1111', expiryDate: '203012' }, ctx),
    ).toMatchObject({ result: 'NO_CHANGE', expiryDate: '203012' });
  });

  it('CLOSED wins over an expired date', () => {
    expect(accountUpdate(record('0119', '202001'), { pseudoNumber: 'pn_0119' }, ctx).result).toBe('CLOSED');
  });

  it('UNKNOWN for a pseudo number never created, or not of a card', () => {
    expect(accountUpdate(undefined, { pseudoNumber: 'pn_nope' }, ctx)).toEqual({
      result: 'UNKNOWN',
      pseudoNumber: 'pn_nope',
    });
    expect(accountUpdate(record('3000', undefined, 'IBAN'), { pseudoNumber: 'pn_3000' }, ctx)).toEqual({
      result: 'UNKNOWN',
      pseudoNumber: 'pn_3000',
    });
  });
});
