// The hosted payment page's routes: where checkout sessions, payment links and HOSTED payments send
// the customer. GET shows the merchant, the amount and the methods; the form posts Pay, Decline or
// Cancel (app/hosted.ts decides), and the customer ends on `urls.return` or `urls.cancel`.
// Not part of the merchant contract: pages for a browser, not operations.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
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
import { hostedFailure, redactedUrl } from './failures.js';
import { type RenderedPage, renderHostedMessage, renderHostedPage } from './hosted-page.js';
import { HOSTED_FORM_LIMIT_BYTES, unstorable } from './limits.js';

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

/** A posted form's fields (URLSearchParams, or FormData, whose files count as absent). */
interface FormFields {
  get(name: string): string | File | null;
}

/** The form's choice, or undefined when it names none of pay, decline, cancel. */
function choiceOf(form: FormFields): HostedChoice | undefined {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value : null;
  };
  const decision = text('decision');
  if (decision === 'pay') return { decision, method: text('method') ?? '' };
  return decision === 'decline' || decision === 'cancel' ? { decision } : undefined;
}

/** The form as a browser posts it: URL-encoded, or multipart/form-data (parsed by the web Response). */
async function formOf(body: unknown, contentType: string | undefined): Promise<FormFields | undefined> {
  if (typeof body === 'string') return new URLSearchParams(body);
  if (!Buffer.isBuffer(body)) return new URLSearchParams('');
  try {
    return await new Response(new Uint8Array(body), { headers: { 'content-type': contentType ?? '' } }).formData();
  } catch {
    return undefined; // not a multipart body its boundary can split
  }
}

/** An address whose parts PostgreSQL could not even look up (a NUL, a lone surrogate) names nothing. */
const unstorableAddress = (address: HostedAddress) =>
  [address.kind, address.environment, address.merchantId, address.id].some((part) => unstorable(part) !== undefined);

/**
 * The page's routes, in a scope of their own: they take the form encodings a browser sends (up to
 * HOSTED_FORM_LIMIT_BYTES) and answer every failure with an HTML page of their own, never JSON.
 */
export async function registerHostedPages(app: FastifyInstance, deps: HostedRoutesDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: HOSTED_FORM_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: HOSTED_FORM_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const status =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 413
          : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 415
            : typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
              ? 400
              : 500;
      if (status === 500) console.error(`sandbox: ${request.method} ${redactedUrl(request.url)} failed:`, error);
      const failure = hostedFailure(status);
      return reply.code(failure.status).headers(failure.headers).send(failure.body);
    });

    scope.get<{ Params: HostedAddress }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
      if (unstorableAddress(request.params)) return message(reply, 'missing');
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

    scope.post<{ Params: HostedAddress }>('/hosted/:kind/:environment/:merchantId/:id', async (request, reply) => {
      if (unstorableAddress(request.params)) return message(reply, 'missing');
      const place = await findHostedPlace(deps.store, request.params);
      if (!place) return message(reply, 'missing');
      const form = await formOf(request.body, request.headers['content-type']);
      const choice = form && choiceOf(form);
      if (!choice) return message(reply, 'invalid');
      const exit = await chooseOnHostedPage(deps, place, choice, deps.now(place.scope));
      if ('refusal' in exit) return message(reply, exit.refusal);
      if (exit.decided) deps.onDelivery();
      if (!exit.redirect) {
        const paid = exit.parameters.status !== undefined && exit.parameters.status !== 'FAILED';
        const title =
          choice.decision === 'cancel' ? 'Payment cancelled' : paid ? 'Payment complete' : 'Payment declined';
        return send(
          reply,
          200,
          renderHostedMessage({
            title,
            message: 'The merchant gave no address to return to: you can close this page.',
          }),
        );
      }
      return reply
        .code(303)
        .header('location', redirectTarget(exit.redirect, exit.parameters))
        .header('cache-control', 'no-store')
        .send();
    });
  });
}
