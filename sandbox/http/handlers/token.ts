// The token endpoint: OAuth 2.0 client credentials (RFC 6749 §4.4). The merchant authenticated by
// the pipeline (HTTP Basic, or a bearer token) gets a short-lived JWT for the root it asked on.
import type { Schemas } from '../../domain/types.js';
import type { Authenticator } from '../auth.js';
import { type Handlers, read } from '../pipeline.js';

export const tokenHandlers = (auth: Authenticator) =>
  ({
    createAccessToken: read(async (ctx) => {
      const { token, expiresIn } = await auth.issueToken(ctx.merchant, ctx.environment, {
        scope: ctx.body.scope,
        notAfter: ctx.tokenExpiresAt,
      });
      const response: Schemas['TokenResponse'] = {
        access_token: token,
        token_type: 'Bearer',
        expires_in: expiresIn,
        scope: ctx.body.scope,
      };
      // RFC 6749 §5.1: a response holding a token is never cached.
      return { status: 200, body: response, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
    }),
  }) satisfies Partial<Handlers>;
