// Mobile SDK: the merchant back end creates a payment intent; the app confirms it (bearer only),
// which creates the payment (a HOSTED one waits for the customer on the hosted page).
import { confirmIntent, createIntent, refusedIntentResult } from '../../domain/flows.js';
import type { Schemas } from '../../domain/types.js';
import type { Handler } from '../pipeline.js';
import { operationResult } from '../../domain/payments.js';
import { decisionReply, hostedUrl, notFound, param, simulationProblem, startPayment, write } from './shared.js';

export const intentHandlers = {
  createPaymentIntent: write(async (ctx, tx) => {
    const body = ctx.body as Schemas['PaymentIntentRequest'];
    const problem = simulationProblem(ctx, body.simulationMode);
    if (problem) return problem;
    const intent = createIntent(ctx.scope, body, ctx.domain);
    await tx.intents.insert(intent);
    return { status: 201, body: { id: intent.id } satisfies Schemas['PaymentIntentCreated'] };
  }),

  confirmPaymentIntent: write(async (ctx, tx) => {
    const id = param(ctx, 'id');
    const intent = await tx.intents.get(ctx.scope, id, { lock: true });
    if (!intent) return notFound(ctx, 'Payment intent', id);
    const confirmation = confirmIntent(intent, ctx.body as Schemas['PaymentMethodSelection'], ctx.domain);
    if (confirmation.outcome === 'refused') return { status: 422, body: refusedIntentResult(intent, confirmation.code, ctx.domain) };
    const cof = intent.request.credentialOnFile;
    const started = await startPayment(ctx, tx, confirmation.payment, {
      ...(cof?.type !== undefined ? { credentialOnFile: cof as Schemas['CredentialOnFile'] } : {}),
      card: (ctx.body as Schemas['PaymentMethodSelection']).card,
    });
    if ('status' in started) return started;
    const { decision } = started;
    await tx.intents.update({ ...confirmation.intent, payId: decision.payment.payId });
    if (decision.outcome !== 'ok' || decision.payment.integrationType !== 'HOSTED') return decisionReply(decision, 201);
    // HOSTED: the payment waits for the customer on the hosted page, as createPayment's does.
    const created: Schemas['PaymentCreated'] = { ...operationResult(decision.payment, decision.reported), _links: { redirect: { href: hostedUrl(ctx, 'payments', decision.payment.payId) } } };
    return { status: 201, body: created };
  }),
} satisfies Record<string, Handler>;
