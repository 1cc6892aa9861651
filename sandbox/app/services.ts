// The utility services: BIN check, currency conversion quote, duplication check, account updater,
// pseudo numbers. Deterministic, from the fixture tables of domain/services.ts.
import {
  accountUpdate,
  binCheck,
  cardInputProblem,
  DUPLICATION_WINDOW_MS,
  dccQuote,
  duplicationResult,
  pseudoNumberBody,
  pseudoNumberRecord,
} from '../domain/services.js';
import type { Schemas } from '../domain/types.js';
import type { Store, StoreTransaction } from '../store/store.js';
import type { AppContext } from './context.js';
import { invalid, type Rejection } from './outcomes.js';

export const checkBin = (request: Schemas['DccBinCheckRequest']) => binCheck(request);

export function quoteCurrencyConversion(
  ctx: AppContext,
  request: Schemas['DccQuoteRequest'],
): { quote: Schemas['DccQuote'] } | Rejection {
  const result = dccQuote(request, ctx.domain);
  return 'invalid' in result ? invalid(result.invalid.field, result.invalid.message) : { quote: result.quote };
}

/** The scope's payments of the same amount (and transId or customer) within the duplication window. */
export async function checkDuplicates(
  ctx: AppContext,
  store: Store,
  request: Schemas['DuplicationCheckRequest'],
): Promise<Schemas['DuplicationCheckResult'] | Rejection> {
  const { value, currency } = request.amount;
  const since = new Date(ctx.domain.now.getTime() - DUPLICATION_WINDOW_MS).toISOString();
  const query = {
    amountValue: value,
    currency,
    transId: request.transId,
    merchantCustomerId: request.merchantCustomerId,
    since,
  };
  const payIds = await store.transaction((tx) => tx.payments.findDuplicates(ctx.scope, query));
  return duplicationResult(payIds);
}

export async function checkAccountUpdates(
  ctx: AppContext,
  store: Store,
  request: Schemas['AccountUpdaterRequest'],
): Promise<Schemas['AccountUpdaterResult']> {
  const record = await store.transaction((tx) => tx.pseudoNumbers.getByPseudoNumber(ctx.scope, request.pseudoNumber));
  return accountUpdate(record, request, ctx.domain);
}

/** The pseudo number of a card or an IBAN: the same number is the same pseudo number. */
export async function createPseudoNumber(
  ctx: AppContext,
  tx: StoreTransaction,
  request: { cardNumber?: string; iban?: string },
): Promise<Schemas['PseudoNumber'] | Rejection> {
  if (request.cardNumber !== undefined) {
    const problem = cardInputProblem({ cardNumber: request.cardNumber });
    if (problem) return invalid(problem.field, problem.message);
  }
  const [type, number] =
    request.cardNumber !== undefined ? (['CARD', request.cardNumber] as const) : (['IBAN', request.iban!] as const);
  const record = await tx.pseudoNumbers.getOrInsert(
    pseudoNumberRecord(
      { scope: ctx.scope, fingerprint: ctx.fingerprint(`${type}:${number}`), number, type },
      ctx.domain,
    ),
  );
  return pseudoNumberBody(record);
}
