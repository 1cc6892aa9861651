// Payments: checkout session, creation, confirmation, incremental authorization, reversal, capture,
// refunds with and without reference, retrieval by payId and by transId, update, payment link.
import { createCheckoutSession, createPaymentLink } from '../../app/flows.js';
import type { Rejection } from '../../app/outcomes.js';
import { isRejection } from '../../app/outcomes.js';
import {
  createPayment,
  createUnreferencedRefund,
  paymentChanges,
  paymentDocument,
  updatePayment,
} from '../../app/payments.js';
import { linkBody } from '../../domain/flows.js';
import type { Decision } from '../../domain/payments.js';
import { operationResult } from '../../domain/payments.js';
import type { Schemas } from '../../domain/types.js';
import { type Handlers, type Reply, type RequestContext, read, write } from '../pipeline.js';
import { decisionReply, hostedUrl, rejectionReply } from '../replies.js';

/** A change of a payment: its operation result, or why it was not made. */
const changed = (ctx: Pick<RequestContext, 'problem'>, outcome: Decision | Rejection): Reply =>
  isRejection(outcome) ? rejectionReply(ctx, outcome) : decisionReply(outcome);

/** The payment details document as stored, sent as it is. */
const documentReply = (ctx: Pick<RequestContext, 'problem'>, outcome: { document: string } | Rejection): Reply =>
  isRejection(outcome) ? rejectionReply(ctx, outcome) : { status: 200, json: outcome.document };

export const paymentHandlers = {
  createCheckoutSession: write(async (ctx, tx) => {
    const outcome = await createCheckoutSession(ctx, tx, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    const body: Schemas['CheckoutSessionCreated'] = {
      _links: { redirect: { href: hostedUrl(ctx, 'sessions', outcome.session.id) } },
    };
    return { status: 202, body };
  }),

  createPayment: write(async (ctx, tx) => {
    const outcome = await createPayment(ctx, tx, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    const { decision } = outcome;
    if (decision.outcome !== 'ok') return decisionReply(decision);
    const result = operationResult(decision.payment, decision.reported);
    // HOSTED: where the customer pays. Added to that answer alone: on V8 an object that gains keys
    // after a spread gets hidden classes of its own, and this is the create's hot path.
    const created: Schemas['PaymentCreated'] =
      decision.payment.integrationType === 'HOSTED'
        ? { ...result, _links: { redirect: { href: hostedUrl(ctx, 'payments', decision.payment.payId) } } }
        : result;
    return { status: 201, body: created };
  }),

  confirmPayment: write(async (ctx, tx) => changed(ctx, await paymentChanges.confirm(ctx, tx, ctx.path.id, ctx.body))),

  incrementAuthorization: write(async (ctx, tx) =>
    changed(ctx, await paymentChanges.incrementAuthorization(ctx, tx, ctx.path.id, ctx.body)),
  ),

  reversePayment: write(async (ctx, tx) => changed(ctx, await paymentChanges.reverse(ctx, tx, ctx.path.id, ctx.body))),

  capturePayment: write(async (ctx, tx) => changed(ctx, await paymentChanges.capture(ctx, tx, ctx.path.id, ctx.body))),

  refundPayment: write(async (ctx, tx) => changed(ctx, await paymentChanges.refund(ctx, tx, ctx.path.id, ctx.body))),

  createUnreferencedRefund: write(async (ctx, tx) => {
    const outcome = await createUnreferencedRefund(ctx, tx, ctx.body);
    return isRejection(outcome) ? rejectionReply(ctx, outcome) : decisionReply(outcome.decision);
  }),

  getPaymentByPayId: read(async (ctx, store) =>
    documentReply(ctx, await paymentDocument(store, ctx.scope, 'payId', ctx.path.id)),
  ),

  getPaymentByTransId: read(async (ctx, store) =>
    documentReply(ctx, await paymentDocument(store, ctx.scope, 'transId', ctx.path.id)),
  ),

  updatePayment: write(async (ctx, tx) => documentReply(ctx, await updatePayment(ctx, tx, ctx.path.id, ctx.body))),

  createPaymentLink: write(async (ctx, tx) => {
    const outcome = await createPaymentLink(ctx, tx, ctx.body);
    if (isRejection(outcome)) return rejectionReply(ctx, outcome);
    return { status: 201, body: linkBody(outcome.link, hostedUrl(ctx, 'links', outcome.link.id)) };
  }),
} satisfies Partial<Handlers>;
