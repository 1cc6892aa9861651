// house-links-resolve: a Link Object can be followed. A client (and a contract verifier) takes the
// values of one answer into the next request; nothing else checks that the link's target, its
// parameters and its expressions exist.
//  - the link names its target by `operationId` (an operation of the document), and each of its
//    parameters is a parameter of the target (`id`, or qualified by location: `path.id`), and it
//    gives every path parameter the target requires;
//  - each runtime expression is of the grammar, and what it reads exists in the source, where the
//    link is used: `$response.body#/…` a property (or array item) the response's schema declares,
//    `$response.header.…` a header of the response, `$request.path|query|header.…` a parameter of
//    the source operation, `$request.body#/…` its request body's schema.
// The link's own problems are reported once, where it lives; a problem of one use at that use
// (`…/responses/201/links/<name>`), since a shared link may fit one response and not another.
import {
  isObject,
  type JsonObject,
  type OperationEntry,
  operations,
  type ParameterObject,
  type PointerTokens,
  parametersOf,
  type RuntimeExpression,
  runtimeExpressionsIn,
  schemaAt,
  toPointer,
  tryResolve,
} from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

/** The schemas of a request body's or response's media types (an object with no content has none). */
const contentSchemas = (holder: unknown): unknown[] =>
  isObject(holder) && isObject(holder.content)
    ? Object.values(holder.content).flatMap((media) =>
        isObject(media) && media.schema !== undefined ? [media.schema] : [],
      )
    : [];

/** What is wrong with reading `expression` where the link is used, or undefined when it can be read. */
function sourceProblem(
  doc: JsonObject,
  expression: RuntimeExpression,
  source: OperationEntry,
  response: JsonObject,
): string | undefined {
  const sourceId = String(source.operation.operationId ?? toPointer(source.tokens));
  if (expression.kind === 'body') {
    const holder = expression.source === 'response' ? response : tryResolve(doc, source.operation.requestBody)?.node;
    const what = expression.source === 'response' ? 'the response' : `the request body of ${sourceId}`;
    const schemas = contentSchemas(holder);
    if (schemas.length === 0) return `${what} has no body to read`;
    const pointer = toPointer(expression.pointer).slice(1);
    const missing = schemas.filter((schema) => schemaAt(doc, schema, expression.pointer) === undefined);
    return missing.length > 0 ? `${what} (${sourceId}) declares nothing at ${pointer || '/'}` : undefined;
  }
  if (expression.kind === 'parameter' && expression.source === 'response') {
    const headers = isObject(response.headers) ? Object.keys(response.headers) : [];
    const found = headers.some((h) => h.toLowerCase() === expression.name.toLowerCase());
    return found ? undefined : `the response (${sourceId}) has no header ${expression.name}`;
  }
  if (expression.kind === 'parameter') {
    const same = (p: ParameterObject) =>
      p.in === expression.in &&
      (expression.in === 'header'
        ? p.name.toLowerCase() === expression.name.toLowerCase()
        : p.name === expression.name);
    return parametersOf(doc, source).some(same)
      ? undefined
      : `${sourceId} has no ${expression.in} parameter ${expression.name}`;
  }
  return undefined;
}

const houseLinksResolve: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  const reported = new Set<string>();
  const report = (path: PointerTokens, message: string) => {
    const key = `${toPointer(path)} ${message}`;
    if (reported.has(key)) return;
    reported.add(key);
    results.push({ message, path: [...path] });
  };
  const entries = operations(doc);
  const byId = new Map(entries.map((entry) => [entry.operation.operationId, entry]));

  for (const source of entries) {
    for (const [status, raw] of Object.entries(source.operation.responses ?? {})) {
      const resolvedResponse = tryResolve<unknown>(doc, raw, [...source.tokens, 'responses', status]);
      const response = resolvedResponse?.node;
      if (!isObject(response) || !isObject(response.links)) continue;
      const responseAt = resolvedResponse?.tokens ?? [...source.tokens, 'responses', status];
      for (const [name, rawLink] of Object.entries(response.links)) {
        const useAt = [...responseAt, 'links', name];
        const resolvedLink = tryResolve<unknown>(doc, rawLink, useAt);
        const link = resolvedLink?.node;
        if (!isObject(link)) continue; // an unresolvable $ref: Redocly reports it
        const linkAt = resolvedLink?.tokens ?? useAt;
        const linkName = toPointer(linkAt);

        // the link itself: its target and the target's parameters
        const operationId = link.operationId;
        const target = typeof operationId === 'string' ? byId.get(operationId) : undefined;
        if (typeof operationId !== 'string')
          report(linkAt, 'Link names no operationId: name its target by operationId (the house uses no operationRef).');
        else if (!target)
          report(
            [...linkAt, 'operationId'],
            `Link's operationId "${operationId}" is not an operation of the document.`,
          );
        const parameters = isObject(link.parameters) ? link.parameters : {};
        if (target) {
          const targetParameters = parametersOf(doc, target);
          for (const key of Object.keys(parameters)) {
            const known = targetParameters.some((p) => key === p.name || key === `${p.in}.${p.name}`);
            if (!known)
              report(
                [...linkAt, 'parameters', key],
                `Link parameter "${key}" is not a parameter of ${operationId} (${targetParameters.map((p) => `${p.in}.${p.name}`).join(', ') || 'none'}).`,
              );
          }
          for (const p of targetParameters) {
            if (p.in !== 'path' || p.required !== true) continue;
            if (!(p.name in parameters) && !(`path.${p.name}` in parameters))
              report([...linkAt, 'parameters'], `Link gives no value for ${operationId}'s path parameter "${p.name}".`);
          }
        }

        // its expressions, read in this source
        const values: Array<[PointerTokens, unknown]> = Object.entries(parameters).map(([key, value]) => [
          ['parameters', key],
          value,
        ]);
        if (link.requestBody !== undefined) values.push([['requestBody'], link.requestBody]);
        for (const [rel, value] of values) {
          for (const { text, parsed } of runtimeExpressionsIn(value)) {
            if (!parsed) {
              report([...linkAt, ...rel], `"${text}" is not a runtime expression.`);
              continue;
            }
            const problem = sourceProblem(doc, parsed, source, response);
            if (problem)
              report(
                useAt,
                `Link ${name} (${linkName}) cannot be followed from ${source.method.toUpperCase()} ${source.key} ${status}: ${text}: ${problem}.`,
              );
          }
        }
      }
    }
  }
  return results;
};
export default houseLinksResolve;
