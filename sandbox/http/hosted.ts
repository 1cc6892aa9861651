// The hosted payment page: where checkout sessions, payment links and HOSTED payments send the
// customer. GET shows the merchant, the amount and the methods; the form posts Pay, Decline or
// Cancel. Pay and Decline decide the payment (in one transaction with the session's or link's use
// and the webhook delivery for the merchant) and end on `urls.return`; Cancel ends on `urls.cancel`.
// Not part of the merchant contract: pages for a browser, not operations.
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  hostedAvailability,
  paymentOfHostedRequest,
  redirectTarget,
  usedHostedTarget,
  type HostedKind,
  type HostedTarget,
  type RedirectParameters,
} from '../domain/hosted.js';
import { completeOnHostedPage, type Decision } from '../domain/payments.js';
import type { Environment, Payment, Scope } from '../domain/types.js';
import type { StoreTransaction } from '../store/store.js';
import { internalContext, queueNotification, settle, startPayment } from './handlers/shared.js';
import { renderHostedMessage, renderHostedPage, type RenderedPage } from './hosted-page.js';
import { domainContextAt } from './domain-context.js';
import type { PipelineDeps } from './pipeline.js';

const KINDS: ReadonlySet<string> = new Set<HostedKind>(['payments', 'sessions', 'links']);
const ENVIRONMENTS: ReadonlySet<string> = new Set<Environment>(['test', 'live']);
const DECISIONS = new Set(['pay', 'decline', 'cancel']);

interface HostedParams {
  kind: string;
  environment: string;
  merchantId: string;
  id: string;
}

export interface HostedDeps extends Pick<PipelineDeps, 'contract' | 'store' | 'now' | 'publicUrl' | 'fingerprint'> {
  /** Called after a commit that wrote a webhook delivery. */
  onDelivery(): void;
}

const send = (reply: FastifyReply, status: number, page: RenderedPage) => reply.code(status).headers(page.headers).send(page.html);

const MESSAGES = {
  missing: { status: 404, title: 'Payment page not found', message: 'This payment page does not exist. Check the link the merchant gave you.' },
  used: { status: 410, title: 'Payment page already used', message: 'This payment has already been completed or declined. Return to the merchant to start again.' },
  expired: { status: 410, title: 'Payment page expired', message: 'This payment page has expired. Return to the merchant to start again.' },
  invalid: { status: 400, title: 'Choose a payment method', message: 'The form was incomplete: go back and choose one of the offered payment methods.' },
} as const;

const message = (reply: FastifyReply, which: keyof typeof MESSAGES) => {
  const m = MESSAGES[which];
  return send(reply, m.status, renderHostedMessage({ title: m.title, message: m.message }));
};

async function loadTarget(tx: Pick<StoreTransaction, 'payments' | 'sessions' | 'links'>, kind: HostedKind, scope: Scope, id: string, lock: boolean): Promise<HostedTarget | undefined> {
  const options = { lock };
  if (kind === 'payments') {
    const payment = await tx.payments.get(scope, id, options);
    return payment && payment.kind === 'PAYMENT' && payment.integrationType === 'HOSTED' ? { kind, payment } : undefined;
  }
  if (kind === 'sessions') {
    const session = await tx.sessions.get(scope, id, options);
    return session && { kind, session };
  }
  const link = await tx.links.get(scope, id, options);
  return link && { kind, link };
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

type Outcome = { page: keyof typeof MESSAGES } | { redirect: string | undefined; parameters: RedirectParameters; decided?: Decision };

export function registerHostedPages(app: FastifyInstance, deps: HostedDeps): void {
  const resolve = async (params: HostedParams) => {
    if (!KINDS.has(params.kind) || !ENVIRONMENTS.has(params.environment)) return undefined;
    const merchant = await deps.store.merchants.get(params.merchantId);
    if (!merchant) return undefined;
    return { merchant, kind: params.kind as HostedKind, scope: { merchantId: merchant.merchantId, environment: params.environment as Environment } satisfies Scope };
  };

  app.get<{ Params: HostedParams }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
    const found = await resolve(request.params);
    if (!found) return message(reply, 'missing');
    const target = await deps.store.transaction((tx) => loadTarget(tx, found.kind, found.scope, request.params.id, false));
    if (!target) return message(reply, 'missing');
    const availability = hostedAvailability(target, deps.now(found.scope));
    if (!availability.open) return message(reply, availability.reason);
    const { offer } = availability;
    return send(
      reply,
      200,
      renderHostedPage({
        merchantId: found.merchant.merchantId,
        amountValue: offer.amount.value,
        currency: offer.amount.currency,
        reference: offer.reference,
        methods: offer.methods,
        environment: found.scope.environment,
        actionUrl: `${deps.publicUrl()}${request.url.split('?')[0]}`,
        redirectOrigins: [originOf(offer.urls.return), originOf(offer.urls.cancel)].filter((o): o is string => o !== undefined),
      }),
    );
  });

  app.post<{ Params: HostedParams }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
    const found = await resolve(request.params);
    if (!found) return message(reply, 'missing');
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const decision = form.get('decision') ?? '';
    const method = form.get('method') ?? '';
    if (!DECISIONS.has(decision)) return message(reply, 'invalid');
    const { merchant, scope, kind } = found;
    const now = deps.now(scope);
    const domain = domainContextAt(now, deps.contract.tables);
    const ctx = internalContext(deps, merchant, scope, domain, 'createPayment', request.url.split('?')[0]!);

    const outcome = await deps.store.transaction(async (tx): Promise<Outcome> => {
      const target = await loadTarget(tx, kind, scope, request.params.id, true);
      if (!target) return { page: 'missing' };
      const availability = hostedAvailability(target, now);
      if (!availability.open) return { page: availability.reason };
      const { offer } = availability;
      const ids = { ...(target.kind === 'sessions' ? { sessionId: target.session.id } : {}), ...(target.kind === 'links' ? { linkId: target.link.id } : {}) };
      if (decision === 'cancel') {
        return { redirect: offer.urls.cancel, parameters: { transId: offer.reference, ...(target.kind === 'payments' ? { payId: target.payment.payId } : {}), ...ids } };
      }
      if (decision === 'pay' && !offer.methods.includes(method)) return { page: 'invalid' };

      let payment: Payment;
      if (target.kind === 'payments') payment = target.payment;
      else {
        const request = target.kind === 'sessions' ? target.session.request : target.link.request;
        const started = await startPayment(ctx, tx, paymentOfHostedRequest(target), { ...(request.credentialOnFile ? { credentialOnFile: request.credentialOnFile } : {}) });
        if ('status' in started) return { page: 'used' }; // its transId was taken meanwhile
        payment = started.decision.payment;
      }
      const decided = completeOnHostedPage(payment, decision === 'pay' ? { decision: 'pay', paymentMethodType: method } : { decision: 'decline' }, domain);
      const settled = await settle(ctx, tx, decided, 'update');
      if (target.kind !== 'payments') {
        const used = usedHostedTarget(target, payment.payId, settled.outcome === 'ok');
        if (used.kind === 'sessions') await tx.sessions.update(used.session);
        else if (used.kind === 'links') await tx.links.update(used.link);
      }
      if (offer.urls.webhook) await queueNotification(tx, merchant, settled.payment, offer.urls.webhook, now);
      return { redirect: offer.urls.return, parameters: { payId: payment.payId, transId: offer.reference, status: settled.payment.state, ...ids }, decided: settled };
    });

    if ('page' in outcome) return message(reply, outcome.page);
    if (outcome.decided) deps.onDelivery();
    if (!outcome.redirect) {
      const paid = outcome.parameters.status !== undefined && outcome.parameters.status !== 'FAILED';
      return send(reply, 200, renderHostedMessage({ title: decision === 'cancel' ? 'Payment cancelled' : paid ? 'Payment complete' : 'Payment declined', message: 'The merchant gave no address to return to: you can close this page.' }));
    }
    return reply.code(303).header('location', redirectTarget(outcome.redirect, outcome.parameters)).header('cache-control', 'no-store').send();
  });
}
