// The hosted payment page's routes: where checkout sessions, payment links and HOSTED payments send
// the customer. GET shows the merchant, the amount and the methods; the form posts Pay, Decline or
// Cancel (app/hosted.ts decides), and the customer ends on `urls.return` or `urls.cancel`.
// Not part of the merchant contract: pages for a browser, not operations.
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  chooseOnHostedPage,
  findHostedPlace,
  type HostedAddress,
  type HostedChoice,
  type HostedDeps,
  type HostedRefusal,
  hostedOffer,
} from '../app/hosted.js';
import { redirectTarget } from '../domain/hosted.js';
import type { Scope } from '../domain/types.js';
import { type RenderedPage, renderHostedMessage, renderHostedPage } from './hosted-page.js';

export interface HostedRoutesDeps extends HostedDeps {
  /** The time of a scope: its test clock. */
  now(scope: Scope): Date;
  publicUrl(): string;
  /** Called after a commit that wrote a webhook delivery. */
  onDelivery(): void;
}

const send = (reply: FastifyReply, status: number, page: RenderedPage) =>
  reply.code(status).headers(page.headers).send(page.html);

const MESSAGES: Record<HostedRefusal, { status: number; title: string; message: string }> = {
  missing: {
    status: 404,
    title: 'Payment page not found',
    message: 'This payment page does not exist. Check the link the merchant gave you.',
  },
  used: {
    status: 410,
    title: 'Payment page already used',
    message: 'This payment has already been completed or declined. Return to the merchant to start again.',
  },
  expired: {
    status: 410,
    title: 'Payment page expired',
    message: 'This payment page has expired. Return to the merchant to start again.',
  },
  invalid: {
    status: 400,
    title: 'Choose a payment method',
    message: 'The form was incomplete: go back and choose one of the offered payment methods.',
  },
};

const message = (reply: FastifyReply, which: HostedRefusal) => {
  const m = MESSAGES[which];
  return send(reply, m.status, renderHostedMessage({ title: m.title, message: m.message }));
};

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/** The form's choice, or undefined when it names none of pay, decline, cancel. */
function choiceOf(form: URLSearchParams): HostedChoice | undefined {
  const decision = form.get('decision');
  if (decision === 'pay') return { decision, method: form.get('method') ?? '' };
  return decision === 'decline' || decision === 'cancel' ? { decision } : undefined;
}

export function registerHostedPages(app: FastifyInstance, deps: HostedRoutesDeps): void {
  app.get<{ Params: HostedAddress }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
    const place = await findHostedPlace(deps.store, request.params);
    if (!place) return message(reply, 'missing');
    const found = await hostedOffer(deps.store, place, deps.now(place.scope));
    if ('refusal' in found) return message(reply, found.refusal);
    const { offer } = found;
    return send(
      reply,
      200,
      renderHostedPage({
        merchantId: place.merchant.merchantId,
        amountValue: offer.amount.value,
        currency: offer.amount.currency,
        reference: offer.reference,
        methods: offer.methods,
        environment: place.scope.environment,
        actionUrl: `${deps.publicUrl()}${request.url.split('?')[0]}`,
        redirectOrigins: [originOf(offer.urls.return), originOf(offer.urls.cancel)].filter(
          (o): o is string => o !== undefined,
        ),
      }),
    );
  });

  app.post<{ Params: HostedAddress }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
    const place = await findHostedPlace(deps.store, request.params);
    if (!place) return message(reply, 'missing');
    const choice = choiceOf(new URLSearchParams(typeof request.body === 'string' ? request.body : ''));
    if (!choice) return message(reply, 'invalid');
    const exit = await chooseOnHostedPage(deps, place, choice, deps.now(place.scope));
    if ('refusal' in exit) return message(reply, exit.refusal);
    if (exit.decided) deps.onDelivery();
    if (!exit.redirect) {
      const paid = exit.parameters.status !== undefined && exit.parameters.status !== 'FAILED';
      const title = choice.decision === 'cancel' ? 'Payment cancelled' : paid ? 'Payment complete' : 'Payment declined';
      return send(
        reply,
        200,
        renderHostedMessage({ title, message: 'The merchant gave no address to return to: you can close this page.' }),
      );
    }
    return reply
      .code(303)
      .header('location', redirectTarget(exit.redirect, exit.parameters))
      .header('cache-control', 'no-store')
      .send();
  });
}
