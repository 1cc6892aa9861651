// auth: every operation refuses a request without credentials, with wrong ones and with a scheme it
// does not accept, with its 401 and a WWW-Authenticate challenge for each HTTP scheme it accepts
// (RFC 9110 §11.6.1); it takes each scheme it does accept (a harmless request: an invalid body or
// an id that does not exist, so that nothing changes); the token answer is not to be stored
// (Cache-Control: no-store, Pragma: no-cache, RFC 6749 §5.1); a test token is refused on the live root.
import { type Auth, type Call, Client } from '../client.js';
import type { RunContext } from '../context.js';
import type { OperationSpec } from '../contract.js';
import type { Fixtures } from '../fixtures.js';
import type { Exchange } from '../judge.js';

const NO_SUCH_ID = 'pv-no-such-object-0000';

/** The HTTP authentication schemes (`basic`, `bearer`) an operation accepts, in its order. */
function httpSchemes(ctx: RunContext, op: OperationSpec): string[] {
  return op.security
    .flat()
    .map((name) => ctx.contract.securitySchemes.get(name))
    .filter((s) => s?.type === 'http' && s.scheme)
    .map((s) => s!.scheme!);
}

/** What is wrong with an answer that must be the operation's 401. */
function refusal(ctx: RunContext, op: OperationSpec, exchange: Exchange): string[] {
  if (exchange.status !== 401) return [`${exchange.status}: ${exchange.text.slice(0, 200)}`];
  const challenge = exchange.headers['www-authenticate'];
  if (challenge === undefined) return ['401 without WWW-Authenticate'];
  const offered = challenge.toLowerCase();
  return httpSchemes(ctx, op)
    .filter((scheme) => !new RegExp(`(^|,\\s*)${scheme}(\\s|,|$)`).test(offered))
    .map((scheme) => `WWW-Authenticate "${challenge}" offers no ${scheme} challenge`);
}

/**
 * A request of the operation that changes nothing: an id that does not exist, an empty JSON body;
 * the token operation's form (a token changes no merchant data).
 */
function harmless(op: OperationSpec): Pick<Call, 'params' | 'body' | 'contentType'> {
  const params = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, NO_SUCH_ID]));
  if (op.body?.mediaType === 'application/x-www-form-urlencoded')
    return { params, body: 'grant_type=client_credentials', contentType: op.body.mediaType };
  if (op.body?.mediaType === 'application/json') return { params, body: {} };
  return { params };
}

async function refuses(ctx: RunContext, op: OperationSpec, title: string, auth: Auth, root?: string): Promise<void> {
  const exchange = await ctx.client.send({
    operationId: op.id,
    title,
    auth,
    ...harmless(op),
    ...(root ? { root } : {}),
  });
  ctx.results.judge(
    'auth',
    {
      operationId: op.id,
      title,
      expected: '401 with a WWW-Authenticate challenge per accepted HTTP scheme',
      actual: '401',
      curl: exchange.curl,
    },
    refusal(ctx, op, exchange),
  );
}

async function accepts(ctx: RunContext, op: OperationSpec, schemeName: string): Promise<void> {
  const scheme = ctx.contract.securitySchemes.get(schemeName);
  const kind = scheme?.type === 'apiKey' ? 'apiKey' : scheme?.scheme === 'bearer' ? 'bearer' : 'basic';
  const title = `${op.id} with ${schemeName}, which it accepts`;
  const exchange = await ctx.client.send({
    operationId: op.id,
    title,
    auth: { scheme: kind, merchant: ctx.first },
    ...harmless(op),
  });
  ctx.results.judge(
    'auth',
    {
      operationId: op.id,
      title,
      expected: 'an answer other than 401 and 403',
      actual: String(exchange.status),
      curl: exchange.curl,
    },
    exchange.status === 401 || exchange.status === 403 ? [`${exchange.status}: ${exchange.text.slice(0, 200)}`] : [],
  );
}

async function tokenNotStored(ctx: RunContext): Promise<void> {
  const exchange = await ctx.client.send({
    operationId: 'createAccessToken',
    title: 'a token, which no cache may keep',
    auth: { scheme: 'basic', merchant: ctx.first },
    body: 'grant_type=client_credentials',
    contentType: 'application/x-www-form-urlencoded',
  });
  const cacheControl = exchange.headers['cache-control'] ?? '';
  const pragma = exchange.headers.pragma ?? '';
  const problems = [
    ...(exchange.status === 200 ? [] : [`${exchange.status}: ${exchange.text.slice(0, 200)}`]),
    ...(/\bno-store\b/i.test(cacheControl) ? [] : [`Cache-Control "${cacheControl}" without no-store`]),
    ...(/\bno-cache\b/i.test(pragma) ? [] : [`Pragma "${pragma}" without no-cache`]),
  ];
  ctx.results.judge(
    'auth',
    {
      operationId: 'createAccessToken',
      title: 'a token answer',
      expected: 'Cache-Control: no-store and Pragma: no-cache',
      actual: 'both',
      curl: exchange.curl,
    },
    problems,
  );
}

async function testTokenRefusedOnLive(ctx: RunContext): Promise<void> {
  const token = await ctx.client.token(ctx.first);
  if (!token || !ctx.liveBaseUrl) return;
  const op = ctx.contract.operations.get('listCustomers');
  if (!op) return;
  await refuses(
    ctx,
    op,
    'listCustomers on the live root with a test token',
    { scheme: 'raw', headers: { Authorization: `Bearer ${token}` } },
    ctx.liveBaseUrl,
  );
}

export async function checkAuth(ctx: RunContext, _fx: Fixtures): Promise<void> {
  const wrong = { ...ctx.first, apiKey: `${ctx.first.apiKey}-wrong` };
  for (const op of ctx.contract.operations.values()) {
    if (ctx.readOnly && op.method !== 'GET') continue;
    await refuses(ctx, op, `${op.id} without credentials`, { scheme: 'none' });
    await refuses(ctx, op, `${op.id} with a wrong API key`, {
      scheme: 'raw',
      headers: { Authorization: Client.basic(wrong) },
    });
    await refuses(ctx, op, `${op.id} with a malformed bearer token`, {
      scheme: 'raw',
      headers: { Authorization: 'Bearer not-a-token' },
    });
    const accepted = new Set(op.security.flat());
    for (const [name, scheme] of ctx.contract.securitySchemes) {
      if (accepted.has(name)) {
        if (!ctx.readOnly || op.method === 'GET') await accepts(ctx, op, name);
        continue;
      }
      const auth: Auth =
        scheme.type === 'apiKey'
          ? { scheme: 'apiKey', merchant: ctx.first }
          : scheme.scheme === 'bearer'
            ? { scheme: 'bearer', merchant: ctx.first }
            : { scheme: 'basic', merchant: ctx.first };
      await refuses(ctx, op, `${op.id} with ${name}, which it does not accept`, auth);
    }
  }
  if (ctx.readOnly) return;
  await tokenNotStored(ctx);
  if (ctx.liveBaseUrl) await testTokenRefusedOnLive(ctx);
  else ctx.results.skip('auth', 'listCustomers', 'a test token on the live root', 'no --live-base-url');
}
