// Utility services: BIN check, currency conversion quote, duplication check, account updater,
// pseudo numbers.
import { isRejection } from '../../app/outcomes.js';
import {
  checkAccountUpdates,
  checkBin,
  checkDuplicates,
  createPseudoNumber,
  quoteCurrencyConversion,
} from '../../app/services.js';
import { type Handlers, read, write } from '../pipeline.js';
import { rejectionReply } from '../replies.js';

export const serviceHandlers = {
  checkDccBin: read(async (ctx) => ({ status: 200, body: checkBin(ctx.body) })),

  createDccQuote: read(async (ctx) => {
    const outcome = quoteCurrencyConversion(ctx, ctx.body);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: outcome.quote };
  }),

  checkDuplicatePayment: read(async (ctx, store) => {
    const outcome = await checkDuplicates(ctx, store, ctx.body);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: outcome };
  }),

  checkAccountUpdates: read(async (ctx, store) => ({
    status: 200,
    body: await checkAccountUpdates(ctx, store, ctx.body),
  })),

  createPseudoNumber: write(async (ctx, tx) => {
    const outcome = await createPseudoNumber(ctx, tx, ctx.body);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, body: outcome };
  }),
} satisfies Partial<Handlers>;
