// '@payment-service/sandbox/msw': an in-process sandbox served to Mock Service Worker (msw/node's
// setupServer; msw is an optional peer dependency). Every request to the sandbox's origin, the API's
// roots, its hosted pages and its admin API, is answered by the sandbox itself.
import { http, type RequestHandler } from 'msw';
import type { InProcessSandbox } from './types.js';

/**
 * MSW handlers answering every request under `baseUrl`'s origin from `sandbox` (give the client the
 * same `baseUrl`; `sandbox.baseUrl` is the default, and the hosted page's links carry its origin).
 */
export function sandboxHandlers(sandbox: InProcessSandbox, options: { baseUrl?: string } = {}): RequestHandler[] {
  const origin = new URL(options.baseUrl ?? sandbox.baseUrl).origin;
  return [http.all(`${origin}/*`, ({ request }) => sandbox.fetch(request))];
}
