// CORS in the sandbox: the rule of tooling/openapi/cors.ts (the one the mock applies too). Closed by
// default: no preflight route and no Access-Control-* header at all. With allowed origins, an
// OPTIONS route on each exact path of an operation a browser may call (under every root) answers
// preflights as the rule says, and those operations' answers carry the rule's headers (the other
// operations never see CORS).
import { type CorsRule, corsRule, mergeVary } from '../../tooling/openapi/cors.js';
import type { JsonObject, OpenAPI3 } from '../../tooling/openapi/walker.js';
import { type ExchangeResponse, headerOf, pathOf, type RequestHead } from './exchange.js';

export interface SandboxCors {
  readonly rule: CorsRule;
  /** Whether the answers of this operation carry CORS headers. */
  opens(operationId: string): boolean;
  /** `response` with the operation's CORS headers for the request's origin. */
  withHeaders(operationId: string, request: RequestHead, response: ExchangeResponse): ExchangeResponse;
  /** The paths (below a root) that take preflights: none while no origin is allowed. */
  readonly preflightPaths: readonly string[];
  /** The answer to an OPTIONS request at `root`, or undefined when it is not a preflight (as if there were no route). */
  preflight(root: string, request: RequestHead): ExchangeResponse | undefined;
}

/** The rule for the contract and `origins` (each checked: a bad one throws CorsConfigError). */
export function sandboxCors(
  document: OpenAPI3 | JsonObject,
  origins: readonly string[],
  consoleOrigins: readonly string[] = [],
): SandboxCors {
  const rule = corsRule(document, origins, { consoleOrigins });
  const open = rule.origins.length > 0 || rule.consoleOrigins.length > 0;
  // Docs console mode opens every operation to its origins; otherwise only the browser's.
  const opened = rule.consoleOrigins.length > 0 ? rule.consoleOperations : rule.operations;
  const browser = new Set(opened.map((op) => op.operationId));

  return {
    rule,
    opens: (operationId) => open && browser.has(operationId),
    withHeaders(operationId, request, response) {
      const headers = { ...response.headers };
      for (const [name, value] of Object.entries(
        rule.responseHeaders(operationId, headerOf(request.headers, 'origin')),
      ))
        headers[name] = name === 'vary' ? mergeVary(headers.vary, value) : value;
      return { ...response, headers };
    },
    preflightPaths: open ? [...new Set(opened.map((op) => op.path))] : [],
    preflight(root, request) {
      const answer = rule.preflight(pathOf(request.url).slice(root.length), {
        origin: headerOf(request.headers, 'origin'),
        method: headerOf(request.headers, 'access-control-request-method'),
        headers: headerOf(request.headers, 'access-control-request-headers'),
      });
      if (answer.verdict === 'none') return undefined;
      return answer.verdict === 'refuse'
        ? { status: answer.status, headers: answer.headers, body: answer.body }
        : { status: answer.status, headers: answer.headers };
    },
  };
}
