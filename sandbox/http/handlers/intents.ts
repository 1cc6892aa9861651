// Mobile SDK: the merchant back end creates a payment intent; the app confirms it (bearer only),
// which creates the payment (a HOSTED one waits for the customer on the hosted page).
import { confirmPaymentIntent, createPaymentIntent } from '../../app/flows.js';
import { isRejection } from '../../app/outcomes.js';
import { operationResult } from '../../domain/payments.js';
import type { Schemas } from '../../domain/types.js';
import { type Handlers, write } from '../pipeline.js';
import { decisionReply, hostedUrl, rejectionReply } from '../replies.js';

export const intentHandlers = {
  createPaymentIntent: write(async (ctx, tx) => {
    const outcome = await createPaymentIntent(ctx, tx, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    const body: Schemas['PaymentIntentCreated'] = { id: outcome.intent.id };
    return { status: 201, body };
  }),

  confirmPaymentIntent: write(async (ctx, tx) => {
    const outcome = await confirmPaymentIntent(ctx, tx, ctx.path.id, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    const { decision } = outcome;
    if (decision.outcome !== 'ok' || decision.payment.integrationType !== 'HOSTED') return decisionReply(decision, 201);
    // HOSTED: the payment waits for the customer on the hosted page, as createPayment's does.
    const created: Schemas['PaymentCreated'] = {
      ...operationResult(decision.payment, decision.reported),
      _links: { redirect: { href: hostedUrl(ctx, 'payments', decision.payment.payId) } },
    };
    return { status: 201, body: created };
  }),
} satisfies Partial<Handlers>;
