// A merchant's webhook receiver on Node's `http`, linked and excerpted by docs/webhooks.md.
// Run it with
//
//   WEBHOOK_SECRET=… npx tsx examples/webhook-server.ts
//
// Environment: WEBHOOK_SECRET (required); HOST (default 127.0.0.1: only this machine; 0.0.0.0 for
// all interfaces) and PORT (default 3000); PAYMENT_API_BASE_URL (default the local sandbox's test
// root, http://127.0.0.1:4020/api/v2; the mock is http://127.0.0.1:4010), PAYMENT_MERCHANT_ID and
// PAYMENT_API_KEY for the API calls the basic notification needs.
//
// Package consumers import from '@payment-service/api-v2/webhooks' instead of the source path.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createPaymentClient } from '../src/client/index.js';
import {
  constructEnhancedNotification,
  type EnhancedWebhookNotification,
  parseBasicNotification,
  type VerifyOptions,
  WebhookPayloadError,
  WebhookSignatureError,
} from '../src/webhooks/index.js';

/** What the handler needs of the SDK client: anything with `payments.retrieve(payId)`. */
export interface PaymentsClient {
  payments: { retrieve(payId: string): Promise<unknown> };
}

export type PaymentEvent =
  | { kind: 'enhanced'; payId: string; notification: EnhancedWebhookNotification }
  | { kind: 'basic'; payId: string; details: unknown };

export interface WebhookServerOptions {
  /** The webhook secret; several during a rotation of your own secret (any may match). */
  secret: string | string[];
  /** Fetches the payment for the unsigned basic webhook. */
  client: PaymentsClient;
  /** Your business logic. Must be idempotent: a notification can arrive more than once. */
  onPayment?: (event: PaymentEvent) => void | Promise<void>;
  enhancedPath?: string;
  basicPath?: string;
  /** Passed to the verification (tolerance, clock for tests). */
  verifyOptions?: VerifyOptions;
  /** Larger bodies get 413 before any crypto runs. Default 1 MiB. */
  maxBodyBytes?: number;
}

class BodyTooLarge extends Error {}

/** The raw body as bytes: the signature covers the bytes as sent, so never parse-and-reserialise. */
async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function createWebhookServer(options: WebhookServerOptions): Server {
  const {
    secret,
    client,
    onPayment = () => {},
    enhancedPath = '/webhooks/enhanced',
    basicPath = '/webhooks/basic',
  } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;

  return createServer(async (req, res) => {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
    };
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== enhancedPath && path !== basicPath) return reply(404, 'not found');
    if (req.method !== 'POST') return reply(405, 'method not allowed');

    try {
      const rawBody = await readRawBody(req, maxBodyBytes);
      if (path === enhancedPath) {
        // Verify BEFORE parsing: constructEnhancedNotification parses only an authentic body.
        const notification = await constructEnhancedNotification(rawBody, req.headers, secret, options.verifyOptions);
        await onPayment({ kind: 'enhanced', payId: notification.payId, notification });
      } else {
        // Unsigned, so only a hint: the authoritative state comes from the authenticated API call.
        const { payId } = parseBasicNotification(rawBody);
        const details = await client.payments.retrieve(payId);
        await onPayment({ kind: 'basic', payId, details });
      }
      // Any 2xx acknowledges (the contract's inferred rule); anything else counts as a failed delivery.
      return reply(200, 'ok');
    } catch (error) {
      // 400: not from the service, or not a notification; never process it. The service may
      // redeliver on non-2xx (its redelivery policy is not shown in the interface document).
      if (error instanceof WebhookSignatureError || error instanceof WebhookPayloadError) {
        console.warn(`webhook rejected: ${error.code}: ${error.message}`);
        return reply(400, error.code);
      }
      if (error instanceof BodyTooLarge) return reply(413, 'body too large');
      // 500: our own failure (API call, database); a non-2xx lets a redelivery try again.
      console.error('webhook processing failed', error);
      return reply(500, 'processing failed');
    }
  });
}

/** The API the example calls unless PAYMENT_API_BASE_URL says otherwise: the local sandbox's test root. */
export const DEFAULT_API_BASE_URL = 'http://127.0.0.1:4020/api/v2';

// Started directly (not imported by a test): listen on HOST:PORT with WEBHOOK_SECRET.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('set WEBHOOK_SECRET to the webhook secret of your merchant account');
  const { PAYMENT_MERCHANT_ID: merchantId, PAYMENT_API_KEY: apiKey } = process.env;
  const baseUrl = process.env.PAYMENT_API_BASE_URL || DEFAULT_API_BASE_URL;
  // The SDK client when credentials are set; otherwise a stand-in that logs.
  const client: PaymentsClient =
    merchantId && apiKey
      ? createPaymentClient({ merchantId, apiKey, baseUrl })
      : {
          payments: {
            retrieve: async (payId) => {
              console.log(`would call payments.retrieve(${payId}) at ${baseUrl}`);
              return { payId };
            },
          },
        };
  // Loopback unless told otherwise: a receiver open to the network is a choice, not a default.
  const host = process.env.HOST || '127.0.0.1';
  const port = Number(process.env.PORT ?? 3000);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  createWebhookServer({ secret, client, onPayment: (event) => console.log(event.kind, event.payId) }).listen(
    port,
    host,
    () => console.log(`webhook receiver on http://${shownHost}:${port}/webhooks/{enhanced,basic}, API ${baseUrl}`),
  );
}
