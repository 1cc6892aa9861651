// The `WWW-Authenticate` of a 401 (RFC 9110 §11.6.1: a 401 carries at least one challenge), read
// off the contract, for the sandbox (sandbox/http/pipeline.ts) and the mock (mock/front.ts):
// one challenge per HTTP authentication scheme the operation's `security` accepts, in its order,
// comma-separated: `Basic realm="Payment Service API v2", Bearer realm="Payment Service API v2"`.
// An API key in a header is no HTTP authentication scheme (RFC 9110 §11.1) and has no challenge.
//
// Plain TypeScript with no runtime imports (no `node:`), like the walker it reads the contract with.
import { deref, isObject, type JsonObject, type OpenAPI3, operations, securityOf } from './walker.js';

/** The realm every challenge names: the whole API is one protection space. */
export const REALM = 'Payment Service API v2';

/** The auth-scheme tokens of HTTP security schemes, by their `scheme` (case-insensitive in OpenAPI). */
const AUTH_SCHEMES: Record<string, string> = { basic: 'Basic', bearer: 'Bearer' };

/**
 * The challenges of one operation's security alternatives, or undefined when it accepts no HTTP
 * scheme. `realmOf` names the realm of a security scheme (by its name in the document): REALM for all
 * unless a document keeps protection spaces of its own (the sandbox's admin API).
 */
export function challengeOf(
  root: OpenAPI3 | JsonObject,
  entry: Parameters<typeof securityOf>[1],
  realmOf: (scheme: string) => string = () => REALM,
): string | undefined {
  const schemes = isObject((root as JsonObject).components)
    ? ((root as JsonObject).components as JsonObject).securitySchemes
    : undefined;
  const challenges: string[] = [];
  for (const requirement of securityOf(root, entry))
    for (const name of Object.keys(requirement)) {
      const scheme = isObject(schemes) ? deref<JsonObject>(root, schemes[name]) : undefined;
      const token =
        scheme?.type === 'http' && typeof scheme.scheme === 'string'
          ? AUTH_SCHEMES[scheme.scheme.toLowerCase()]
          : undefined;
      const challenge = token && `${token} realm="${realmOf(name)}"`;
      if (challenge && !challenges.includes(challenge)) challenges.push(challenge);
    }
  return challenges.length > 0 ? challenges.join(', ') : undefined;
}

/** The challenges of every operation of the document's paths that has any, by operationId. */
export function challengesByOperation(root: OpenAPI3 | JsonObject): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of operations(root, ['paths'])) {
    const challenge = challengeOf(root, entry);
    if (challenge && typeof entry.operation.operationId === 'string') out.set(entry.operation.operationId, challenge);
  }
  return out;
}
