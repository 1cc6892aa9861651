// The hosted payment page's routes: where checkout sessions, payment links and HOSTED payments send
// the customer. GET shows the merchant, the amount and the methods; the form posts Pay, Decline or
// Cancel (app/hosted.ts decides), and the customer ends on `urls.return` or `urls.cancel`.
// Not part of the merchant contract: pages for a browser, not operations.
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
import type { ExchangeRequest, ExchangeResponse, RequestHead } from './exchange.js';
import { type RenderedPage, renderHostedMessage, renderHostedPage } from './hosted-page.js';
import { unstorable } from './limits.js';

export interface HostedRoutesDeps extends HostedDeps {
  /** The time of a scope: its test clock. */
  now(scope: Scope): Date;
  publicUrl(): string;
  /** Called after a commit that wrote a webhook delivery. */
  onDelivery(): void;
}

const send = (status: number, page: RenderedPage): ExchangeResponse => ({
  status,
  headers: page.headers,
  body: page.html,
});

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

const message = (which: HostedRefusal) => {
  const m = MESSAGES[which];
  return send(m.status, renderHostedMessage({ title: m.title, message: m.message }));
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
async function formOf(body: ExchangeRequest['body'], contentType: string | undefined): Promise<FormFields | undefined> {
  if (typeof body === 'string') return new URLSearchParams(body);
  if (body === undefined) return new URLSearchParams('');
  try {
    return await new Response(body as Uint8Array<ArrayBuffer>, {
      headers: { 'content-type': contentType ?? '' },
    }).formData();
  } catch {
    return undefined; // not a multipart body its boundary can split
  }
}

/** An address whose parts PostgreSQL could not even look up (a NUL, a lone surrogate) names nothing. */
const unstorableAddress = (address: HostedAddress) =>
  [address.kind, address.environment, address.merchantId, address.id].some((part) => unstorable(part) !== undefined);

/** The hosted page's address, /hosted/{kind}/{environment}/{merchantId}/{id}, as a route's path. */
export const HOSTED_ROUTE = '/hosted/{kind}/{environment}/{merchantId}/{id}';

/** The page's two answers: GET shows it, POST takes its form. Every refusal is an HTML page of its own, never JSON. */
export function hostedPages(deps: HostedRoutesDeps) {
  const addressOf = (request: RequestHead) => request.params as unknown as HostedAddress;
  return {
    async show(request: RequestHead): Promise<ExchangeResponse> {
      const address = addressOf(request);
      if (unstorableAddress(address)) return message('missing');
      const place = await findHostedPlace(deps.store, address);
      if (!place) return message('missing');
      const found = await hostedOffer(deps.store, place, deps.now(place.scope));
      if ('refusal' in found) return message(found.refusal);
      const { offer } = found;
      return send(
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
    },

    async choose(request: ExchangeRequest): Promise<ExchangeResponse> {
      const address = addressOf(request);
      if (unstorableAddress(address)) return message('missing');
      const place = await findHostedPlace(deps.store, address);
      if (!place) return message('missing');
      const contentType = request.headers['content-type'];
      const form = await formOf(request.body, Array.isArray(contentType) ? contentType.join(', ') : contentType);
      const choice = form && choiceOf(form);
      if (!choice) return message('invalid');
      const exit = await chooseOnHostedPage(deps, place, choice, deps.now(place.scope));
      if ('refusal' in exit) return message(exit.refusal);
      if (exit.decided) deps.onDelivery();
      if (!exit.redirect) {
        const paid = exit.parameters.status !== undefined && exit.parameters.status !== 'FAILED';
        const title =
          choice.decision === 'cancel' ? 'Payment cancelled' : paid ? 'Payment complete' : 'Payment declined';
        return send(
          200,
          renderHostedMessage({
            title,
            message: 'The merchant gave no address to return to: you can close this page.',
          }),
        );
      }
      return {
        status: 303,
        headers: { location: redirectTarget(exit.redirect, exit.parameters), 'cache-control': 'no-store' },
      };
    },
  };
}
