// Payments: checkout session, creation, confirmation, incremental authorization, reversal, capture,
// refunds with and without reference, retrieval by payId and by transId, update, payment link.
import {
  capturePayment,
  confirmPayment,
  createUnreferencedRefund,
  descriptiveFields,
  duplicateTransaction,
  incrementAuthorization,
  operationResult,
  refundPayment,
  reversePayment,
  updatePayment,
  type Decision,
} from '../../domain/payments.js';
import { createLink, createSession, linkBody } from '../../domain/flows.js';
import type { Payment, Schemas } from '../../domain/types.js';
import type { StoreTransaction } from '../../store/store.js';
import type { Handler, Reply, RequestContext } from '../pipeline.js';
import { decisionReply, hostedUrl, notFound, param, persist, read, settle, simulationProblem, startPayment, write } from './shared.js';

/** The payment result key of a method object in a request's `paymentMethods` (`card` → CARD). */
const METHOD_TYPES: Record<string, string> = {
  applePay: 'APPLEPAY', bancontact: 'BANCONTACT', boleto: 'BOLETO', card: 'CARD', directDebit: 'DIRECTDEBIT', googlePay: 'GOOGLEPAY',
  ideal: 'IDEAL', klarna: 'KLARNA', payPal: 'PAYPAL', pfConnect: 'PFCONNECT', ratepay: 'RATEPAY', riverty: 'RIVERTY',
};

/** Loads the payment a path addresses (locked for the change), or answers 404. */
async function withPayment(ctx: RequestContext, tx: StoreTransaction, change: (payment: Payment) => Decision | Reply): Promise<Reply> {
  const id = param(ctx, 'id');
  const payment = await tx.payments.get(ctx.scope, id, { lock: true });
  if (!payment) return notFound(ctx, 'Payment', id);
  const result = change(payment);
  if ('status' in result) return result;
  await settle(ctx, tx, result, 'update');
  return decisionReply(result);
}

export const paymentHandlers = {
  createCheckoutSession: write(async (ctx, tx) => {
    const body = ctx.body as Schemas['CheckoutSessionRequest'];
    const problem = simulationProblem(ctx, body.simulationMode);
    if (problem) return problem;
    const session = createSession(ctx.scope, body, ctx.domain);
    await tx.sessions.insert(session);
    return { status: 202, body: { _links: { redirect: { href: hostedUrl(ctx, 'sessions', session.id) } } } satisfies Schemas['CheckoutSessionCreated'] };
  }),

  createPayment: write(async (ctx, tx) => {
    const body = ctx.body as Schemas['PaymentRequest'];
    const problem = simulationProblem(ctx, body.simulationMode);
    if (problem) return problem;
    const { transId, refNr, amount, captureMethod, metadata, simulationMode, paymentMethods, credentialOnFile } = body;
    const details = descriptiveFields(body);
    const started = await startPayment(
      ctx,
      tx,
      {
        scope: ctx.scope,
        transId,
        ...(refNr !== undefined ? { refNr } : {}),
        amount,
        ...(captureMethod ? { captureMethod } : {}),
        // Without paymentMethods the customer chooses the method on the hosted page.
        integrationType: paymentMethods?.integrationType ?? 'HOSTED',
        ...(paymentMethods?.type !== undefined ? { paymentMethodType: paymentMethods.type } : {}),
        details,
        ...(metadata ? { metadata } : {}),
        ...(simulationMode !== undefined ? { simulationMode } : {}),
      },
      { ...(credentialOnFile ? { credentialOnFile } : {}), card: paymentMethods?.card },
    );
    if ('status' in started) return started;
    const { decision } = started;
    if (decision.outcome !== 'ok') return decisionReply(decision);
    const created: Schemas['PaymentCreated'] = {
      ...operationResult(decision.payment, decision.reported),
      ...(decision.payment.integrationType === 'HOSTED' ? { _links: { redirect: { href: hostedUrl(ctx, 'payments', decision.payment.payId) } } } : {}),
    };
    return { status: 201, body: created };
  }),

  confirmPayment: write((ctx, tx) => withPayment(ctx, tx, (payment) => confirmPayment(payment, ctx.body as Schemas['PaymentConfirmRequest'], ctx.domain))),

  incrementAuthorization: write((ctx, tx) => withPayment(ctx, tx, (payment) => incrementAuthorization(payment, ctx.body as Schemas['IncrementalAuthorizationRequest'], ctx.domain))),

  reversePayment: write((ctx, tx) => withPayment(ctx, tx, (payment) => reversePayment(payment, ctx.body as Schemas['ReversalRequest'], ctx.domain))),

  capturePayment: write((ctx, tx) => {
    const body = ctx.body as Schemas['CaptureRequest'];
    return withPayment(ctx, tx, (payment) => simulationProblem(ctx, body.simulationMode) ?? capturePayment(payment, body, ctx.domain));
  }),

  refundPayment: write((ctx, tx) => {
    const body = ctx.body as Schemas['RefundRequest'];
    return withPayment(ctx, tx, (payment) => simulationProblem(ctx, body.simulationMode) ?? refundPayment(payment, body, ctx.domain));
  }),

  createUnreferencedRefund: write(async (ctx, tx) => {
    const body = ctx.body as Schemas['UnreferencedRefundRequest'];
    const problem = simulationProblem(ctx, body.simulationMode);
    if (problem) return problem;
    if (await tx.payments.getByTransId(ctx.scope, body.transId)) return { status: 422, body: duplicateTransaction(ctx.scope, body.transId, ctx.domain) };
    const method = Object.keys(body.paymentMethods ?? {}).map((k) => METHOD_TYPES[k]).find((t) => t !== undefined);
    const decision = createUnreferencedRefund({ scope: ctx.scope, request: body, paymentMethodType: method }, ctx.domain);
    await persist(tx, decision, 'insert');
    return decisionReply(decision);
  }),

  getPaymentByPayId: read(async (ctx, store) => {
    const id = param(ctx, 'id');
    const json = await store.paymentDocument(ctx.scope, id);
    return json === undefined ? notFound(ctx, 'Payment', id) : { status: 200, json };
  }),

  getPaymentByTransId: read(async (ctx, store) => {
    const id = param(ctx, 'id');
    const json = await store.paymentDocumentByTransId(ctx.scope, id);
    return json === undefined ? notFound(ctx, 'Payment', id) : { status: 200, json };
  }),

  updatePayment: write(async (ctx, tx) => {
    const id = param(ctx, 'id');
    const payment = await tx.payments.get(ctx.scope, id, { lock: true });
    if (!payment) return notFound(ctx, 'Payment', id);
    const json = await persist(tx, updatePayment(payment, ctx.body as Schemas['PaymentUpdateRequest'], ctx.domain), 'update');
    return { status: 200, json };
  }),

  createPaymentLink: write(async (ctx, tx) => {
    const body = ctx.body as Schemas['PaymentLinkRequest'];
    const problem = simulationProblem(ctx, body.simulationMode);
    if (problem) return problem;
    const link = createLink(ctx.scope, body, ctx.domain);
    await tx.links.insert(link);
    return { status: 201, body: linkBody(link, hostedUrl(ctx, 'links', link.id)) };
  }),
} satisfies Record<string, Handler>;
