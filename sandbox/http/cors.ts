// CORS in the sandbox: the rule of tooling/openapi/cors.ts (the one the mock applies too), on
// fastify. Closed by default: no preflight route and no Access-Control-* header at all. With
// allowed origins, an OPTIONS route on each exact path of an operation a browser may call (under
// every root) answers preflights as the rule says, and those operations' responses carry the
// rule's headers (a hook on their routes only: the other operations never see CORS).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type CorsRule, corsRule, mergeVary } from '../../tooling/openapi/cors.js';
import type { JsonObject, OpenAPI3 } from '../../tooling/openapi/walker.js';

export interface SandboxCors {
  readonly rule: CorsRule;
  /** Route options for an operation's route: the hook that adds its CORS headers, or nothing. */
  routeOptions(operationId: string): {
    onSend?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;
  };
  /** The preflight routes under each root (none while no origin is allowed). Register after the operations. */
  registerPreflights(app: FastifyInstance, roots: readonly string[]): void;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

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

  const addHeaders = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const headers = rule.responseHeaders(request.routeOptions.config.operationId, header(request, 'origin'));
    for (const [name, value] of Object.entries(headers))
      reply.header(name, name === 'vary' ? mergeVary(reply.getHeader('vary') as string | undefined, value) : value);
    return payload;
  };

  return {
    rule,
    routeOptions: (operationId) => (open && browser.has(operationId) ? { onSend: addHeaders } : {}),
    registerPreflights(app, roots) {
      if (!open) return;
      const paths = new Set(opened.map((op) => op.path));
      for (const root of roots) {
        for (const path of paths) {
          app.route({
            method: 'OPTIONS',
            url: root + path.replace(/\{([^}]+)\}/g, ':$1'),
            handler: (request, reply) => {
              const answer = rule.preflight(request.url.split('?')[0]!.slice(root.length), {
                origin: header(request, 'origin'),
                method: header(request, 'access-control-request-method'),
                headers: header(request, 'access-control-request-headers'),
              });
              // Not a preflight (no Origin, no requested method): as if there were no route.
              if (answer.verdict === 'none') return reply.callNotFound();
              reply.code(answer.status).headers(answer.headers);
              return reply.send(answer.verdict === 'refuse' ? answer.body : undefined);
            },
          });
        }
      }
    },
  };
}
