// Which return and cancel URLs a root accepts. The hosted page sends the customer's browser to
// `urls.return` and `urls.cancel`: on the live root only `https:` (a live customer never lands on
// plain HTTP, nor on `javascript:` or `file:`), on the test root `http:` too (a merchant's local
// development server). Where `urls.webhook` may point is the webhook destination policy's to say
// (domain/destinations.ts).
import type { Environment, Schemas } from './types.js';

/** The schemes a return or cancel URL may have, by root. */
const SCHEMES: Record<Environment, readonly string[]> = { test: ['http:', 'https:'], live: ['https:'] };

/** The merchant URLs of a request (PaymentUrls, or SessionUrls with its `appRedirect`, which is an app's). */
type MerchantUrls = Pick<Schemas['PaymentUrls'], 'return' | 'cancel'>;

/** The first of `urls` that the root does not accept, named as the request names it (`urls.return`), or undefined. */
export function merchantUrlProblem(
  environment: Environment,
  urls: MerchantUrls | undefined,
): { field: string; message: string } | undefined {
  if (!urls) return undefined;
  for (const name of ['return', 'cancel'] as const) {
    const value = urls[name];
    if (value === undefined) continue;
    const allowed = SCHEMES[environment];
    const scheme = URL.canParse(value) ? new URL(value).protocol : undefined;
    if (scheme === undefined || !allowed.includes(scheme))
      return {
        field: `urls.${name}`,
        message: `must be an absolute ${allowed.map((s) => s.slice(0, -1)).join(' or ')} URL on the ${environment} root${scheme ? ` (not ${scheme})` : ''}`,
      };
  }
  return undefined;
}
