// Load generation for the benchmarks: autocannon, typed, with the settings every bench shares (10
// connections, 10 s after 2 s of warm-up); a run with any failed or non-2xx answer throws.
import { createRequire } from 'node:module';

export const CONNECTIONS = 10;
export const DURATION_S = 10;
export const WARM_UP_S = 2;

/** One request of a run; `setupRequest` may change it before each send (a fresh transId). */
export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}

export interface Figures {
  /** requests per second (mean of the per-second samples) */
  rps: number;
  /** 99th percentile latency, ms */
  p99: number;
}

// autocannon ships no type declarations; the part used here.
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>;

/** Sends `requests` (in turn) to `url` for `duration` seconds, or `amount` requests in all. */
export async function load(
  url: string,
  requests: LoadRequest[],
  options: { duration?: number; amount?: number } = {},
): Promise<Figures & { total: number }> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    requests,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? DURATION_S }),
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0)
    throw new Error(
      `${requests[0]!.method} ${url}${requests[0]!.path}: ${failed} of ${result.requests.total} requests failed or were not 2xx`,
    );
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
}

/** Warm-up (not measured: validators compile on first use, the JIT needs a moment), then a measured run. */
export async function measure(url: string, requests: LoadRequest[]): Promise<Figures> {
  await load(url, requests, { duration: WARM_UP_S });
  const { rps, p99 } = await load(url, requests);
  return { rps, p99 };
}
