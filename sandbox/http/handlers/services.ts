// Utility services: BIN check, currency conversion quote, duplication check, account updater,
// pseudo numbers. Deterministic, from the fixture tables of domain/services.ts.
import { accountUpdate, binCheck, cardInputProblem, dccQuote, DUPLICATION_WINDOW_MS, duplicationResult, pseudoNumberBody, pseudoNumberRecord } from '../../domain/services.js';
import type { Schemas } from '../../domain/types.js';
import type { Handler } from '../pipeline.js';
import { invalid, read, write } from './shared.js';

export const serviceHandlers = {
  checkDccBin: read(async (ctx) => ({ status: 200, body: binCheck(ctx.body as Schemas['DccBinCheckRequest']) })),

  createDccQuote: read(async (ctx) => {
    const result = dccQuote(ctx.body as Schemas['DccQuoteRequest'], ctx.domain);
    return 'invalid' in result ? invalid(ctx, result.invalid.field, result.invalid.message) : { status: 200, body: result.quote };
  }),

  checkDuplicatePayment: read(async (ctx, store) => {
    const body = ctx.body as Schemas['DuplicationCheckRequest'];
    const { value, currency } = body.amount;
    if (value === undefined) return invalid(ctx, 'amount.value', 'is required');
    if (currency === undefined) return invalid(ctx, 'amount.currency', 'is required');
    const since = new Date(ctx.domain.now.getTime() - DUPLICATION_WINDOW_MS).toISOString();
    const payIds = await store.transaction((tx) =>
      tx.payments.findDuplicates(ctx.scope, { amountValue: value, currency, transId: body.transId, ...(body.merchantCustomerId !== undefined ? { merchantCustomerId: body.merchantCustomerId } : {}), since }),
    );
    return { status: 200, body: duplicationResult(payIds) };
  }),

  checkAccountUpdates: read(async (ctx, store) => {
    const body = ctx.body as Schemas['AccountUpdaterRequest'];
    const record = await store.transaction((tx) => tx.pseudoNumbers.getByPseudoNumber(ctx.scope, body.pseudoNumber));
    return { status: 200, body: accountUpdate(record, body, ctx.domain) };
  }),

  createPseudoNumber: write(async (ctx, tx) => {
    const body = ctx.body as { cardNumber?: string; iban?: string };
    if (body.cardNumber !== undefined) {
      const problem = cardInputProblem({ cardNumber: body.cardNumber });
      if (problem) return invalid(ctx, problem.field, problem.message);
    }
    const [type, number] = body.cardNumber !== undefined ? (['CARD', body.cardNumber] as const) : (['IBAN', body.iban!] as const);
    const record = await tx.pseudoNumbers.getOrInsert(pseudoNumberRecord({ scope: ctx.scope, fingerprint: ctx.fingerprint(`${type}:${number}`), number, type }, ctx.domain));
    return { status: 200, body: pseudoNumberBody(record) };
  }),
} satisfies Record<string, Handler>;
