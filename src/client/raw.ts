// `client.raw`: the openapi-fetch client typed by `paths`, with the client's base URL, fetch and
// credentials, and nothing else (no retries, timeouts or typed errors).
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../../generated/types.js';
import { type AccessTokens, API_KEY_HEADER } from './auth.js';
import { PaymentCredentialsError } from './errors.js';
import type { OperationPlan } from './plan.js';

/** `plansByRoute`: each operation's plan by `METHOD /path/{template}`, whose credentials a request without its own gets. */
export function rawClient(
  baseUrl: string,
  fetchImpl: typeof globalThis.fetch,
  plansByRoute: ReadonlyMap<string, OperationPlan>,
  tokens: AccessTokens,
): Client<paths> {
  const raw = createClient<paths>({ baseUrl, fetch: (request) => fetchImpl(request) });
  const rawAuth: Middleware = {
    async onRequest({ request, schemaPath }) {
      const plan = plansByRoute.get(`${request.method} ${schemaPath}`);
      if (!plan || request.headers.has('Authorization') || request.headers.has(API_KEY_HEADER)) return undefined;
      if (plan.credentialsProblem)
        throw new PaymentCredentialsError(plan.credentialsProblem, { operationId: plan.info.operationId });
      if (plan.headers.Authorization) request.headers.set('Authorization', plan.headers.Authorization);
      if (plan.headers[API_KEY_HEADER]) request.headers.set(API_KEY_HEADER, plan.headers[API_KEY_HEADER]);
      if (plan.bearer) request.headers.set('Authorization', `Bearer ${tokens.current() ?? (await tokens.obtain())}`);
      return request;
    },
  };
  raw.use(rawAuth);
  return raw;
}
