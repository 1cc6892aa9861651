// house-operation-examples: every request body and every response with `content` shows an
// `example` or `examples` on each media type (after $ref resolution), webhooks included:
// the examples feed the mock server and the documentation.
import { isObject, operations, type PointerTokens, tryResolve } from '../../../tooling/openapi/walker.js';
import type { HouseRule } from './types.js';

const hasExample = (media: unknown) =>
  isObject(media) &&
  (media.example !== undefined || (isObject(media.examples) && Object.keys(media.examples).length > 0));

const houseOperationExamples: HouseRule = (doc) => {
  const results: ReturnType<HouseRule> = [];
  const seen = new Set<string>(); // a shared response component is reported once, where it lives
  const check = (holder: unknown, at: PointerTokens, what: string) => {
    const resolved = tryResolve(doc, holder, at);
    const node = resolved?.node;
    if (!isObject(node) || !isObject(node.content)) return;
    for (const [mediaType, media] of Object.entries(node.content)) {
      const path = [...(resolved?.tokens ?? at), 'content', mediaType];
      const key = JSON.stringify(path);
      if (hasExample(media) || seen.has(key)) continue;
      seen.add(key);
      results.push({ message: `${what} media type "${mediaType}" has no example or examples.`, path });
    }
  };
  for (const { operation, tokens } of operations(doc)) {
    if (operation.requestBody !== undefined) check(operation.requestBody, [...tokens, 'requestBody'], 'Request body');
    for (const [code, response] of Object.entries(operation.responses ?? {}))
      check(response, [...tokens, 'responses', code], `Response ${code}`);
  }
  return results;
};
export default houseOperationExamples;
