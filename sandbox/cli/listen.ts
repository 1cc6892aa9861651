// `npm run sandbox -- listen --forward-to http://localhost:3000/webhooks`: a merchant's webhook
// deliveries, received over a connection this machine opens (long polling on the sandbox's listener
// operations, sandbox/admin/openapi.yaml), posted to a local URL with their original headers and
// signature; the local endpoint's answer is reported back and counts as the delivery's attempt, so
// retries and dead letters behave as for a direct delivery. In the manner of `stripe listen
// --forward-to`. Against a local or a remote sandbox (--url), with the merchant's own credentials
// (--merchant-id and --api-key, or what .sandbox/cli.json holds). Ctrl-C removes the listener.
import createClient from 'openapi-fetch';
import type { components, paths } from '../../generated/admin/types.js';
import { CliError, unreachable } from './admin-client.js';
import type { CliConfig } from './config.js';

type Schemas = components['schemas'];

/** Local posts at once (the sandbox hands over at most 8 unanswered deliveries per listener). */
const CONCURRENCY = 4;
/** The longest pause between tries while the sandbox cannot be reached. */
const MAX_BACKOFF_MS = 10_000;

export interface ListenOptions {
  /** The sandbox: `http://127.0.0.1:4020`. */
  url: string;
  merchantId: string;
  apiKey: string;
  environment: 'test' | 'live';
  forwardTo: string;
  json: boolean;
  out(line: string): void;
  err(line: string): void;
  /** Stops listening (Ctrl-C): the listener is removed. */
  signal: AbortSignal;
}

/** The merchant and its API key for `listen`: the options, the environment, else .sandbox/cli.json. */
export function listenCredentials(
  values: { 'merchant-id'?: string; merchant?: string; 'api-key'?: string },
  env: NodeJS.ProcessEnv,
  config: CliConfig | undefined,
): { merchantId: string; apiKey: string } {
  const merchantId =
    values['merchant-id'] ?? values.merchant ?? env.SANDBOX_MERCHANT_ID ?? config?.merchants?.[0]?.merchantId;
  if (!merchantId)
    throw new CliError(
      'no merchant: pass --merchant-id and --api-key (or SANDBOX_MERCHANT_ID and SANDBOX_API_KEY), or run it beside `npm run sandbox`, which writes them to .sandbox/cli.json',
    );
  const apiKey =
    values['api-key'] ?? env.SANDBOX_API_KEY ?? config?.merchants?.find((m) => m.merchantId === merchantId)?.apiKey;
  if (!apiKey) throw new CliError(`no API key for merchant ${merchantId}: pass --api-key or SANDBOX_API_KEY`);
  return { merchantId, apiKey };
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** Posts a delivery to the local endpoint as the sandbox would have: its headers and body as they are. */
async function forward(
  to: string,
  delivery: Schemas['ListenedDelivery'],
): Promise<{ statusCode: number } | { error: string }> {
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(delivery.timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    return { statusCode: response.status };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return {
      error:
        e.name === 'TimeoutError'
          ? `no answer from ${to} within ${delivery.timeoutMs} ms`
          : `${e.cause?.code ?? e.message} (${to})`,
    };
  }
}

/** Runs until `signal` aborts; resolves to the exit code (a refused credential or an unusable option: 1, as a CliError). */
export async function listen(o: ListenOptions): Promise<number> {
  try {
    const target = new URL(o.forwardTo);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new CliError(
      `--forward-to must be an http(s) URL such as http://localhost:3000/webhooks, got ${o.forwardTo}`,
    );
  }
  const client = createClient<paths>({
    baseUrl: o.url,
    headers: { authorization: `Basic ${Buffer.from(`${o.merchantId}:${o.apiKey}`).toString('base64')}` },
  });
  const show = (json: object, text: string) => o.out(o.json ? JSON.stringify(json) : text);

  const register = async (): Promise<string> => {
    const { data, error, response } = await client.POST('/_sandbox/listeners', {
      body: { environment: o.environment },
    });
    if (data) return data.id;
    if (response.status === 401)
      throw new CliError(
        `the sandbox at ${o.url} refused merchant ${o.merchantId}'s credentials (401): pass the right --merchant-id and --api-key`,
      );
    const problem = error as { title?: string; detail?: string } | undefined;
    throw new CliError(`${response.status} ${problem?.title ?? response.statusText} ${problem?.detail ?? ''}`.trim());
  };

  let listenerId: string;
  try {
    listenerId = await register();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw unreachable(o.url, err);
  }
  show(
    { event: 'ready', listenerId, merchantId: o.merchantId, environment: o.environment, forwardTo: o.forwardTo },
    `Ready! Forwarding ${o.merchantId}'s webhook deliveries (${o.environment}) from ${o.url} to ${o.forwardTo} (listener ${listenerId}). Ctrl-C stops.`,
  );

  const inFlight = new Set<Promise<void>>();
  const deliver = async (delivery: Schemas['ListenedDelivery']) => {
    const t0 = performance.now();
    const answer = await forward(o.forwardTo, delivery);
    const durationMs = Math.round(performance.now() - t0);
    try {
      const { data, response } = await client.POST('/_sandbox/listeners/{listenerId}/deliveries/{deliveryId}/answer', {
        params: { path: { listenerId, deliveryId: delivery.id } },
        body: { claim: delivery.claim, durationMs, ...answer },
      });
      const outcome = data
        ? data.status
        : response.status === 409
          ? 'not recorded: handed over again'
          : `not recorded (${response.status})`;
      show(
        {
          event: 'delivery',
          deliveryId: delivery.id,
          payId: delivery.payId,
          attempt: delivery.attempt,
          ...answer,
          status: data?.status,
        },
        `${new Date().toISOString()}  payment ${delivery.payId} → ${'statusCode' in answer ? answer.statusCode : answer.error}  (delivery ${delivery.id}, attempt ${delivery.attempt}: ${outcome})`,
      );
    } catch (err) {
      o.err(
        `sandbox listen: could not report delivery ${delivery.id} (${(err as Error).message}); the sandbox hands it over again`,
      );
    }
  };

  let backoff = 500;
  while (!o.signal.aborted) {
    if (inFlight.size >= CONCURRENCY) {
      await Promise.race(inFlight);
      continue;
    }
    try {
      const { data, response } = await client.GET('/_sandbox/listeners/{listenerId}/deliveries', {
        params: { path: { listenerId }, query: { waitSeconds: 25, max: CONCURRENCY - inFlight.size } },
        signal: o.signal,
      });
      if (response.status === 404) {
        // Expired (this machine slept, the sandbox restarted on a new database…): register again.
        listenerId = await register();
        o.err(`sandbox listen: the listener had expired; listening again as ${listenerId}`);
        continue;
      }
      if (!data) throw new Error(`${response.status} ${response.statusText}`);
      backoff = 500;
      for (const delivery of data.data) {
        const running: Promise<void> = deliver(delivery).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
    } catch (err) {
      if (o.signal.aborted) break;
      if (err instanceof CliError) throw err;
      o.err(`sandbox listen: cannot reach the sandbox at ${o.url} (${(err as Error).message}); trying again`);
      await pause(backoff, o.signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  await Promise.all(inFlight);
  await client.DELETE('/_sandbox/listeners/{listenerId}', { params: { path: { listenerId } } }).catch(() => undefined);
  show({ event: 'stopped', listenerId }, `Stopped; listener ${listenerId} removed.`);
  return 0;
}
